package hooks_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
)

// TestCrashAndCleanupLoseNoTurnInClaudeCode is the vault in real Claude
// Code: a turn's end (Stop) puts the turn in planq's store while the
// session goes on; Claude Code is then killed mid-turn (no Stop, no
// SessionEnd), the next session in the project copies what the crashed one
// wrote after its last hook, Claude Code's cleanup deletes the crashed
// session's file, and still query_ancestor finds the crashed turn and
// planq resume brings the whole conversation back.
func TestCrashAndCleanupLoseNoTurnInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	planq := planqBinary(t) // before Isolate: the build uses the real Go caches
	w := claudeWorld(t, claude, planq)
	w.Debug = func() { dumpDebug(t, w.Home) }

	ctx, kill := context.WithCancel(w.Ctx)
	defer kill()
	var atStop, beforeKill bool
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing the greeting (okapi-turn).", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(w.Repo, "hello.txt"), "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Done."},
		// Stop asked for the summary: the turn so far is in the store now.
		fakemodel.Turn{Func: func(*fakemodel.Request) fakemodel.Turn {
			atStop = w.Vaulted("okapi-turn")
			return fakemodel.Turn{Text: "Checking the file first (kiwi-midturn).", Tools: []fakemodel.ToolUse{{Name: "Read", Input: map[string]any{"file_path": filepath.Join(w.Repo, "hello.txt")}}}}
		}},
		// Claude Code dies mid-turn, once it has written the turn so far
		// (it writes its transcript a moment after the fact).
		fakemodel.Turn{Func: func(*fakemodel.Request) fakemodel.Turn {
			for ctx.Err() == nil && transcriptWith(w.Home, "kiwi-midturn") == "" {
				time.Sleep(20 * time.Millisecond)
			}
			beforeKill = w.Vaulted("kiwi-midturn")
			kill()
			return fakemodel.Turn{Text: "Never read."}
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if _, err := claudeCode(w, claude)(ctx, m, "Add a greeting file."); err == nil {
		t.Fatal("claude ran to its end; want it killed mid-turn")
	}
	crashed := e2e.Session{Model: m, Loop: m.LoopRequests()}
	if !atStop {
		t.Fatal("the turn was not in planq's store when Stop had answered")
	}
	if beforeKill {
		t.Fatal("the turn in flight was in planq's store before its end: the test's premise is wrong")
	}
	change := strings.TrimSpace(w.JJ("log", "-r", "@", "--no-graph", "-T", "change_id"))
	file := claudeTranscriptWith(t, w.Home, "kiwi-midturn")
	sid := strings.TrimSuffix(filepath.Base(file), ".jsonl")
	if w.Vaulted("kiwi-midturn") {
		t.Fatal("planq's store holds the turn in flight though no hook ran after it")
	}

	// The next session, on another change, copies what the crashed one
	// wrote after its last hook.
	w.JJ("new", "-m", "Tidy the readme")
	w.Play(claudeCode(w, claude), "Anything to tidy?", fakemodel.Turn{Text: "Nothing to tidy."})
	if !w.Vaulted("kiwi-midturn") {
		t.Fatal("the next session's start did not copy the crashed session's last turn")
	}

	// Claude Code's cleanup deletes the crashed session's transcript.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	s := w.Play(claudeCode(w, claude), "What happened in the greeting change?",
		fakemodel.Turn{Text: "Looking back.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__query_ancestor", Input: map[string]any{
			"change_id": change, "include": []string{"transcript"}, "transcript_filter": map[string]any{"search": "kiwi-midturn"}}}}},
		fakemodel.Turn{Text: "I see."},
	)
	w.ToolOK(s.Loop[1], "query_ancestor on the crashed session's change", "kiwi-midturn")

	// planq resume writes the session's file back, and Claude Code goes on
	// with the whole conversation.
	cmd := exec.CommandContext(w.Ctx, planq, "resume", change, "--agent-cmd", "none")
	cmd.Dir = w.Repo
	cmd.Env = append(os.Environ(), w.Env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "--resume "+sid) || !strings.Contains(errb.String(), "restored Claude Code session "+sid) {
		t.Fatalf("planq resume %s: %v\nstdout: %s\nstderr: %s", change, err, out.String(), errb.String())
	}
	sr := w.Resume(crashed, claudeCode(w, claude, "--resume", sid), "Where were we?", fakemodel.Turn{Text: "Back at it."})
	first := sr.Loop[len(crashed.Loop)].Text()
	for _, want := range []string{"Writing the greeting (okapi-turn).", "Checking the file first (kiwi-midturn).", "Where were we?"} {
		if !strings.Contains(first, want) {
			t.Errorf("the resumed session's first request lacks %q:\n%s", want, e2e.Trunc(first, 4000))
		}
	}
}

