package hooks

import (
	"context"
	"errors"

	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/workflow"
)

// WorktreeCreate answers a host's worktree-create: a jj workspace for the
// event's worktree, whose directory the host then works in.
func (r *Runner) WorktreeCreate(ctx context.Context, ev session.Event) (session.Reply, error) {
	if ev.Worktree == nil || ev.Worktree.Name == "" {
		return session.Reply{}, errors.New("the host named no worktree to create")
	}
	dir := ev.Dir()
	if ev.Cwd != "" {
		dir = ev.Cwd // the creating session's own workspace
	}
	if _, ok := jj.FindRoot(dir); !ok {
		if top, ok := gitTop(ctx, dir); ok {
			// A git repo without jj (planq wired for the user, everywhere):
			// the worktree the host would have made itself.
			path, err := gitWorktreeAdd(ctx, top, ev.Worktree.Name, ev.Worktree.Base)
			return session.Reply{Path: path}, err
		}
	}
	ws, err := workflow.CreateWorkspace(ctx, r.options(dir), workflow.NewWorkspace{Name: ev.Worktree.Name, Base: ev.Worktree.Base,
		Subagent: ev.Worktree.Subagent, SessionID: ev.SessionID, Host: ev.Host, Wire: r.WireWorkspace})
	if err != nil {
		return session.Reply{}, err
	}
	return session.Reply{Path: ws.Path}, nil
}

// options are the workflow's options for a workspace of the repo at dir,
// in the runner's environment.
func (r *Runner) options(dir string) workflow.Options {
	return workflow.Options{Dir: dir, Getenv: r.Getenv, JJBin: r.JJBin, Now: r.Now}
}

// WorktreeRemove answers a host's worktree-remove: the workspace is
// forgotten and its directory goes, and its change stays in the graph.
func (r *Runner) WorktreeRemove(ctx context.Context, ev session.Event) (session.Reply, error) {
	if ev.Worktree == nil || ev.Worktree.Path == "" {
		return session.Reply{}, errors.New("the host named no worktree to remove")
	}
	if _, ok := jj.FindRoot(ev.Worktree.Path); !ok {
		if _, ok := gitTop(ctx, ev.Worktree.Path); ok {
			return session.Reply{}, gitWorktreeRemove(ctx, ev.Worktree.Path)
		}
	}
	_, err := workflow.RemoveWorkspace(ctx, r.options(ev.Worktree.Path), ev.Worktree.Path)
	return session.Reply{}, err
}
