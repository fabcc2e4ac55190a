package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/flock"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/staterepo"
)

// TestConcurrentWritersLoseNothing runs 8 streams of `planq log add`
// processes (100 each) and 2 `planq mcp serve` processes calling planq_log
// (100 each) against one code repo at once, and checks that all 1,000
// entries are there exactly once, git fsck is clean and the worktree is
// clean.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	testenv.SkipShort(t, "spawns 800 processes")
	t.Parallel()
	bin := buildPlanq(t)
	w := newStateWorld(t)
	w.ok("state", "init")
	const writers, each, servers = 8, 100, 2
	// Writers and servers get the world's HOME and PLANQ_HOME in their
	// environment; the test's own is left alone, so it runs in parallel.
	env := append(os.Environ(), "HOME="+w.env["HOME"], "PLANQ_HOME="+w.env["PLANQ_HOME"], "PLANQ_AGENT=", "CLAUDE_PROJECT_DIR=")
	var clients []*rpcClient
	for i := 0; i < servers; i++ {
		c := startServerEnv(t, w.repo, env)
		c.request("initialize", map[string]any{
			"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "concurrency-test", "version": "1"},
		})
		c.notify("notifications/initialized")
		clients = append(clients, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, writers*each+servers*each)
	for p := 0; p < writers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				cmd := exec.CommandContext(ctx, bin, "log", "add", fmt.Sprintf("cli writer %d entry %03d", p, i))
				cmd.Dir = w.repo
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("writer %d entry %d: %v: %s", p, i, err, out)
					return
				}
			}
		}(p)
	}
	for i, c := range clients {
		wg.Add(1)
		go func(i int, c *rpcClient) {
			defer wg.Done()
			for j := 0; j < each; j++ {
				if err := c.tryTool(1000+j, "planq_log", map[string]any{"message": fmt.Sprintf("mcp server %d entry %03d", i, j)}); err != nil {
					errs <- fmt.Errorf("server %d entry %d: %v", i, j, err)
					return
				}
			}
		}(i, c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	want := map[string]int{}
	for p := 0; p < writers; p++ {
		for i := 0; i < each; i++ {
			want[fmt.Sprintf("cli writer %d entry %03d", p, i)] = 1
		}
	}
	for i := 0; i < servers; i++ {
		for j := 0; j < each; j++ {
			want[fmt.Sprintf("mcp server %d entry %03d", i, j)] = 1
		}
	}
	checkStateAfterConcurrency(t, w, want, writers*each+servers*each)
}

// tryTool calls a tool and reports a protocol or tool error instead of
// failing the test, so goroutines can use it.
func (c *rpcClient) tryTool(id int, name string, args map[string]any) error {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	if _, err := c.in.Write(append(msg, '\n')); err != nil {
		return err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return fmt.Errorf("read: %v", err)
		}
		var resp struct {
			ID     *int `json:"id"`
			Result struct {
				IsError bool             `json:"isError"`
				Content []map[string]any `json:"content"`
			} `json:"result"`
			Error *struct{ Message string } `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return fmt.Errorf("non-JSON-RPC line %q", line)
		}
		if resp.ID == nil {
			continue
		}
		if *resp.ID != id {
			return fmt.Errorf("response id %d, want %d", *resp.ID, id)
		}
		if resp.Error != nil {
			return fmt.Errorf("JSON-RPC error: %s", resp.Error.Message)
		}
		if resp.Result.IsError {
			return fmt.Errorf("tool error: %v", resp.Result.Content)
		}
		return nil
	}
}

// checkStateAfterConcurrency asserts every wanted body is logged exactly
// once, there are exactly total entries and commits, and git is happy.
func checkStateAfterConcurrency(t *testing.T, w *stateWorld, want map[string]int, total int) {
	t.Helper()
	// The writes started background maintenance; let it finish, then check
	// the repo as it leaves it.
	waitForMaintenance(t, w)
	s, err := staterepo.Open(staterepo.Options{Dir: w.repo, Getenv: func(k string) string { return w.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	es, probs, err := s.LogEntries(context.Background(), 0)
	if err != nil || len(probs) > 0 {
		t.Fatalf("read log: %v %v", err, probs)
	}
	got := map[string]int{}
	for _, e := range es {
		got[e.Body]++
	}
	for body, n := range want {
		if got[body] != n {
			t.Errorf("%q logged %d times, want %d", body, got[body], n)
		}
	}
	if len(es) != total {
		t.Errorf("%d entries, want %d", len(es), total)
	}
	wt := filepath.Join(w.repo, ".planq", "agent")
	if st := w.git(wt, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean:\n%s", st)
	}
	if n := w.git(wt, "rev-list", "--count", "HEAD"); n != fmt.Sprint(total+1) {
		t.Errorf("%s commits, want %d (one per entry plus the branch's first)", n, total+1)
	}
	w.git(s.Bare, "fsck", "--strict", "--no-progress")
	if st := w.git(w.repo, "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, ".planq/agent") {
		t.Errorf("code repo shows state files:\n%s", st)
	}
}

// waitForMaintenance waits until no background maintenance runs.
func waitForMaintenance(t *testing.T, w *stateWorld) {
	t.Helper()
	l, err := flock.Acquire(context.Background(), filepath.Join(w.bare(), "planq-maintenance.lock"), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}
