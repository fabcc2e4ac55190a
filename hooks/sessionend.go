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
