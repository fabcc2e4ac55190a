package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/transcript/share"
)

// WorkflowOptions say where `planq start`, `continue` and `resume` work.
type WorkflowOptions struct {
	Dir    string              // a directory in the code repo
	Getenv func(string) string // environment; default os.Getenv
	JJBin  string              // jj executable; default "jj"
	Now    func() time.Time    // clock; default time.Now
}

func (o WorkflowOptions) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// fetchLineage fetches the lineage rooted at root from the state remote (a
// lazy pull), within lazyFetchTimeout.
func fetchLineage(ctx context.Context, s *scope, root string) (bool, error) {
	sh, err := share.New(s.state)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, lazyFetchTimeout)
	defer cancel()
	return sh.Fetch(ctx, []string{root})
}

// lazyFetchTimeout bounds the fetch of a lineage planq resume needs.
const lazyFetchTimeout = 60 * time.Second

func (o WorkflowOptions) scope() (*scope, error) {
	r := &Runner{Env: session.Env{Getenv: o.Getenv, JJBin: o.JJBin, Now: o.Now}}
	return r.open(session.Event{Cwd: o.Dir})
}

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
func Start(ctx context.Context, o WorkflowOptions, task string) (Started, error) {
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

// Continue checkpoints: it starts a new change on top of @ in the same
// lineage (a "Session: <root>" trailer links it), so a fresh agent session
// there gets @'s description as its handoff. desc defaults to
// "Continue: <task>".
func Continue(ctx context.Context, o WorkflowOptions, desc string) (Started, error) {
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

// ErrNotResumable reports a session that cannot be resumed.
var ErrNotResumable = errors.New("not resumable")

// Resume finds the agent session recorded for change (a jj revision,
// or the id of a change that was squashed away while its lineage's root
// survives), makes the change the working copy (jj edit) and returns the
// session to resume. A change that is immutable (pushed to trunk, the normal
// case after review feedback) cannot be edited: the session goes on in a new
// change on top of it, linked to the lineage by its "Session:" trailer, and
// Notes says so.
func Resume(ctx context.Context, o WorkflowOptions, change string) (Started, error) {
	change = strings.TrimSpace(change)
	if change == "" {
		return Started{}, errors.New("no change given: planq resume CHANGE (a change id as jj log shows it)")
	}
	s, err := o.scope()
	if err != nil {
		return Started{}, notJJHint(err)
	}
	var warning string
	ch, err := s.JJ.Show(ctx, change)
	if errors.Is(err, jj.ErrNoSuchRevision) {
		// Squashed or abandoned: its lineage may live on.
		root, ok := s.TS.RootOfChangePrefix(change)
		if !ok {
			return Started{}, fmt.Errorf("no change %q exists in this repo, and planq recorded no session for it", change)
		}
		rch, rerr := s.JJ.Show(ctx, root)
		if rerr != nil {
			_, _ = s.TS.MarkRootGone(ctx, root, true)
			return Started{}, fmt.Errorf("change %s no longer exists, and neither does its session's root %s (abandoned): the session is %w; start a new one with planq start \"task\"", change, jj.ShortID(root), ErrNotResumable)
		}
		warning = fmt.Sprintf("change %s no longer exists (squashed or abandoned); its session lineage lives on in %s, resuming there", change, jj.ShortID(root))
		ch = rch
	} else if err != nil {
		return Started{}, fmt.Errorf("jj: %w", err)
	}
	lin, ok := s.TS.Lineage(ctx, s.JJ, ch)
	// A change a teammate pushed: its session may be on the state remote.
	if need := share.NeedsFetch(s.state, ch, lin, ok); need != "" {
		if found, err := fetchLineage(ctx, s, need); err != nil {
			warning = strings.TrimSpace(warning + " " + err.Error())
		} else if found {
			lin, ok = s.TS.Lineage(ctx, s.JJ, ch)
		}
	}
	if !ok {
		return Started{}, fmt.Errorf("planq recorded no session for change %s; work in it with `jj edit %s` and start your agent, or start a session with planq start \"task\"", jj.ShortID(ch.ChangeID), jj.ShortID(ch.ChangeID))
	}
	root, sess := lin.Root, lin.Session
	if sess == nil {
		_, err := s.TS.Load(root)
		return Started{}, fmt.Errorf("change %s names session %s, but planq has no record of it: %w", jj.ShortID(ch.ChangeID), jj.ShortID(root), err)
	}
	if lin.RootGone {
		return Started{}, fmt.Errorf("the session of change %s is %w: its root change %s was abandoned; start a new one with planq start \"task\" (its transcript stays readable with query_ancestor)", jj.ShortID(ch.ChangeID), ErrNotResumable, jj.ShortID(root))
	}
	agent, ok := sess.AgentFor(ch.ChangeID)
	if !ok {
		agent, ok = sess.LastAgent()
	}
	if !ok {
		return Started{}, fmt.Errorf("no agent session was recorded in lineage %s yet; run `jj edit %s` and start your agent there", jj.ShortID(root), jj.ShortID(ch.ChangeID))
	}
	restored, err := s.restoreSession(ctx, o.getenv, root, agent)
	if err != nil {
		return Started{}, err
	}
	cur, err := s.JJ.Current(ctx)
	if err != nil {
		return Started{}, fmt.Errorf("jj: %w", err)
	}
	host := agent.Host
	if host == "" {
		host = "claude" // recorded before planq knew other hosts
	}
	out := Started{Change: ch, Root: root, Task: sess.Task, SessionID: agent.ID, Host: host, Repo: s.Root, Warning: warning}
	if restored != "" {
		out.Notes = append(out.Notes, restored)
	}
	switch {
	case ch.Immutable || agent.Origin != "":
		// Pushed (or otherwise on trunk): jj edit would refuse. The session
		// goes on in a change on top, in the same lineage: @ when it already
		// is an empty change there (jj makes one when a push leaves @
		// immutable; or a second resume), else a new one.
		if len(cur.Parents) == 1 && cur.Parents[0] == ch.ChangeID && cur.Empty && s.inLineageOrBlank(cur, root) {
			out.Change = cur
		} else if out.Change, err = s.JJ.New(ctx, "", ch.ChangeID); err != nil {
			return Started{}, fmt.Errorf("jj new on %s: %w", jj.ShortID(ch.ChangeID), err)
		}
		why := "is immutable (pushed, or part of trunk)"
		if !ch.Immutable {
			why = "is " + agent.Origin + "'s"
		}
		out.Notes = append(out.Notes, fmt.Sprintf("change %s %s, so the session goes on in change %s on top of it, in the same lineage (Session: %s)", jj.ShortID(ch.ChangeID), why, jj.ShortID(out.Change.ChangeID), jj.ShortID(root)))
	case cur.ChangeID != ch.ChangeID:
		if err := s.JJ.Edit(ctx, ch.ChangeID); err != nil {
			return Started{}, fmt.Errorf("jj edit %s: %w", jj.ShortID(ch.ChangeID), err)
		}
	}
	if !out.Change.Declared() {
		// An undescribed change would leave the resumed session behind a
		// locked gate: name it as a step of the lineage.
		task := sess.Task
		if task == "" {
			task = jj.TaskLine(ch.Description)
		}
		if out.Change, err = jj.Redescribe(ctx, s.JJ, jj.WithSessionRoot("Resume: "+task, root)); err != nil {
			return Started{}, fmt.Errorf("jj describe: %w", err)
		}
	}
	if _, err := s.TS.Update(ctx, root, func(r *transcript.Session) error { r.AddChange(out.Change.ChangeID); return nil }); err != nil {
		return Started{}, err
	}
	return out, nil
}

// inLineageOrBlank reports whether ch belongs to the lineage rooted at root,
// or is undescribed and in no lineage at all.
func (s *scope) inLineageOrBlank(ch jj.Change, root string) bool {
	r, ok := s.LineageOf(ch)
	return ok && r == root || !ok && !ch.Declared()
}

func notJJHint(err error) error {
	if errors.Is(err, ErrNotJJRepo) {
		return fmt.Errorf("%w: run `jj git init --colocate` here first", err)
	}
	return err
}
