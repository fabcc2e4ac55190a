package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// Started is what Start, Continue or Resume set up.
type Started struct {
	Change  jj.Change // the change the agent works in
	Root    string    // the session lineage's root change id
	Task    string    // the lineage's task line
	Warning string    // something the user should know (a failed fetch, a fallback)
	Notes   []string  // what happened to the work in the working copy (see jj.Declared.Notes)
	// ChangedWhileLocked are the files that changed in the working copy
	// while the gate was locked, found when Start declared the change
	// (gate.CheckDeclared); a note in Notes names them.
	ChangedWhileLocked []string
	// SessionID is the agent session to resume, and Host the agent host it
	// ran in ("claude", "opencode"; Resume only).
	SessionID, Host string
	// Repo is the code repo's root, where the agent runs.
	Repo string
}

// Start declares a new change for task, as jj_init does (fetch, then
// jj new on trunk() or @ with task as its description), and records it as
// the root of a new session lineage.
func Start(ctx context.Context, o Options, task string) (Started, error) {
	task = strings.TrimSpace(task)
	if task == "" {
		return Started{}, errors.New("the task is empty: say in one line what the agent should do, e.g. planq start \"Add rate limiting to the API\"")
	}
	s, err := o.scope()
	if err != nil {
		return Started{}, notJJHint(err)
	}
	d, err := jj.Declare(ctx, s.JJ, task, "")
	if err != nil {
		return Started{}, fmt.Errorf("jj: %w", err)
	}
	root := d.Change.ChangeID
	if _, err := s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		sess.Task = jj.TaskLine(task)
		sess.AddChange(root)
		return nil
	}); err != nil {
		return Started{}, err
	}
	out := Started{Change: d.Change, Root: root, Task: jj.TaskLine(task), Repo: s.Root}
	if d.FetchWarn != "" {
		out.Warning = jj.FetchWarning(d.FetchWarn)
	}
	out.Notes = d.Notes()
	// The declaration recorded the files as they were: name what changed
	// while the gate was locked.
	switch esc, err := gate.CheckDeclared(ctx, s.JJ, s.Root); {
	case err != nil:
		out.Warning = strings.TrimSpace(out.Warning + " " + err.Error())
	case esc.Checked:
		out.ChangedWhileLocked = esc.Files
		if n := esc.Note(); n != "" {
			out.Notes = append(out.Notes, n)
		}
		session.RecordEscapes(session.Env{Getenv: o.Getenv, Now: o.Now}, s.Scope, session.Event{}, "planq start", esc.Files)
	}
	return out, nil
}
