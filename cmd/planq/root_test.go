package main

import (
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/hosts"
)

// planq --help names every agent host planq plugs into, and says where to
// start without naming one of them as the only one.
func TestHelpNamesEveryHost(t *testing.T) {
	t.Parallel()
	out, errs, code := runIn(t, t.TempDir(), "--help")
	if code != 0 {
		t.Fatalf("planq --help: exit %d\n%s", code, errs)
	}
	for _, ad := range hosts.All() {
		if !strings.Contains(out, ad.Host().Display) {
			t.Errorf("planq --help does not name %s:\n%s", ad.Host().Display, out)
		}
	}
	if !strings.Contains(out, "Claude Code, OpenCode, Codex CLI, Gemini CLI and Copilot CLI") {
		t.Errorf("planq --help lists the hosts badly:\n%s", out)
	}
	for _, start := range []string{"planq doctor", "planq mcp install", "planq start"} {
		if !strings.Contains(out, start) {
			t.Errorf("planq --help does not say %q:\n%s", start, out)
		}
	}
}
