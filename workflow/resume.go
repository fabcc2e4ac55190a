package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/transcript/share"
)

// ErrNotResumable reports a session that cannot be resumed.
var ErrNotResumable = errors.New("not resumable")

// Resume finds the agent session recorded for change (a jj revision,
// or the id of a change that was squashed away while its lineage's root
// survives), makes the change the working copy (jj edit) and returns the
// session to resume. A change that is immutable (pushed to trunk, the normal
// case after review feedback) cannot be edited: the session goes on in a new
// change on top of it, linked to the lineage by its "Session:" trailer, and
// Notes says so.
func Resume(ctx context.Context, o Options, change string) (Started, error) {
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
	if need := share.NeedsFetch(s.Config.State.Remote, ch, lin, ok); need != "" {
		if found, err := fetchLineage(ctx, o, s, ch, need); err != nil {
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

// fetchLineage fetches the lineage of ch rooted at root from the state
// remote (a lazy pull, see share.Sharer.FetchFor), within lazyFetchTimeout.
func fetchLineage(ctx context.Context, o Options, s *scope, ch jj.Change, root string) (bool, error) {
	st, err := staterepo.Open(staterepo.Options{Dir: s.Root, Home: s.Home, Project: s.Project, Getenv: o.Getenv, Now: o.Now})
	if err != nil {
		return false, err
	}
	sh, err := share.New(st)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, lazyFetchTimeout)
	defer cancel()
	return sh.FetchFor(ctx, s.JJ, ch, root)
}

// lazyFetchTimeout bounds the fetch of a lineage planq resume needs.
const lazyFetchTimeout = 60 * time.Second
