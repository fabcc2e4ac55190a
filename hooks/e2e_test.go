package hooks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// installProject runs `planq mcp install --scope project` in repo,
// registering the server through claude.
func installProject(ctx context.Context, t *testing.T, planq, claude, repo string) {
	t.Helper()
	install := exec.CommandContext(ctx, planq, "mcp", "install", "--scope", "project", "--claude", claude)
	install.Dir = repo
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("planq mcp install: %v\n%s", err, out)
	}
}

// claudeEnv is the environment the end-to-end tests give Claude Code, and so
// planq's hooks and server: the isolated PLANQ_HOME and jj config, a jj
// identity, and a generous MCP start-up timeout.
func claudeEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"),
		"JJ_USER=Test User", "JJ_EMAIL=test@example.com", "MCP_TIMEOUT=30000"}
}

func jjOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testenv.Run(t, dir, "jj", append([]string{"--no-pager", "--color", "never"}, args...)...)
}

// TestEndToEndInClaudeCode drives the real Claude Code CLI against a scripted
// model in a fresh jj repo wired with `planq mcp install --scope project`:
// the gate denies an early Write, jj_init unlocks it, the Write lands in the
// change, the stop hook asks for a living summary, jj_describe writes it, and
// a resumed session gets it back in its context.
func TestEndToEndInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	testenv.RequireJJ(t)
	planq := planqBinary(t) // before Isolate: the build uses the real Go caches
	for _, sub := range []string{"session-start", "pre-tool-use", "stop"} {
		if out, err := exec.Command(planq, "hook", sub, "--help").CombinedOutput(); err != nil || !strings.Contains(string(out), "planq hook "+sub) {
			t.Skipf("!!! SKIPPED: this planq has no `planq hook %s` yet, so the end-to-end test cannot run: %v %s", sub, err, out)
		}
	}
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	home := os.Getenv("HOME")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	installProject(ctx, t, planq, claude, repo)

	hello := filepath.Join(repo, "hello.txt")
	summary := "Add a greeting file\n\nDone:\n- hello.txt with a greeting\n\nKey decisions:\n- plain text over markdown (zebra-decision)\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": hello, "content": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing again.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": hello, "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": summary}}}},
		fakemodel.Turn{Text: "Summary written."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	env := claudeEnv()
	res, err := fakemodel.Run{Claude: claude, Dir: repo, Home: home, Model: m, Env: env,
		Args: []string{"-p", "Add a greeting file"}}.Exec(ctx)
	loop := m.LoopRequests()
	for i, r := range loop {
		t.Logf("loop request %d (turn %d): last user message:\n%s", i, r.Turn, r.LastUserText())
	}
	if err != nil {
		t.Fatal(err)
	}
	if t.Failed() || os.Getenv("PLANQ_E2E_DEBUG") != "" {
		dumpDebug(t, home)
		t.Logf("jj op log:\n%s", jjOut(t, repo, "op", "log", "--no-graph", "-T", `description ++ " | " ++ tags ++ "\n"`))
		t.Logf("jj log:\n%s", jjOut(t, repo, "log", "-r", "::", "--no-graph", "-T", `change_id.short() ++ " " ++ empty ++ " " ++ description.first_line() ++ "\n"`))
	}
	if unused, extra := m.Remaining(); unused != 0 || extra != 0 {
		dumpDebug(t, home)
		t.Fatalf("script: %d turns unused, %d requests after it ended; stdout: %s", unused, extra, res.Stdout)
	}
	// (1) The first Write was denied by the gate, and the model was told why.
	trs := loop[1].ToolResults()
	if len(trs) != 1 || !trs[0].IsError || !strings.Contains(trs[0].Text, "jj_init") {
		t.Errorf("after the first Write the model got %+v, want an error naming jj_init", trs)
	}
	// (2)+(3) jj_init unlocked the gate; the second Write landed in the change.
	if got, err := os.ReadFile(hello); err != nil || string(got) != "hello\n" {
		t.Errorf("hello.txt = %q, %v", got, err)
	}
	if d := jjOut(t, repo, "diff", "--summary"); !strings.Contains(d, "A hello.txt") {
		t.Errorf("jj diff --summary = %q, want hello.txt added in the declared change", d)
	}
	// (4) Ending the turn made the stop hook ask for the summary.
	if fb := loop[4].LastUserText(); !strings.Contains(fb, "Stop hook feedback") || !strings.Contains(fb, "mcp__planq__jj_describe") || !strings.Contains(fb, "Key decisions:") {
		t.Errorf("after the first end of turn the model got:\n%s\nwant the stop hook asking for a summary", fb)
	}
	// (5) jj_describe wrote it: jj log shows the summary.
	if log := jjOut(t, repo, "log", "-r", "@", "--no-graph", "-T", "description"); !strings.Contains(log, "zebra-decision") {
		t.Errorf("jj log -r @ description = %q, want the summary", log)
	}
	if res.SessionID == "" {
		t.Fatalf("no session id in claude's output: %s", res.Stdout)
	}

	// A resumed session gets the summary back in its context.
	m.SetScript(
		fakemodel.Turn{Text: "Looking back.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__query_ancestor",
			Input: map[string]any{"change_id": "@", "include": []string{"transcript"}, "transcript_filter": map[string]any{"search": "zebra-decision"}}}}},
		fakemodel.Turn{Text: "Back, and I know where we are."},
	)
	res2, err := fakemodel.Run{Claude: claude, Dir: repo, Home: home, Model: m, Env: env,
		Args: []string{"-p", "Where were we?", "--resume", res.SessionID}}.Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = res2
	loop = m.LoopRequests()
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
	m.SetScript(fakemodel.Turn{Text: "Conversation summary: a greeting file was added."})
	if _, err := (fakemodel.Run{Claude: claude, Dir: repo, Home: home, Model: m, Env: env,
		Args: []string{"-p", "/compact", "--resume", res.SessionID}}).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	log := testenv.Run(t, repo, planq, "log", "-n", "5")
	if !strings.Contains(log, "Context compacted (manual)") {
		t.Errorf("planq log after /compact lacks the compaction:\n%s", log)
	}
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", res.SessionID+".jsonl"))
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
