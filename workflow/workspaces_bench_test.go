package workflow_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/planq-dev/planq/workflow"
)

// BenchmarkCreateWorkspace times planq's worktree-create (a jj workspace on
// trunk(), the exclude line, Claude Code's wiring in it) against a bare
// `jj workspace add` in the same repo: the ratio is planq's overhead.
func BenchmarkCreateWorkspace(b *testing.B) {
	w := newWorkspaceWorld(b)
	ctx := context.Background()
	var planq, bare time.Duration
	for i := range b.N {
		start := time.Now()
		if _, err := w.create(ctx, workflow.NewWorkspace{Name: fmt.Sprintf("p%d", i)}); err != nil {
			b.Fatal(err)
		}
		planq += time.Since(start)
		start = time.Now()
		cmd := exec.Command("jj", "workspace", "add", "--config", "git.colocate=false", "--name", fmt.Sprintf("j%d", i), "-r", "trunk()", filepath.Join(b.TempDir(), "ws"))
		cmd.Dir = w.repo
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("jj workspace add: %v\n%s", err, out)
		}
		bare += time.Since(start)
	}
	b.ReportMetric(float64(planq.Milliseconds())/float64(b.N), "planq-ms/op")
	b.ReportMetric(float64(planq)/float64(bare), "x-jj-workspace-add")
}

// BenchmarkAgents20 times `planq agents` over 20 workspaces against one
// `jj workspace list`: planq asks jj once, with the diff stats in the same
// process.
func BenchmarkAgents20(b *testing.B) {
	w := newWorkspaceWorld(b)
	ctx := context.Background()
	for i := range 20 {
		if _, err := w.create(ctx, workflow.NewWorkspace{Name: fmt.Sprintf("agent%02d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	var planq, bare time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		list, err := workflow.Agents(ctx, workflow.Options{Dir: w.repo})
		if err != nil || len(list) != 21 {
			b.Fatalf("agents = %d, %v", len(list), err)
		}
		planq += time.Since(start)
		start = time.Now()
		cmd := exec.Command("jj", "workspace", "list")
		cmd.Dir = w.repo
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		bare += time.Since(start)
	}
	b.ReportMetric(float64(planq.Milliseconds())/float64(b.N), "planq-ms/op")
	b.ReportMetric(float64(planq)/float64(bare), "x-jj-workspace-list")
}
