package hooks

import (
	"context"
	"fmt"

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
