package hooks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// planqWithHookBinary builds planq and planq-hook into one directory, as
// make install does, so planq mcp install wires the tool hooks to
// planq-hook.
func planqWithHookBinary(t *testing.T) string {
	t.Helper()
	return testenv.BuildPlanqWithHook(t, "..")
}

// TestHookFailureDeniesAWriteInClaudeCode checks, in real Claude Code with
// the tool hooks served by planq-hook, that the gate fails closed: when it
// cannot read the gate state (jj's operation heads are gone), a Write is
// denied with the error as the reason, and the file does not land.
func TestHookFailureDeniesAWriteInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	w := claudeWorld(t, claude, planqWithHookBinary(t)) // built before Isolate: the builds use the real Go caches
	repo := w.Repo
	settings, err := os.ReadFile(filepath.Join(repo, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), "planq-hook pre-tool-use") {
		t.Fatalf("the tool hooks are not wired to planq-hook: %v\n%s", err, settings)
	}
	// Declare the change, so that only the failure can deny; then break the
	// state: jj can no longer read the repository's operations.
	testenv.Run(t, repo, "jj", "describe", "-m", "Declared before the failure")
	if err := os.RemoveAll(filepath.Join(repo, ".jj", "repo", "op_heads", "heads")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(repo, ".jj", "planq-gate.json")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}

	target := filepath.Join(repo, "landed.txt")
	s := w.Run(claudeCode(w, claude), "Write the file",
		fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": target, "content": "must not land\n"}}}},
		fakemodel.Turn{Text: "Done."},
	)
	loop := s.Loop
	if len(loop) < 2 {
		t.Fatalf("the model was asked %d times; the Write did not come back", len(loop))
	}
	trs := loop[1].ToolResults()
	if len(trs) != 1 || !trs[0].IsError || !strings.Contains(trs[0].Text, "could not read the gate state") {
		t.Errorf("after the Write the model got %+v, want a denial naming the unreadable gate state", trs)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the Write landed (%v) although the gate could not judge it", err)
	}
}

// failHost is one host of the fail-closed table: how to make its CLI's
// session in a world wired with planq (installed there already), and its
// tools that write a file and run a shell command.
type failHost struct {
	name  string
	setup func(t *testing.T, w *e2e.World) e2e.Host
	write func(path string) fakemodel.ToolUse // nil: the host writes with its shell only here
	shell func(cmd string) fakemodel.ToolUse
}

var failHosts = []failHost{
	{name: "claude",
		setup: func(t *testing.T, w *e2e.World) e2e.Host { return claudeCode(w, fakemodel.EnsureClaude(t)) },
		write: func(p string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "Write", Input: map[string]any{"file_path": p, "content": "must not land\n"}}
		},
		shell: func(c string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "Bash", Input: map[string]any{"command": c}}
		}},
	{name: "opencode",
		setup: func(t *testing.T, w *e2e.World) e2e.Host {
			return w.CLI(fakemodel.EnsureOpenCode(t), fakemodel.HostRun.OpenCode)
		},
		write: func(p string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "write", Input: map[string]any{"filePath": p, "content": "must not land\n"}}
		},
		shell: func(c string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "bash", Input: map[string]any{"command": c, "description": "write"}}
		}},
	{name: "codex",
		setup: func(t *testing.T, w *e2e.World) e2e.Host {
			bin := fakemodel.EnsureCodex(t)
			testenv.WriteFile(t, filepath.Join(w.Home, ".codex"), "config.toml", fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", w.Repo))
			return w.CLI(bin, fakemodel.HostRun.Codex)
		},
		shell: func(c string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "exec_command", Input: map[string]any{"cmd": c}}
		}},
	{name: "gemini",
		setup: func(t *testing.T, w *e2e.World) e2e.Host {
			return w.CLI(fakemodel.EnsureGemini(t), fakemodel.HostRun.Gemini)
		},
		write: func(p string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "write_file", Input: map[string]any{"file_path": p, "content": "must not land\n"}}
		},
		shell: func(c string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": c, "description": "write"}}
		}},
	{name: "copilot",
		setup: func(t *testing.T, w *e2e.World) e2e.Host {
			return w.CLI(fakemodel.EnsureCopilot(t), fakemodel.HostRun.Copilot)
		},
		write: func(p string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "create", Input: map[string]any{"path": p, "file_text": "must not land\n"}}
		},
		shell: func(c string) fakemodel.ToolUse {
			return fakemodel.ToolUse{Name: "bash", Input: map[string]any{"command": c, "description": "write"}}
		}},
}

