package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planq-dev/planq/staterepo"
)

// TestConcurrentWritersLoseNothing runs 8 streams of `planq log add`
// processes (100 each) against one code repo at once, and checks that every
// entry is there exactly once, git fsck is clean and the worktree is clean.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 800 processes")
	}
	bin := buildPlanq(t)
	w := newStateWorld(t)
	w.ok("state", "init")
	const writers, each = 8, 100
	env := append(os.Environ(), "HOME="+w.env["HOME"], "PLANQ_HOME="+w.env["PLANQ_HOME"], "PLANQ_AGENT=", "CLAUDE_PROJECT_DIR=")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
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
	checkStateAfterConcurrency(t, w, want, writers*each)
}

// checkStateAfterConcurrency asserts every wanted body is logged exactly
// once, there are exactly total entries and commits, and git is happy.
func checkStateAfterConcurrency(t *testing.T, w *stateWorld, want map[string]int, total int) {
	t.Helper()
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
