package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// Continue checkpoints: it starts a new change on top of @ in the same
// lineage (a "Session: <root>" trailer links it), so a fresh agent session
// there gets @'s description as its handoff. desc defaults to
// "Continue: <task>".
func Continue(ctx context.Context, o Options, desc string) (Started, error) {
	s, err := o.scope()
	if err != nil {
		return Started{}, notJJHint(err)
	}
	cur, err := s.JJ.Current(ctx)
	if err != nil {
		return Started{}, fmt.Errorf("jj: %w", err)
	}
	root, ok := s.LineageOf(cur)
	if !ok {
		if !cur.Declared() {
			return Started{}, errors.New("nothing to continue: the current change has no description and no session; start one with planq start \"task\"")
		}
		root = cur.ChangeID
	}
	task := jj.TaskLine(cur.Description)
	if sess, err := s.TS.Load(root); err == nil && sess.Task != "" {
		task = sess.Task
	}
	if strings.TrimSpace(desc) == "" {
		desc = "Continue: " + task
	}
	ch, err := s.JJ.New(ctx, jj.WithSessionRoot(desc, root), "@")
	if err != nil {
		return Started{}, fmt.Errorf("jj new: %w", err)
	}
	if _, err := s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		if sess.Task == "" {
			sess.Task = task
		}
		sess.AddChange(cur.ChangeID)
		sess.AddChange(ch.ChangeID)
		return nil
	}); err != nil {
		return Started{}, err
	}
	return Started{Change: ch, Root: root, Task: task, Repo: s.Root}, nil
}
