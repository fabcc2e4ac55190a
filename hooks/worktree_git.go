package hooks

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/workflow"
)

// gitTop returns the top of the git working tree holding dir.
func gitTop(ctx context.Context, dir string) (string, bool) {
	out, err := gitOut(ctx, dir, "rev-parse", "--show-toplevel")
	return out, err == nil && out != ""
}

// gitWorktreeAdd makes the git worktree Claude Code makes without a hook:
// .claude/worktrees/NAME on a new branch worktree-NAME, from the remote's
// default branch (fresh) or HEAD (head).
func gitWorktreeAdd(ctx context.Context, top, name, base string) (string, error) {
	if err := workflow.ValidWorkspaceName(name); err != nil {
		return "", err
	}
	from := "HEAD"
	if base != session.BaseHead {
		if _, err := gitOut(ctx, top, "rev-parse", "--verify", "--quiet", "origin/HEAD"); err == nil {
			from = "origin/HEAD"
		}
	}
	path := filepath.Join(top, ".claude", "worktrees", name)
	if _, err := gitOut(ctx, top, "worktree", "add", "-b", "worktree-"+name, "--", path, from); err != nil {
		return "", err
	}
	return path, nil
}

// gitWorktreeRemove removes a git worktree, refusing one with changes git
// has not recorded.
func gitWorktreeRemove(ctx context.Context, path string) error {
	_, err := gitOut(ctx, path, "worktree", "remove", "--", path)
	return err
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(string(out)), nil
}