// claudeTranscriptWith is the Claude Code transcript under home that holds
// text; none ends the test.
func claudeTranscriptWith(t *testing.T, home, text string) string {
	t.Helper()
	f := transcriptWith(home, text)
	if f == "" {
		t.Fatalf("no Claude Code transcript under %s holds %q", home, text)
	}
	return f
}

// transcriptWith is the Claude Code transcript under home (a session's or
// a subagent's) that holds text, or "".
func transcriptWith(home, text string) string {
	var found string
	_ = filepath.WalkDir(filepath.Join(home, ".claude", "projects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != "" || filepath.Ext(p) != ".jsonl" {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && bytes.Contains(data, []byte(text)) {
			found = p
		}
		return nil
	})
	return found
}

// TestSubagentTranscriptIsKeptInClaudeCode: Claude Code keeps a
// subagent's conversation in a file of its own beside the session's (and
// deletes it with the session's); planq keeps it in the lineage, where
// query_ancestor finds it after Claude Code's files are gone.
func TestSubagentTranscriptIsKeptInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	planq := planqBinary(t) // before Isolate: the build uses the real Go caches
	w := claudeWorld(t, claude, planq)
	w.Debug = func() { dumpDebug(t, w.Home) }
	w.Play(claudeCode(w, claude), "Add a helper through a subagent",
		fakemodel.Turn{Text: "Declaring.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a helper through a subagent"}}}},
		fakemodel.Turn{Text: "Delegating.", Tools: []fakemodel.ToolUse{{Name: "Agent", Input: map[string]any{
			"description": "write the helper", "prompt": "Write helper.txt", "subagent_type": "general-purpose"}}}},
		// The subagent.
		fakemodel.Turn{Text: "Writing the helper (lynx-sub).", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": "echo helper > helper.txt"}}}},
		fakemodel.Turn{Text: "Helper written."},
		// The parent again.
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": "Add a helper through a subagent\n\nDone:\n- helper.txt, by a subagent\n\nKey decisions:\n- none\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"}}}},
		fakemodel.Turn{Text: "Summary written."},
	)
	sub := claudeTranscriptWith(t, w.Home, "lynx-sub")
	if !strings.Contains(filepath.ToSlash(sub), "/subagents/") {
		t.Fatalf("Claude Code kept the subagent's turn in %s, not in a subagent's file: the test's premise is wrong", sub)
	}
	if !w.Vaulted("lynx-sub") {
		t.Fatal("planq's store lacks the subagent's conversation")
	}
	// Claude Code's cleanup deletes the session's files.
	if err := os.RemoveAll(filepath.Join(w.Home, ".claude", "projects")); err != nil {
		t.Fatal(err)
	}
	s := w.Play(claudeCode(w, claude), "What did the subagent do?",
		e2e.AskAncestor("mcp__planq__query_ancestor", "lynx-sub"), fakemodel.Turn{Text: "I see."})
	w.ToolOK(s.Loop[1], "query_ancestor for the subagent's turn", "Writing the helper (lynx-sub).")
}
