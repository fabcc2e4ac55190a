package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// Stop keeps the description living: when the change's diff has moved since
// its description was last written and the description is not a summary
// (IsSummary), it blocks the stop once, asking the model to call jj_describe
// with the summary. It never blocks twice in a row and respects
// stop_hook_active. A subagent's session is never asked: its parent is. It
// also copies the transcript so far.
func (r *Runner) Stop(ctx context.Context, ev session.Event) (session.Reply, error) {
	s, cur, ok, err := r.openCurrent(ctx, ev)
	if !ok || err != nil {
		return session.Reply{}, err
	}
	root, ok := s.LineageOf(cur)
	if !ok {
		root, ok = s.SessionRoot(ev)
	}
	if !ok {
		return session.Reply{}, nil // no declared change in this session: nothing to summarise
	}
	_, copyErr := r.copyTranscript(ctx, s, root, ev, r.copyBudget())

	var now session.Mark
	if !jj.IsSummary(cur.Description) && !cur.Empty {
		if now, err = s.MarkOf(ctx, cur); err != nil {
			return session.Reply{}, err
		}
	}
	var out session.Reply
	_, err = s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		sess.AddChange(cur.ChangeID)
		if session.ValidSession(ev.SessionID) && !hasAgent(sess, ev.SessionID) {
			sess.AddAgent(transcript.Agent{ID: ev.SessionID, Host: ev.Host.Name, Parent: ev.ParentID, Transcript: ev.TranscriptPath, Change: cur.ChangeID, Started: r.now().UTC(), Workspace: s.Root})
		}
		if ev.ParentID != "" {
			return nil // a subagent: its parent keeps the summary
		}
		last := lastStopBlocked(sess, ev.SessionID)
		prev, seen := session.GetMark(sess, cur.ChangeID)
		moved := !seen || prev.Diff != now.Diff
		block := !ev.StopHookActive && !last && !cur.Empty && !jj.IsSummary(cur.Description) && moved
		setStopBlocked(sess, ev.SessionID, block)
		if block {
			session.SetMark(sess, cur.ChangeID, now)
			out.Nudge = stopReason(ev.Host, cur)
		} else if jj.IsSummary(cur.Description) || !seen {
			// Not asking now: take the current state as described.
			m := now
			if jj.IsSummary(cur.Description) || cur.Empty {
				m = session.Mark{Desc: session.Fingerprint(cur.Description)}
			}
			session.SetMark(sess, cur.ChangeID, m)
		}
		return nil
	})
	if err != nil {
		return session.Reply{}, err
	}
	return out, copyErr
}

// stopReason is the living-summary nudge, naming jj_describe the host's way.
func stopReason(h session.Host, cur jj.Change) string {
	task := jj.TaskLine(cur.Description)
	return fmt.Sprintf("planq: the diff of change %s has moved since its description was written, and the description is not a living summary yet. "+
		"Before you stop, call %s with the whole description in this form (keep the task line; say what is done, why, and what is left):\n\n%s\n\n"+
		"Then end your turn.", jj.ShortID(cur.ChangeID), h.Tool("jj_describe"), jj.SummaryTemplate(task))
}

// lastStopBlocked reports whether this session's previous stop
// was blocked by planq.
func lastStopBlocked(sess *transcript.Session, id string) bool {
	for _, a := range sess.Agents {
		if a.ID == id {
			return a.StopBlocked
		}
	}
	return false
}

func hasAgent(sess *transcript.Session, id string) bool {
	for _, a := range sess.Agents {
		if a.ID == id {
			return true
		}
	}
	return false
}

func setStopBlocked(sess *transcript.Session, id string, v bool) {
	for i := range sess.Agents {
		if sess.Agents[i].ID == id {
			sess.Agents[i].StopBlocked = v
		}
	}
}

