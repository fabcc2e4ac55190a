package copilot_test

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

// TestEndToEndInCopilot drives the real Copilot CLI (`copilot -p`, BYOK
// against a scripted model speaking Chat Completions, offline) in a fresh
// jj repo wired with `planq mcp install --host copilot`: the first create
// is denied naming planq-jj_init, planq-jj_init unlocks the gate, a create
// and a bash edit land in the change, the Stop hook's nudge comes back as a
// new turn whose planq-jj_describe writes the summary, and a second
// session gets planq's instructions, reads the change's summary with
// planq-jj_status and the first session's transcript with
// planq-query_ancestor.
func TestEndToEndInCopilot(t *testing.T) {
	bin := fakemodel.EnsureCopilot(t)
	testenv.RequireJJ(t)
	planq := testenv.BuildPlanqWithHook(t, "../..") // before Isolate: the build uses the real Go caches
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	home := os.Getenv("HOME")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	install := exec.CommandContext(ctx, planq, "mcp", "install", "--host", "copilot")
	install.Dir = repo
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("planq mcp install --host copilot: %v\n%s", err, out)
	}

	hello := filepath.Join(repo, "hello.txt")
	summary := "Add a greeting file\n\nDone:\n- hello.txt with a greeting\n\nKey decisions:\n- plain text (zebra-decision)\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"
	var nudge string
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Creating the file.", Tools: []fakemodel.ToolUse{{Name: "create", Input: map[string]any{"path": hello, "file_text": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "planq-jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Creating the okapi file again.", Tools: []fakemodel.ToolUse{{Name: "create", Input: map[string]any{"path": hello, "file_text": "hello\n"}}}},
		fakemodel.Turn{Text: "Appending with bash.", Tools: []fakemodel.ToolUse{{Name: "bash", Input: map[string]any{"command": "echo more >> hello.txt", "description": "append"}}}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			nudge = r.LastUserText()
			return fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "planq-jj_describe", Input: map[string]any{"description": summary}}}}
		}},
		fakemodel.Turn{Text: "Summarised."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	env := []string{"PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"), "JJ_USER=Test User", "JJ_EMAIL=test@example.com"}
	run := fakemodel.HostRun{Bin: bin, Dir: repo, Home: home, Model: m, Prompt: "Add a greeting file", Env: env}
	res, err := run.Copilot(ctx)
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
	// The first create was denied, the model told to call planq-jj_init.
	trs := loop[1].ToolResults()
	if len(trs) != 1 || !strings.Contains(trs[0].Text, "planq gate: blocked") || !strings.Contains(trs[0].Text, "planq-jj_init") {
		t.Fatalf("after the first create the model got %+v, want the gate's denial naming planq-jj_init", trs)
	}
	// planq-jj_init unlocked the gate; the create and the bash edit landed
	// in the declared change, without the local wiring.
	if got, err := os.ReadFile(hello); err != nil || string(got) != "hello\nmore\n" {
		t.Fatalf("hello.txt = %q, %v; want the create and the bash append", got, err)
	}
	if d := jjOut(t, repo, "diff", "--summary"); !strings.Contains(d, "A hello.txt") || strings.Contains(d, ".github") {
		t.Fatalf("jj diff --summary = %q, want hello.txt added and the local wiring left out", d)
	}
	// The Stop hook's nudge came back as a new turn naming planq-jj_describe,
	// and the summary it asked for is the change's description.
	if !strings.Contains(nudge, "planq: the diff of change") || !strings.Contains(nudge, "planq-jj_describe") {
		t.Fatalf("the turn after the first stop got %q, want planq's nudge naming planq-jj_describe", trunc(nudge, 2000))
	}
	desc := jjOut(t, repo, "log", "-r", "@", "--no-graph", "-T", "description")
	if !strings.Contains(desc, "zebra-decision") || !strings.HasPrefix(desc, "Add a greeting file") {
		t.Fatalf("the change's description = %q, want the summary", desc)
	}

	// A second session has planq's instructions, reads the summary with
	// planq-jj_status and the first session's transcript with
	// planq-query_ancestor; its stop does not nudge (the summary is
	// current).
	m2, err := fakemodel.Start(
		fakemodel.Turn{Text: "Looking at the change.", Tools: []fakemodel.ToolUse{{Name: "planq-jj_status", Input: map[string]any{}}}},
		fakemodel.Turn{Text: "Looking back.", Tools: []fakemodel.ToolUse{{Name: "planq-query_ancestor", Input: map[string]any{
			"change_id": "@", "include": []string{"transcript"}, "transcript_filter": map[string]any{"search": "okapi"}}}}},
		fakemodel.Turn{Text: "Found it."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	run.Model, run.Prompt = m2, "What did the last session do?"
	res, err = run.Copilot(ctx)
	loop2 := m2.LoopRequests()
	if err != nil {
		t.Fatal(err)
	}
	if unused, extra := m2.Remaining(); unused != 0 || extra != 0 || len(loop2) != 3 {
		t.Fatalf("session 2: %d requests, %d turns unused, %d after the script\nstdout: %s", len(loop2), unused, extra, trunc(res.Stdout, 3000))
	}
	if sys := loop2[0].System(); !strings.Contains(sys, "call `planq-jj_status`") || !strings.Contains(sys, "declare the change with `planq-jj_init`") {
		t.Fatalf("session 2's system prompt lacks planq's instructions:\n%s", trunc(sys, 4000))
	}
	if trs := loop2[1].ToolResults(); len(trs) != 1 || !strings.Contains(trs[0].Text, "zebra-decision") {
		t.Fatalf("planq-jj_status = %+v, want the change's summary", trs)
	}
	trs = loop2[2].ToolResults()
	if len(trs) != 1 || trs[0].IsError {
		t.Fatalf("query_ancestor: %+v", trs)
	}
	if got := trs[0].Text; !strings.Contains(got, "Transcript:") || !strings.Contains(got, "Creating the okapi file again.") || !strings.Contains(got, "assistant calls create") {
		t.Fatalf("query_ancestor = %s\nwant the first session's transcript lines about the okapi file", trunc(got, 3000))
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

// TestSubagentInCopilot: a subagent Copilot starts with the task tool gets
// planq's context through subagentStart (prepended to its prompt), and its
// own write is gated, denied naming planq-jj_init, like its parent's.
func TestSubagentInCopilot(t *testing.T) {
	bin := fakemodel.EnsureCopilot(t)
	testenv.RequireJJ(t)
	planq := testenv.BuildPlanqWithHook(t, "../..")
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, planq, "mcp", "install", "--host", "copilot")
	install.Dir = repo
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("planq mcp install --host copilot: %v\n%s", err, out)
	}
	var subPrompt string
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Delegating.", Tools: []fakemodel.ToolUse{{Name: "task", Input: map[string]any{
			"name": "helper", "description": "write sub.txt", "prompt": "write sub.txt", "agent_type": "general-purpose", "mode": "sync"}}}},
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			subPrompt = r.LastUserText()
			return fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{{Name: "create", Input: map[string]any{"path": filepath.Join(repo, "sub.txt"), "file_text": "sub\n"}}}}
		}},
		fakemodel.Turn{Text: "Could not write."},
		fakemodel.Turn{Text: "Done."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	env := []string{"PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"), "JJ_USER=Test User", "JJ_EMAIL=test@example.com"}
	res, err := fakemodel.HostRun{Bin: bin, Dir: repo, Home: os.Getenv("HOME"), Model: m, Prompt: "Delegate it", Env: env}.Copilot(ctx)
	loop := m.LoopRequests()
	for i, r := range loop {
		t.Logf("request %d (turn %d): %s", i, r.Turn, trunc(r.LastUserText(), 300))
	}
	if err != nil {
		t.Fatal(err)
	}
	if unused, extra := m.Remaining(); unused != 0 || extra != 0 {
		t.Fatalf("script: %d turns unused, %d after it\nstdout: %s", unused, extra, trunc(res.Stdout, 3000))
	}
	if !strings.Contains(subPrompt, "write sub.txt") || !strings.Contains(subPrompt, "planq: this session works in jj change") || !strings.Contains(subPrompt, "planq-jj_init") {
		t.Fatalf("the subagent's prompt lacks planq's context:\n%s", trunc(subPrompt, 3000))
	}
	if trs := loop[2].ToolResults(); len(trs) != 1 || !strings.Contains(trs[0].Text, "planq gate: blocked") || !strings.Contains(trs[0].Text, "planq-jj_init") {
		t.Fatalf("the subagent's create got %+v, want the gate's denial", trs)
	}
	if _, err := os.Stat(filepath.Join(repo, "sub.txt")); !os.IsNotExist(err) {
		t.Fatalf("the subagent's denied create landed (%v)", err)
	}
}
