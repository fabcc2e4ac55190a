package opencode_test

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

// TestEndToEndInOpenCode drives the real OpenCode CLI (`opencode run`)
// against a scripted model speaking Chat Completions, in a fresh jj repo
// wired with `planq mcp install --host opencode`: the first write is denied
// naming planq_jj_init, planq_jj_init unlocks the gate, a write and a bash
// edit land in the change, planq_jj_describe writes the summary, and a
// second session gets the change's context and reads the first session's
// transcript back with planq_query_ancestor.
func TestEndToEndInOpenCode(t *testing.T) {
	oc := fakemodel.EnsureOpenCode(t)
	testenv.RequireJJ(t)
	planq := testenv.BuildPlanqWithHook(t, "../..") // before Isolate: the build uses the real Go caches
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	home := os.Getenv("HOME")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	install := exec.CommandContext(ctx, planq, "mcp", "install", "--host", "opencode")
	install.Dir = repo
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("planq mcp install --host opencode: %v\n%s", err, out)
	}

	hello := filepath.Join(repo, "hello.txt")
	summary := "Add a greeting file\n\nDone:\n- hello.txt with a greeting\n\nKey decisions:\n- plain text (zebra-decision)\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "write", Input: map[string]any{"filePath": hello, "content": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "planq_jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing the okapi file again.", Tools: []fakemodel.ToolUse{{Name: "write", Input: map[string]any{"filePath": hello, "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Appending with bash.", Tools: []fakemodel.ToolUse{{Name: "bash", Input: map[string]any{"command": "echo more >> hello.txt", "description": "append"}}}},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "planq_jj_describe", Input: map[string]any{"description": summary}}}},
		fakemodel.Turn{Text: "Done."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	env := []string{"PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"), "JJ_USER=Test User", "JJ_EMAIL=test@example.com"}
	run := fakemodel.HostRun{Bin: oc, Dir: repo, Home: home, Model: m, Prompt: "Add a greeting file", Env: env}
	res, err := run.OpenCode(ctx)
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
	// The first write was denied, the model told to call planq_jj_init.
	trs := loop[1].ToolResults()
	if len(trs) != 1 || !strings.Contains(trs[0].Text, "planq gate: blocked") || !strings.Contains(trs[0].Text, "call planq_jj_init") {
		t.Fatalf("after the first write the model got %+v, want the gate's denial naming planq_jj_init", trs)
	}
	// planq_jj_init unlocked the gate; the write and the bash edit landed in
	// the declared change, which holds the summary.
	if got, err := os.ReadFile(hello); err != nil || string(got) != "hello\nmore\n" {
		t.Fatalf("hello.txt = %q, %v; want the write and the bash append", got, err)
	}
	if d := jjOut(t, repo, "diff", "--summary"); !strings.Contains(d, "A hello.txt") || strings.Contains(d, ".opencode") {
		t.Fatalf("jj diff --summary = %q, want hello.txt added and the local wiring left out", d)
	}
	desc := jjOut(t, repo, "log", "-r", "@", "--no-graph", "-T", "description")
	if !strings.Contains(desc, "zebra-decision") || !strings.HasPrefix(desc, "Add a greeting file") {
		t.Fatalf("the change's description = %q, want the summary", desc)
	}

	// A second session starts with the change's context, and reads the first
	// session's transcript through planq_query_ancestor.
	m2, err := fakemodel.Start(
		fakemodel.Turn{Text: "Looking back.", Tools: []fakemodel.ToolUse{{Name: "planq_query_ancestor", Input: map[string]any{
			"change_id": "@", "include": []string{"transcript"}, "transcript_filter": map[string]any{"search": "okapi"}}}}},
		fakemodel.Turn{Text: "Found it."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	run.Model, run.Prompt = m2, "What did the last session do?"
	res, err = run.OpenCode(ctx)
	loop2 := m2.LoopRequests()
	if err != nil {
		t.Fatal(err)
	}
	if len(loop2) != 2 {
		t.Fatalf("session 2: %d agent-loop requests, want 2\nstdout: %s", len(loop2), trunc(res.Stdout, 3000))
	}
	sys := loop2[0].System()
	if !strings.Contains(sys, "planq: this session works in jj change") || !strings.Contains(sys, "zebra-decision") || !strings.Contains(sys, "planq_query_ancestor") {
		t.Fatalf("session 2's system prompt lacks planq's context:\n%s", trunc(sys, 4000))
	}
	trs = loop2[1].ToolResults()
	if len(trs) != 1 || trs[0].IsError {
		t.Fatalf("query_ancestor: %+v", trs)
	}
	if got := trs[0].Text; !strings.Contains(got, "Transcript:") || !strings.Contains(got, "Writing the okapi file again.") || !strings.Contains(got, "assistant calls write") {
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
