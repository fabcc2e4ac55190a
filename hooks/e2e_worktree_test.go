package hooks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// worktreeWorld is a jj repo wired for Claude Code the way the README says
// (`planq mcp install`, local scope), for the parallel-agents tests.
type worktreeWorld struct {
	*e2e.World
	claude string
	env    []string
}

func newWorktreeWorld(t *testing.T) *worktreeWorld {
	t.Helper()
	claude := fakemodel.EnsureClaude(t)
	w := &worktreeWorld{World: e2e.New(t, planqBinary(t)), claude: claude, env: claudeEnv()}
	install := exec.Command(w.Planq, "mcp", "install", "--host", "claude")
	install.Dir = w.Repo
	install.Env = append(os.Environ(), "PATH="+filepath.Dir(claude)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("planq mcp install: %v\n%s", err, out)
	}
	return w
}

func (w *worktreeWorld) run(ctx context.Context, m *fakemodel.Server, args ...string) (fakemodel.Result, error) {
	return fakemodel.Run{Claude: w.claude, Dir: w.Repo, Home: w.Home, Model: m, Env: w.env, Args: args}.Exec(ctx)
}

// TestWorktreeSessionInClaudeCode: `claude -p --worktree NAME` works in a
// jj workspace made by planq's hook: jj lists it, the gate is locked there
// until the agent declares its change, and the agent's Write lands in the
// workspace's change, not in the main working copy.
func TestWorktreeSessionInClaudeCode(t *testing.T) {
	w := newWorktreeWorld(t)
	ctx := w.Ctx
	ws := filepath.Join(w.Repo, ".planq", "workspaces", "feature")
	file := filepath.Join(ws, "feature.txt")
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": file, "content": "too early\n"}}}},
		fakemodel.Turn{Text: "Declaring.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add the feature file"}}}},
		fakemodel.Turn{Text: "Writing again.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": file, "content": "feature\n"}}}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": "Add the feature file\n\nDone:\n- feature.txt\n\nKey decisions:\n- none\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"}}}},
		fakemodel.Turn{Text: "Summary written."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := w.run(ctx, m, "-p", "Add the feature file", "--worktree", "feature")
	if err != nil {
		t.Fatal(err)
	}
	loop := m.LoopRequests()
	if unused, extra := m.Remaining(); unused != 0 || extra != 0 {
		dumpDebug(t, w.Home)
		t.Fatalf("script: %d turns unused, %d requests after it; stdout: %s", unused, extra, res.Stdout)
	}
	if list := e2e.JJ(t, w.Repo, "workspace", "list"); !strings.Contains(list, "feature:") {
		t.Fatalf("jj workspace list lacks the worktree:\n%s", list)
	}
	if trs := loop[1].ToolResults(); len(trs) != 1 || !trs[0].IsError || !strings.Contains(trs[0].Text, "mcp__planq__jj_init") {
		t.Errorf("the first Write in the workspace got %+v, want the gate's denial naming jj_init", trs)
	}
	if got, err := os.ReadFile(file); err != nil || string(got) != "feature\n" {
		t.Errorf("feature.txt in the workspace = %q, %v", got, err)
	}
	if d := e2e.JJ(t, ws, "diff", "--summary"); !strings.Contains(d, "A feature.txt") {
		t.Errorf("the workspace's change lacks feature.txt:\n%s", d)
	}
	if d := e2e.JJ(t, w.Repo, "diff", "--summary"); strings.TrimSpace(d) != "" {
		t.Errorf("the main working copy's change took something:\n%s", d)
	}
	if desc := e2e.JJ(t, ws, "log", "-r", "@", "--no-graph", "-T", "description"); !strings.Contains(desc, "Done:") {
		t.Errorf("the stop hook's summary did not land in the workspace's change: %q", desc)
	}
	if out := testenv.Run(t, w.Repo, w.Planq, "agents"); !strings.Contains(out, "feature") || !strings.Contains(out, "Add the feature file") {
		t.Errorf("planq agents:\n%s", out)
	}
}

