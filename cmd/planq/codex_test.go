package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// Codex CLI through the CLI: install finds it on PATH, doctor reports its
// wiring and the two trusts it still needs, start launches `codex PROMPT`,
// and a session Codex recorded resumes with `codex resume ID`.
func TestCodexThroughTheCLI(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	t.Setenv("PATH", fakeCLI(t, "codex")+":/usr/local/bin:/usr/bin:/bin")
	out, errs, code := runIn(t, repo, "mcp", "install")
	if code != 0 || !strings.Contains(errs, "found Codex CLI on this machine") {
		t.Fatalf("mcp install: exit %d\n%s%s", code, out, errs)
	}
	for _, p := range []string{".codex/config.toml", ".codex/hooks.json"} {
		if _, err := os.Stat(filepath.Join(repo, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	out, _, _ = runIn(t, repo, "doctor")
	for _, want := range []string{"ok   codex-server", "ok   codex-hooks 7 of 7 Codex CLI hooks wired", "FAIL codex-project-trust", "FAIL codex-hook-trust", "trust_level = \"trusted\"", "trusted_hash = \"sha256:"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}

	out, errs, code = runIn(t, repo, "start", "Add a greeting file", "--agent", "codex", "--agent-cmd", "none")
	if code != 0 || !strings.Contains(out, "codex 'Add a greeting file'") {
		t.Fatalf("start --agent codex: exit %d\n%s%s", code, out, errs)
	}
	// Codex's session-start hook records its session (its thread id).
	rollout := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(rollout, []byte(`{"type":"session_meta","payload":{"id":"01a211ad-ca6a-7c42-b475-bc0d81f98231","cwd":"`+repo+`","source":"cli"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	payload := `{"session_id":"01a211ad-ca6a-7c42-b475-bc0d81f98231","transcript_path":"` + rollout + `","cwd":"` + repo + `","hook_event_name":"SessionStart","model":"gpt-5.5","permission_mode":"default","source":"startup"}`
	if out, errs, code := runHookIn(t, repo, payload, "hook", "session-start", "--host", "codex"); code != 0 || !strings.Contains(out, "mcp__planq__jj_describe") || !strings.Contains(out, `"hookEventName":"SessionStart"`) {
		t.Fatalf("session-start --host codex: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	out, errs, code = runIn(t, repo, "resume", "@", "--agent-cmd", "none")
	if code != 0 || !strings.Contains(out, "codex resume 01a211ad-ca6a-7c42-b475-bc0d81f98231") {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errs)
	}
}