// hookFailures break the planq-hook binary the wiring runs, each the way
// it happens: moved away (a planq upgrade, a cleaned directory), without
// its execute bit (a copy, an unpacked archive), or crashing (a
// segmentation fault after half an answer).
var hookFailures = []struct {
	name   string
	break_ func(hook string) error
}{
	{"missing", func(hook string) error { return os.Rename(hook, hook+".away") }},
	{"unexecutable", func(hook string) error { return os.Chmod(hook, 0o644) }},
	{"crashing", func(hook string) error {
		return os.WriteFile(hook, []byte("#!/bin/sh\nprintf '{\"hookSpecificOutput\":'\nkill -SEGV $$\n"), 0o755)
	}},
}

// TestBrokenHookBinaryDeniesInEveryHost checks, in each real host, that
// planq's gate fails closed when the planq-hook binary its wiring runs is
// missing, not executable or crashing: before the change is declared, a
// file write and a shell command that writes are held back under each
// failure in turn (the binary is broken anew before each), and no file
// lands. (Claude Code and Codex let a call through when a hook command
// exits 127, 126 or crashes, Gemini CLI when it crashes; planq's wiring
// turns any failure of the hook command into the host's blocking answer.)
func TestBrokenHookBinaryDeniesInEveryHost(t *testing.T) {
	testenv.SkipShort(t, "the end-to-end test runs every host's real CLI")
	built := planqWithHookBinary(t) // before Isolate: the build uses the real Go caches
	for _, h := range failHosts {
		t.Run(h.name, func(t *testing.T) {
			planq := copyPlanq(t, built)
			hook := filepath.Join(filepath.Dir(planq), "planq-hook")
			good, err := os.ReadFile(hook)
			if err != nil {
				t.Fatal(err)
			}
			w := e2e.New(t, planq)
			host := h.setup(t, w)
			scope := "local"
			if h.name == "claude" {
				scope = "project" // claude's e2e env reads the project's .mcp.json without approval
			}
			w.Install("--host", h.name, "--scope", scope)

			// Each turn breaks the binary its own way (from a good copy)
			// before the model's call reaches the gate.
			var turns []fakemodel.Turn
			var files []string
			for _, f := range hookFailures {
				var calls []fakemodel.ToolUse
				if h.write != nil {
					p := filepath.Join(w.Repo, f.name+"-written.txt")
					calls, files = append(calls, h.write(p)), append(files, p)
				}
				p := filepath.Join(w.Repo, f.name+"-shelled.txt")
				calls, files = append(calls, h.shell("echo must not land > "+p)), append(files, p)
				for i, call := range calls {
					turns = append(turns, fakemodel.Turn{Func: func(*fakemodel.Request) fakemodel.Turn {
						_ = os.Remove(hook + ".away")
						err := os.WriteFile(hook, good, 0o755)
						if err == nil {
							err = os.Chmod(hook, 0o755)
						}
						if err == nil {
							err = f.break_(hook)
						}
						if err != nil {
							return fakemodel.Turn{Text: "could not break the hook: " + err.Error()}
						}
						return fakemodel.Turn{Text: fmt.Sprintf("Call %d with the hook %s.", i, f.name), Tools: []fakemodel.ToolUse{call}}
					}})
				}
			}
			turns = append(turns, fakemodel.Turn{Text: "Done."})
			s := w.Play(host, "Write the files", turns...)
			for _, r := range s.Loop[1:] {
				for _, tr := range r.ToolResults() {
					t.Logf("tool result: error=%v %s", tr.IsError, e2e.Trunc(tr.Text, 300))
				}
			}
			for _, p := range files {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s landed (%v) although planq's gate could not run", filepath.Base(p), err)
				}
			}
		})
	}
}

// copyPlanq copies planq and planq-hook from built's directory into a
// directory of the test's own, so breaking one breaks no other test.
func copyPlanq(t *testing.T, built string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"planq", "planq-hook"} {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(built), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "planq")
}
