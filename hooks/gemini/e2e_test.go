package gemini_test

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

// TestEndToEndInGemini drives the real Gemini CLI (`gemini -p`) against a
// scripted model speaking Gemini's streamGenerateContent SSE, in a fresh jj
// repo wired with `planq mcp install --host gemini` (local scope, the
// workspace trusted for the run): the first write_file is denied naming
// mcp_planq_jj_init, mcp_planq_jj_init unlocks the gate, a write_file and a
// run_shell_command in a dir_path land in the change, the AfterAgent nudge
// becomes a new user turn in which the model writes the summary with
// mcp_planq_jj_describe, and a second session gets the change's context
// (<hook_context> before the prompt) and reads the first session's
// transcript back with mcp_planq_query_ancestor.
func TestEndToEndInGemini(t *testing.T) {
	gm := fakemodel.EnsureGemini(t)
	testenv.RequireJJ(t)
	planq := testenv.BuildPlanqWithHook(t, "../..") // before Isolate: the build uses the real Go caches
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	home := os.Getenv("HOME")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	install := exec.CommandContext(ctx, planq, "mcp", "install", "--host", "gemini")
	install.Dir = repo
	out, err := install.CombinedOutput()
	if err != nil {
		t.Fatalf("planq mcp install --host gemini: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "not trusted") {
		t.Fatalf("install did not say the folder is not trusted yet:\n%s", out)
	}
	testenv.WriteFile(t, repo, "sub/keep.txt", "")

	hello := filepath.Join(repo, "hello.txt")
	summary := "Add a greeting file\n\nDone:\n- hello.txt with a greeting\n\nKey decisions:\n- plain text (zebra-decision)\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "write_file", Input: map[string]any{"file_path": hello, "content": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp_planq_jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing the okapi file again.", Tools: []fakemodel.ToolUse{{Name: "write_file", Input: map[string]any{"file_path": hello, "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Appending in sub.", Tools: []fakemodel.ToolUse{{Name: "run_shell_command", Input: map[string]any{"command": "echo more >> ../hello.txt", "dir_path": "sub", "description": "append"}}}},
		fakemodel.Turn{Text: "Done."},
		// The AfterAgent nudge arrives as a new user turn.
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			if !strings.Contains(r.LastUserText(), "call mcp_planq_jj_describe") {
				return fakemodel.Turn{Text: "no nudge arrived"}
			}
			return fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp_planq_jj_describe", Input: map[string]any{"description": summary}}}}
		}},
		fakemodel.Turn{Text: "Summary written."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	env := []string{"PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"), "JJ_USER=Test User", "JJ_EMAIL=test@example.com"}
	run := fakemodel.HostRun{Bin: gm, Dir: repo, Home: home, Model: m, Prompt: "Add a greeting file", Env: env}
	res, err := run.Gemini(ctx)
	loop := m.LoopRequests()
	for i, r := range loop {
		t.Logf("session 1 request %d (turn %d): %s", i, r.Turn, trunc(r.LastUserText(), 400))
	}
	if err != nil {
		t.Fatal(err)
	}
	if unused, extra := m.Remaining(); unused != 0 || extra != 0 {
		t.Fatalf("script: %d turns unused, %d requests after it ended\nstdout: %s\nstderr: %s", unused, extra, trunc(res.Stdout, 3000), trunc(res.Stderr, 3000))
	}
	// Session 1 got planq's context before the prompt.
	if first := loop[0].LastUserText(); !strings.Contains(first, "<hook_context>") || !strings.Contains(first, "call mcp_planq_jj_init") {
		t.Fatalf("session 1's first request lacks planq's context:\n%s", trunc(first, 3000))
	}
	// The first write was denied, the model told to call mcp_planq_jj_init.
	trs := loop[1].ToolResults()
	if len(trs) != 1 || !strings.Contains(trs[0].Text, "Tool execution blocked: planq gate: blocked") || !strings.Contains(trs[0].Text, "call mcp_planq_jj_init") {
		t.Fatalf("after the first write the model got %+v, want the gate's denial naming mcp_planq_jj_init", trs)
	}
	if got := loop[5].LastUserText(); !strings.Contains(got, "call mcp_planq_jj_describe") {
		t.Fatalf("the nudge did not arrive as a user turn: %q", trunc(got, 1000))
	}
	// The write and the shell append landed in the declared change, which
	// holds the summary.
	if got, err := os.ReadFile(hello); err != nil || string(got) != "hello\nmore\n" {
		t.Fatalf("hello.txt = %q, %v; want the write and the shell append", got, err)
	}
	if d := jjOut(t, repo, "diff", "--summary"); !strings.Contains(d, "A hello.txt") || strings.Contains(d, ".gemini") {
		t.Fatalf("jj diff --summary = %q, want hello.txt added and the local wiring left out", d)
	}
	desc := jjOut(t, repo, "log", "-r", "@", "--no-graph", "-T", "description")
	if !strings.Contains(desc, "zebra-decision") || !strings.HasPrefix(desc, "Add a greeting file") {
		t.Fatalf("the change's description = %q, want the summary", desc)
	}

	// A second session starts with the change's context, and reads the first
	// session's transcript through mcp_planq_query_ancestor.
	m2, err := fakemodel.Start(
		fakemodel.Turn{Text: "Looking back.", Tools: []fakemodel.ToolUse{{Name: "mcp_planq_query_ancestor", Input: map[string]any{
			"change_id": "@", "include": []string{"transcript"}, "transcript_filter": map[string]any{"search": "okapi"}}}}},
		fakemodel.Turn{Text: "Found it."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	run.Model, run.Prompt = m2, "What did the last session do?"
	res, err = run.Gemini(ctx)
	loop2 := m2.LoopRequests()
	if err != nil {
		t.Fatal(err)
	}
	if len(loop2) != 2 {
		t.Fatalf("session 2: %d agent-loop requests, want 2\nstdout: %s", len(loop2), trunc(res.Stdout, 3000))
	}
	first := loop2[0].LastUserText()
	if !strings.Contains(first, "<hook_context>") || !strings.Contains(first, "planq: this session works in jj change") || !strings.Contains(first, "zebra-decision") {
		t.Fatalf("session 2's first request lacks planq's context:\n%s", trunc(first, 4000))
	}
	trs = loop2[1].ToolResults()
	if len(trs) != 1 || trs[0].IsError {
		t.Fatalf("query_ancestor: %+v", trs)
	}
	if got := trs[0].Text; !strings.Contains(got, "Transcript:") || !strings.Contains(got, "Writing the okapi file again.") || !strings.Contains(got, "assistant calls write_file") {
		t.Fatalf("query_ancestor = %s\nwant the first session's transcript lines about the okapi file", trunc(got, 2000))
	}
}

func jjOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testenv.Run(t, dir, "jj", append([]string{"--no-pager", "--color", "never"}, args...)...)
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
