package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// planqBinary builds planq (or uses $PLANQ_E2E_BIN).
func planqBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PLANQ_E2E_BIN"); p != "" {
		return p
	}
	return testenv.BuildPlanq(t, "..")
}

// claudeWorld is the world of an end-to-end test in Claude Code: planq
// wired with `planq mcp install --scope project --host claude`.
func claudeWorld(t *testing.T, claude, planq string) *e2e.World {
	t.Helper()
	w := e2e.New(t, planq)
	w.Install("--scope", "project", "--host", "claude")
	return w
}

// claudeCode is the Host that runs Claude Code in w with claudeEnv, args
// following -p and the prompt.
func claudeCode(w *e2e.World, claude string, args ...string) e2e.Host {
	return e2e.Claude(fakemodel.Run{Claude: claude, Dir: w.Repo, Home: w.Home, Env: claudeEnv(), Args: args})
}

// claudeEnv is the environment the end-to-end tests give Claude Code, and so
// planq's hooks and server: the isolated PLANQ_HOME and jj config, a jj
// identity, and a generous MCP start-up timeout.
func claudeEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"),
		"JJ_USER=Test User", "JJ_EMAIL=test@example.com", "MCP_TIMEOUT=30000"}
}

// TestEndToEndInClaudeCode drives the real Claude Code CLI against a scripted
// model in a fresh jj repo wired with `planq mcp install --scope project`:
// the gate denies an early Write, jj_init unlocks it, the Write lands in the
// change, the stop hook asks for a living summary, jj_describe writes it, and
// a resumed session gets it back in its context.
func TestEndToEndInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	planq := planqBinary(t) // before Isolate: the build uses the real Go caches
	for _, sub := range []string{"session-start", "pre-tool-use", "stop"} {
		if out, err := exec.Command(planq, "hook", sub, "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "planq hook "+sub) {
			t.Skipf("!!! SKIPPED: this planq has no `planq hook %s` yet, so the end-to-end test cannot run: %v %s", sub, err, out)
		}
	}
	w := claudeWorld(t, claude, planq)
	repo, home := w.Repo, w.Home
	w.Debug = func() { dumpDebug(t, home) }

	hello := filepath.Join(repo, "hello.txt")
	s := w.Play(claudeCode(w, claude), "Add a greeting file",
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": hello, "content": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing again.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": hello, "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": e2e.Summary}}}},
		fakemodel.Turn{Text: "Summary written."},
	)
	if os.Getenv("PLANQ_E2E_DEBUG") != "" {
		dumpDebug(t, home)
		t.Logf("jj op log:\n%s", w.JJ("op", "log", "--no-graph", "-T", `description ++ " | " ++ tags ++ "\n"`))
		t.Logf("jj log:\n%s", w.JJ("log", "-r", "::", "--no-graph", "-T", `change_id.short() ++ " " ++ empty ++ " " ++ description.first_line() ++ "\n"`))
	}
	// (1) The first Write was denied by the gate, and the model was told why.
	if tr := w.ToolResult(s.Loop[1], "the first Write", "jj_init"); !tr.IsError {
		t.Errorf("after the first Write the model got %+v, want an error naming jj_init", tr)
	}
	// (2)+(3) jj_init unlocked the gate; the second Write landed in the change.
	if got, err := os.ReadFile(hello); err != nil || string(got) != "hello\n" {
		t.Errorf("hello.txt = %q, %v", got, err)
	}
	if d := w.JJ("diff", "--summary"); !strings.Contains(d, "A hello.txt") {
		t.Errorf("jj diff --summary = %q, want hello.txt added in the declared change", d)
	}
	// (4) Ending the turn made the stop hook ask for the summary.
	if fb := s.Loop[4].LastUserText(); !strings.Contains(fb, "Stop hook feedback") || !strings.Contains(fb, "mcp__planq__jj_describe") || !strings.Contains(fb, "Key decisions:") {
		t.Errorf("after the first end of turn the model got:\n%s\nwant the stop hook asking for a summary", fb)
	}
	// (5) jj_describe wrote it: jj log shows the summary.
	if log := w.Description(); !strings.Contains(log, "zebra-decision") {
		t.Errorf("jj log -r @ description = %q, want the summary", log)
	}
	if s.SessionID == "" {
		t.Fatalf("no session id in claude's output: %s", s.Stdout)
	}
	id := s.SessionID

	// A resumed session gets the summary back in its context.
	s = w.Resume(s, claudeCode(w, claude, "--resume", id), "Where were we?",
		e2e.AskAncestor("mcp__planq__query_ancestor", "zebra-decision"),
		fakemodel.Turn{Text: "Back, and I know where we are."},
	)
	loop := s.Loop
	// query_ancestor reads the lineage's stored transcript.
	if trs := loop[len(loop)-1].ToolResults(); len(trs) != 1 || trs[0].IsError || !strings.Contains(trs[0].Text, "mcp__planq__jj_describe") || !strings.Contains(trs[0].Text, "zebra-decision") {
		t.Errorf("query_ancestor's transcript search returned %+v", trs)
	}
	last := loop[len(loop)-2].Text()
	i := strings.LastIndex(last, "SessionStart hook additional context:")
	if i < 0 || !strings.Contains(last[i:], "zebra-decision") {
		t.Errorf("the resumed session's context lacks the summary; request tail:\n%s", tail(last, 3000))
	}

	// Compaction: pre-compact logs it and session-start (source compact)
	// brings the summary back.
	w.Resume(s, claudeCode(w, claude, "--resume", id), "/compact", fakemodel.Turn{Text: "Conversation summary: a greeting file was added."})
	log := testenv.Run(t, repo, planq, "log", "-n", "5")
	if !strings.Contains(log, "Context compacted (manual)") {
		t.Errorf("planq log after /compact lacks the compaction:\n%s", log)
	}
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", id+".jsonl"))
	var claudeLog []byte
	if len(files) == 1 {
		claudeLog, _ = os.ReadFile(files[0])
	}
	compacted := false
	for _, line := range strings.Split(string(claudeLog), "\n") {
		if strings.Contains(line, "hook_additional_context") && strings.Contains(line, "The conversation was just compacted") && strings.Contains(line, "zebra-decision") {
			compacted = true
		}
	}
	if !compacted {
		t.Errorf("after /compact, Claude Code's transcript (%v) has no compact-source session context carrying the summary", files)
	}
	if t.Failed() {
		dumpDebug(t, home)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// dumpDebug logs planq's session records and the hook results Claude Code
// recorded in its transcripts, to explain a failure.
func dumpDebug(t *testing.T, home string) {
	filepath.Walk(os.Getenv("PLANQ_HOME"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (filepath.Base(p) == "session.json") {
			data, _ := os.ReadFile(p)
			t.Logf("%s:\n%s", p, data)
		}
		return nil
	})
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "hook") {
				t.Logf("%s: %s", filepath.Base(f), tail(line, 1500))
			}
		}
	}
}
