package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/workflow"
)

// TestStartInWorkspaceAndAgents walks parallel agents from the command
// line: planq start -w makes a workspace and declares the change there,
// planq agents lists it, planq agents remove forgets it and keeps the change.
func TestStartInWorkspaceAndAgents(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	agent := filepath.Join(t.TempDir(), "agent")
	os.WriteFile(agent, []byte("#!/bin/sh\necho \"agent in $(pwd) args: $*\"\n"), 0o755)
	ws := filepath.Join(repo, ".planq", "workspaces", "pager")

	// Claude Code is started in the main working copy with --worktree: its
	// worktree hook finds the workspace.
	out, errs, code := runIn(t, repo, "start", "-w", "pager", "Fix the pager", "--agent-cmd", agent)
	if code != 0 {
		t.Fatalf("start -w: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "agent in "+repo+" args: --worktree pager Fix the pager") {
		t.Errorf("claude launched as:\n%s", out)
	}
	if !strings.Contains(errs, "made workspace pager") || !strings.Contains(errs, "in workspace pager") {
		t.Errorf("stderr:\n%s", errs)
	}
	// Another host starts in the workspace itself.
	out, errs, code = runIn(t, repo, "start", "-w", "pager", "Fix the pager, again", "--agent", "opencode", "--agent-cmd", agent)
	if code != 0 || !strings.Contains(out, "agent in "+ws+" args: --prompt Fix the pager, again") || !strings.Contains(errs, "there already") {
		t.Errorf("start -w in the same workspace for OpenCode: exit %d\n%s%s", code, out, errs)
	}

	out, _, code = runIn(t, repo, "agents", "--json")
	var list []workflow.AgentStatus
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 {
		t.Fatalf("agents --json: exit %d\n%s", code, out)
	}
	if !list[0].Main || list[1].Name != "pager" || list[1].Path != ws || !list[1].Declared || !strings.HasPrefix(list[1].Summary, "Fix the pager") {
		t.Errorf("agents = %+v", list)
	}
	out, _, code = runIn(t, ws, "agents")
	if code != 0 || !strings.Contains(out, "default (main)") || !strings.Contains(out, "pager") || !strings.Contains(out, "declared") {
		t.Errorf("agents (in the workspace): exit %d\n%s", code, out)
	}

	testenv.WriteFile(t, ws, "pager.go", "package pager\n")
	out, errs, code = runIn(t, repo, "agents", "remove", "pager")
	if code != 0 || !strings.Contains(out, "Forgot workspace pager") || !strings.Contains(out, "Fix the pager") {
		t.Fatalf("agents remove: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(ws); !os.IsNotExist(err) {
		t.Errorf("the workspace directory is still there: %v", err)
	}
	if files := testenv.Run(t, repo, "jj", "file", "list", "-r", list[1].Change); !strings.Contains(files, "pager.go") {
		t.Errorf("the forgotten workspace's change lost pager.go: %q", files)
	}
	_, errs, code = runIn(t, repo, "agents", "remove", "pager")
	if code != 1 || !strings.Contains(errs, "no jj workspace named") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("removing it again: exit %d, %q", code, errs)
	}
}

// TestHookWorktreeCreate: the hook Claude Code runs prints the workspace's
// directory alone, and fails with one line (so no worktree is made) when it
// cannot make one.
func TestHookWorktreeCreate(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	payload := `{"session_id":"5d1c0b8e-2f6a-4e1d-9c3b-7a8e9f0d1c2b","cwd":"` + repo + `","hook_event_name":"WorktreeCreate","name":"feature"}`
	out, errs, code := runHookIn(t, repo, payload, "hook", "worktree-create")
	want := filepath.Join(repo, ".planq", "workspaces", "feature")
	if code != 0 || out != want+"\n" {
		t.Fatalf("worktree-create: exit %d, stdout %q, stderr %q; want %s", code, out, errs, want)
	}
	bad := `{"session_id":"s","cwd":"` + repo + `","hook_event_name":"WorktreeCreate","name":"../../etc"}`
	out, errs, code = runHookIn(t, repo, bad, "hook", "worktree-create")
	if code != 1 || out != "" || !strings.Contains(errs, "not one plain directory name") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("bad name: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	remove := `{"session_id":"s","cwd":"` + want + `","hook_event_name":"WorktreeRemove","worktree_path":"` + want + `"}`
	if _, errs, code := runHookIn(t, want, remove, "hook", "worktree-remove"); code != 0 {
		t.Errorf("worktree-remove: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("workspace still there after worktree-remove: %v", err)
	}
}
