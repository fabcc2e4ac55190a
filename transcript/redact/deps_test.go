package redact

import (
	"os/exec"
	"strings"
	"testing"
)

// The hook and sandbox binaries run on every tool call: they must not link
// gitleaks (its rules take 100 ms to compile and several MB), only planq's
// sharing commands do.
func TestHookAndSandboxDoNotLinkGitleaks(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "../../cmd/planq-hook", "../../cmd/planq-sandbox").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "gitleaks") || strings.HasSuffix(pkg, "/transcript/redact") {
			t.Errorf("planq-hook or planq-sandbox links %s", pkg)
		}
	}
	out, err = exec.Command("go", "list", "-deps", "../../cmd/planq").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "github.com/zricethezav/gitleaks/v8/detect") {
		t.Errorf("planq does not link gitleaks' detector (%v); the sharing commands need it", err)
	}
}
