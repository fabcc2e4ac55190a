package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestReadOnlyToolsStartNoHookInClaudeCode checks, in real Claude Code, that
// the installed matcher keeps read-only tools from starting a planq process
// at all, while a Bash call still goes through the gate.
func TestReadOnlyToolsStartNoHookInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	planq := planqBinary(t)
	w := claudeWorld(t, claude, planq)
	repo := w.Repo
	testenv.WriteFile(t, repo, "notes.txt", "read me\n")
	// Point the hooks at a wrapper that logs each start, then runs planq.
	logFile := filepath.Join(t.TempDir(), "hook-starts.log")
	wrapper := filepath.Join(t.TempDir(), "planq-logged")
	script := "#!/bin/sh\necho \"$*\" >> '" + logFile + "'\nexec '" + planq + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(repo, ".claude", "settings.json")
	data, err := os.ReadFile(settings)
	if err != nil || !strings.Contains(string(data), planq) {
		t.Fatalf("settings.json does not name %s: %v\n%s", planq, err, data)
	}
	if err := os.WriteFile(settings, []byte(strings.ReplaceAll(string(data), planq, wrapper)), 0o644); err != nil {
		t.Fatal(err)
	}

	s := w.Run(claudeCode(w, claude), "Look around",
		fakemodel.Turn{Text: "Reading.", Tools: []fakemodel.ToolUse{{Name: "Read", Input: map[string]any{"file_path": filepath.Join(repo, "notes.txt")}}}},
		fakemodel.Turn{Text: "Searching.", Tools: []fakemodel.ToolUse{{Name: "Grep", Input: map[string]any{"pattern": "read", "path": repo}}}},
		fakemodel.Turn{Text: "Listing.", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": "ls", "description": "list files"}}}},
		fakemodel.Turn{Text: "Done."},
	)
	if n := len(s.Loop); n < 4 {
		t.Fatalf("the model was asked %d times; the scripted tools did not all run", n)
	}
	starts, _ := os.ReadFile(logFile)
	count := func(sub string) int { return strings.Count(string(starts), "hook "+sub+"\n") }
	if count("pre-tool-use") != 1 || count("post-tool-use") != 1 {
		t.Errorf("hook starts:\n%s\nwant exactly one pre-tool-use and one post-tool-use (for Bash); Read and Grep must start none", starts)
	}
	if count("session-start") != 1 {
		t.Errorf("hook starts:\n%s\nwant one session-start (the wrapper is really wired)", starts)
	}
}