// TestParallelWorktreeSessionsInClaudeCode: two sessions at once, each in a
// workspace of its own, write the same file without seeing each other.
func TestParallelWorktreeSessionsInClaudeCode(t *testing.T) {
	w := newWorktreeWorld(t)
	ctx := w.Ctx
	names := []string{"alpha", "beta"}
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	models := make([]*fakemodel.Server, len(names))
	for i, name := range names {
		ws := filepath.Join(w.Repo, ".planq", "workspaces", name)
		m, err := fakemodel.Start(
			fakemodel.Turn{Text: "Declaring.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Write " + name}}}},
			fakemodel.Turn{Text: "Reading.", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": "cat shared.txt 2>&1; true"}}}},
			fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(ws, "shared.txt"), "content": name + "\n"}}}},
			fakemodel.Turn{Text: "Reading again.", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": "cat shared.txt"}}}},
			fakemodel.Turn{Text: "Done."},
			fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": "Write " + name + "\n\nDone:\n- shared.txt\n\nKey decisions:\n- none\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"}}}},
			fakemodel.Turn{Text: "Summary written."},
		)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		models[i] = m
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = w.run(ctx, m, "-p", "Write "+name, "--worktree", name)
		}()
	}
	wg.Wait()
	for i, name := range names {
		if errs[i] != nil {
			t.Fatalf("session %s: %v", name, errs[i])
		}
		loop := models[i].LoopRequests()
		if len(loop) < 4 {
			t.Fatalf("session %s made %d requests", name, len(loop))
		}
		before, after := loop[2].ToolResults(), loop[4].ToolResults()
		if len(before) != 1 || !strings.Contains(before[0].Text, "No such file") {
			t.Errorf("session %s saw a shared.txt before writing it: %+v", name, before)
		}
		if len(after) != 1 || strings.TrimSpace(after[0].Text) != name {
			t.Errorf("session %s read back %+v, want only its own %q", name, after, name)
		}
		ws := filepath.Join(w.Repo, ".planq", "workspaces", name)
		if show := e2e.JJ(t, ws, "file", "show", "-r", "@", "shared.txt"); strings.TrimSpace(show) != name {
			t.Errorf("workspace %s's change has shared.txt = %q", name, show)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Repo, "shared.txt")); !os.IsNotExist(err) {
		t.Errorf("shared.txt reached the main working copy: %v", err)
	}
}

// TestSubagentWorktreeFoldedInClaudeCode: a subagent started with worktree
// isolation works in a child change of the parent's; when it is done the
// parent is told the change, and folds it in with jj_squash.
func TestSubagentWorktreeFoldedInClaudeCode(t *testing.T) {
	w := newWorktreeWorld(t)
	ctx := w.Ctx
	changeRE := regexp.MustCompile(`- ([k-z]{12}) \(workspace (agent-[0-9a-zA-Z]+)`)
	var folded string
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Declaring.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a helper through a subagent"}}}},
		fakemodel.Turn{Text: "Delegating.", Tools: []fakemodel.ToolUse{{Name: "Agent", Input: map[string]any{
			"description": "write the helper", "prompt": "Write helper.txt", "subagent_type": "general-purpose", "isolation": "worktree"}}}},
		// The subagent, in its workspace.
		fakemodel.Turn{Text: "Writing the helper.", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": "echo helper > helper.txt && pwd"}}}},
		fakemodel.Turn{Text: "Helper written."},
		// The parent again, with planq's report after the Agent call.
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			match := changeRE.FindStringSubmatch(r.Text())
			if match == nil {
				return fakemodel.Turn{Text: "No report of the subagent's change."}
			}
			folded = match[1]
			return fakemodel.Turn{Text: "Folding it in.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_squash", Input: map[string]any{"from": match[1]}}}}
		}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": "Add a helper through a subagent\n\nDone:\n- helper.txt, by a subagent\n\nKey decisions:\n- none\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"}}}},
		fakemodel.Turn{Text: "Summary written."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, err := w.run(ctx, m, "-p", "Add a helper through a subagent")
	loop := m.LoopRequests()
	for i, r := range loop {
		t.Logf("request %d: %s", i, tail(r.LastUserText(), 600))
	}
	if err != nil {
		t.Fatal(err)
	}
	if folded == "" {
		dumpDebug(t, w.Home)
		t.Fatalf("the parent was never told its subagent's change; stdout: %s", res.Stdout)
	}
	if got, err := os.ReadFile(filepath.Join(w.Repo, "helper.txt")); err != nil || strings.TrimSpace(string(got)) != "helper" {
		t.Errorf("helper.txt in the main working copy after jj_squash = %q, %v", got, err)
	}
	if d := e2e.JJ(t, w.Repo, "diff", "--summary"); !strings.Contains(d, "A helper.txt") {
		t.Errorf("the parent's change lacks the folded helper.txt:\n%s", d)
	}
	if desc := e2e.JJ(t, w.Repo, "log", "-r", "@", "--no-graph", "-T", "description"); !strings.HasPrefix(desc, "Add a helper through a subagent") {
		t.Errorf("the parent's description after the fold = %q", desc)
	}
}