// PreCompact copies the transcript delta into the store before the host
// compacts the conversation, and logs the compaction to the changelog. Hosts
// that take context into the compaction (OpenCode) get the session's
// context, the living summary first; the others give it to the compacted
// session when it starts again.
func (r *Runner) PreCompact(ctx context.Context, ev session.Event) (session.Reply, error) {
	if ev.Host.CompactEveryTurn {
		return session.Reply{}, r.keepTranscript(ctx, ev)
	}
	s, ok, err := r.openRepo(ev)
	if !ok || err != nil {
		return session.Reply{}, err
	}
	root, ok := s.SessionRoot(ev)
	var lines int64
	var copyErr error
	if ok {
		_, copyErr = r.copyTranscript(ctx, s, root, ev, 4*r.copyBudget())
		if p, err := s.TS.Path(root); err == nil {
			lines, _ = transcript.CountLines(p)
		}
	}
	trigger := ev.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	msg := fmt.Sprintf("Context compacted (%s) in %s session %s.", trigger, ev.Host.Display, ev.SessionID)
	if ok {
		msg += fmt.Sprintf(" The transcript so far (%d lines) is kept for lineage %s; query it with query_ancestor.", lines, jj.ShortID(root))
	}
	if _, err := s.state.Log(ctx, msg, changelog.TypeEnd, changelog.StatusInProgress); err != nil {
		return session.Reply{}, errors.Join(copyErr, fmt.Errorf("changelog: %w", err))
	}
	if !ev.Host.CompactContext {
		return session.Reply{}, copyErr
	}
	ev.Source = "compact"
	text, err := r.sessionContext(ctx, ev)
	return session.Reply{Context: text}, errors.Join(copyErr, err)
}

// keepTranscript is pre-compact for a host that fires it on every turn
// (Host.CompactEveryTurn): it appends the transcript's new complete lines to
// the session's lineage, and does nothing else. It opens neither the state
// repo nor jj, and a transcript that has not grown since the last copy
// copies nothing (transcript.Store.Copy never copies a line twice).
func (r *Runner) keepTranscript(ctx context.Context, ev session.Event) error {
	if ev.TranscriptPath == "" {
		return nil
	}
	s, root, err := session.OpenLineage(r.Env, ev)
	if s == nil {
		return err // nil too when no change is declared yet: stop and session-end copy it later
	}
	_, err = r.copyTranscript(ctx, &scope{Scope: s}, root, ev, 4*r.copyBudget())
	return err
}

// SessionEnd makes the final transcript copy, marks the session ended and
// writes an end entry to the changelog.
func (r *Runner) SessionEnd(ctx context.Context, ev session.Event) (session.Reply, error) {
	s, ok, err := r.openRepo(ev)
	if !ok || err != nil {
		return session.Reply{}, err
	}
	_ = gate.SessionEnded(s.Root, ev.SessionID) // best effort: a baseline left open only widens the next planq start's check
	root, ok := s.SessionRoot(ev)
	var copyErr error
	var sess *transcript.Session
	if ok {
		_, copyErr = r.copyTranscript(ctx, s, root, ev, 4*r.copyBudget())
		sess, err = s.TS.Update(ctx, root, func(sess *transcript.Session) error {
			for i := range sess.Agents {
				if sess.Agents[i].ID == ev.SessionID {
					sess.Agents[i].Ended = r.now().UTC()
				}
			}
			return nil
		})
		if err != nil {
			return session.Reply{}, errors.Join(copyErr, err)
		}
	}
	reason := ev.Reason
	if reason == "" {
		reason = "other"
	}
	msg := fmt.Sprintf("%s session %s ended (%s).", ev.Host.Display, ev.SessionID, reason)
	if sess != nil {
		msg += fmt.Sprintf(" Lineage %s", jj.ShortID(root))
		if sess.Task != "" {
			msg += fmt.Sprintf(" (%q)", sess.Task)
		}
		msg += fmt.Sprintf(": %d change(s)", len(sess.Changes))
		if len(sess.Files) > 0 {
			msg += fmt.Sprintf(", files touched: %s", strings.Join(firstN(sess.Files, 10), ", "))
		}
		msg += fmt.Sprintf(". Resume with `planq resume %s`.", jj.ShortID(sess.Changes[len(sess.Changes)-1]))
	}
	if _, err := s.state.Log(ctx, msg, changelog.TypeEnd, ""); err != nil {
		return session.Reply{}, errors.Join(copyErr, fmt.Errorf("changelog: %w", err))
	}
	return session.Reply{}, copyErr
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}
