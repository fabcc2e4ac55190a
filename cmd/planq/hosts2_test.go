package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// Gemini CLI and Copilot CLI through the CLI, as TestCodexThroughTheCLI
// does for Codex: install finds the host on PATH, doctor reports its wiring
// and what it still needs, start launches it, a session it recorded resumes
// in it.
func TestGeminiAndCopilotThroughTheCLI(t *testing.T) {
	const sid = "eb02fbb5-7d9c-43e2-84ff-d1e37252c976"
	tests := []struct {
		host, display string
		files         []string
		doctor        []string
		start, resume string
		payload       func(repo, transcript string) string
		env           map[string]string
	}{
		{
			host: "gemini", display: "Gemini CLI",
			files:  []string{".gemini/settings.json"},
			doctor: []string{"ok   gemini-server", "ok   gemini-hooks", "FAIL gemini-trust", "trustedFolders.json"},
			start:  "gemini '--prompt-interactive=Add a greeting file'", resume: "gemini --resume " + sid,
			payload: func(repo, tr string) string {
				return `{"session_id":"` + sid + `","transcript_path":"` + tr + `","cwd":"` + repo + `","hook_event_name":"SessionStart","timestamp":"2026-11-25T08:30:16.914Z","source":"startup"}`
			},
		},
		{
			host: "copilot", display: "Copilot CLI",
			files:  []string{".github/hooks/planq.json", ".github/mcp.json", ".github/instructions/planq.instructions.md"},
			doctor: []string{"ok   copilot-server", "ok   copilot-hooks", "copilot-trust", "copilot-fail-open"},
			start:  "copilot -i 'Add a greeting file'", resume: "copilot '--resume=" + sid + "'",
			payload: func(repo, tr string) string {
				return `{"hook_event_name":"SessionStart","session_id":"` + sid + `","timestamp":"2026-11-25T08:39:14.771Z","cwd":"` + repo + `","source":"new","initial_prompt":"go"}`
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			testenv.Isolate(t)
			repo := testenv.JJRepo(t)
			if real, err := filepath.EvalSymlinks(repo); err == nil {
				repo = real
			}
			t.Setenv("PATH", fakeCLI(t, tt.host)+":/usr/local/bin:/usr/bin:/bin")
			t.Setenv("GEMINI_PROJECT_DIR", repo)
			t.Setenv("COPILOT_HOME", filepath.Join(os.Getenv("HOME"), ".copilot"))
			out, errs, code := runIn(t, repo, "mcp", "install")
			if code != 0 || !strings.Contains(errs, "found "+tt.display+" on this machine") {
				t.Fatalf("mcp install: exit %d\n%s%s", code, out, errs)
			}
			for _, p := range tt.files {
				if _, err := os.Stat(filepath.Join(repo, p)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			if d := testenv.Run(t, repo, "jj", "diff", "--summary"); strings.TrimSpace(d) != "" {
				t.Errorf("the local wiring is in the working-copy change:\n%s", d)
			}
			out, _, _ = runIn(t, repo, "doctor")
			for _, want := range tt.doctor {
				if !strings.Contains(out, want) {
					t.Errorf("doctor lacks %q:\n%s", want, out)
				}
			}
			out, errs, code = runIn(t, repo, "start", "Add a greeting file", "--agent", tt.host, "--agent-cmd", "none")
			if code != 0 || !strings.Contains(out, tt.start) {
				t.Fatalf("start --agent %s: exit %d\n%s%s", tt.host, code, out, errs)
			}
			tr := filepath.Join(t.TempDir(), "session.jsonl")
			if err := os.WriteFile(tr, []byte(`{"sessionId":"`+sid+`","projectHash":"x"}`+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, errs, code := runHookIn(t, repo, tt.payload(repo, tr), "hook", "session-start", "--host", tt.host); code != 0 || strings.Contains(errs, "planq hook") {
				t.Fatalf("session-start --host %s: exit %d\nstdout %s\nstderr %s", tt.host, code, out, errs)
			}
			out, errs, code = runIn(t, repo, "resume", "@", "--agent-cmd", "none")
			if code != 0 || !strings.Contains(out, tt.resume) {
				t.Fatalf("resume: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}
