package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/hooks/tooluse"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// PostToolUse records what a tool call did to the session (see
// tooluse.PostToolUse, which the planq-hook binary serves too).
func (r *Runner) PostToolUse(ctx context.Context, ev Input) (*Response, error) {
	return tooluse.PostToolUse(ctx, r.env(), ev)
}

// Marks fingerprint a change's description and diff (tooluse.Mark).
type mark = tooluse.Mark

func (r *Runner) markOf(ctx context.Context, s *scope, cur jj.Change) (mark, error) {
	return s.core().MarkOf(ctx, cur)
}

var (
	fingerprint = tooluse.Fingerprint
	getMark     = tooluse.GetMark
	setMark     = tooluse.SetMark
)

// Stop keeps the description living: when the change's diff has moved since
// its description was last written and the description is not a summary
// (IsSummary), it blocks the stop once, asking the model to call jj_describe
// with the summary. It never blocks twice in a row and respects
// stop_hook_active. It also copies the transcript so far.
func (r *Runner) Stop(ctx context.Context, ev Input) (*Response, error) {
	s, cur, ok, err := r.openCurrent(ctx, ev)
	if !ok || err != nil {
		return nil, err
	}
	root, ok := s.lineageOf(cur)
	if !ok {
		root, ok = s.sessionRoot(ev)
	}
	if !ok {
		return nil, nil // no declared change in this session: nothing to summarise
	}
	_, copyErr := r.copyTranscript(ctx, s, root, ev, r.copyBudget())

	var now mark
	if !jj.IsSummary(cur.Description) && !cur.Empty {
		if now, err = r.markOf(ctx, s, cur); err != nil {
			return nil, err
		}
	}
	var out *Response
	_, err = s.ts.Update(ctx, root, func(sess *transcript.Session) error {
		sess.AddChange(cur.ChangeID)
		if validSession(ev.SessionID) && !hasAgent(sess, ev.SessionID) {
			sess.AddAgent(transcript.Agent{ID: ev.SessionID, Transcript: ev.TranscriptPath, Change: cur.ChangeID, Started: r.now().UTC()})
		}
		last := lastStopBlocked(sess, ev.SessionID)
		prev, seen := getMark(sess, cur.ChangeID)
		moved := !seen || prev.Diff != now.Diff
		block := !ev.StopHookActive && !last && !cur.Empty && !jj.IsSummary(cur.Description) && moved
		setStopBlocked(sess, ev.SessionID, block)
		if block {
			setMark(sess, cur.ChangeID, now)
			out = &Response{Decision: "block", Reason: stopReason(cur)}
		} else if jj.IsSummary(cur.Description) || !seen {
			// Not asking now: take the current state as described.
			m := now
			if jj.IsSummary(cur.Description) || cur.Empty {
				m = mark{Desc: fingerprint(cur.Description)}
			}
			setMark(sess, cur.ChangeID, m)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, copyErr
}

func stopReason(cur jj.Change) string {
	task := jj.TaskLine(cur.Description)
	return fmt.Sprintf("planq: the diff of change %s has moved since its description was written, and the description is not a living summary yet. "+
		"Before you stop, call mcp__planq__jj_describe with the whole description in this form (keep the task line; say what is done, why, and what is left):\n\n%s\n\n"+
		"Then end your turn.", short(cur.ChangeID), jj.SummaryTemplate(task))
}

// lastStopBlocked reports whether this Claude Code session's previous stop
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

// PreCompact copies the transcript delta into the store before Claude Code
// compacts the conversation, and logs the compaction to the changelog.
func (r *Runner) PreCompact(ctx context.Context, ev Input) (*Response, error) {
	s, ok, err := r.openRepo(ev)
	if !ok || err != nil {
		return nil, err
	}
	root, ok := s.sessionRoot(ev)
	var lines int64
	var copyErr error
	if ok {
		_, copyErr = r.copyTranscript(ctx, s, root, ev, 4*r.copyBudget())
		if p, err := s.ts.Path(root); err == nil {
			lines, _ = transcript.CountLines(p)
		}
	}
	trigger := ev.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	msg := fmt.Sprintf("Context compacted (%s) in Claude Code session %s.", trigger, ev.SessionID)
	if ok {
		msg += fmt.Sprintf(" The transcript so far (%d lines) is kept for lineage %s; query it with query_ancestor.", lines, short(root))
	}
	if _, err := s.state.Log(ctx, msg, changelog.TypeEnd, changelog.StatusInProgress); err != nil {
		return nil, errors.Join(copyErr, fmt.Errorf("changelog: %w", err))
	}
	return nil, copyErr
}

// SessionEnd makes the final transcript copy, marks the Claude Code session
// ended and writes an end entry to the changelog.
func (r *Runner) SessionEnd(ctx context.Context, ev Input) (*Response, error) {
	s, ok, err := r.openRepo(ev)
	if !ok || err != nil {
		return nil, err
	}
	root, ok := s.sessionRoot(ev)
	var copyErr error
	var sess *transcript.Session
	if ok {
		_, copyErr = r.copyTranscript(ctx, s, root, ev, 4*r.copyBudget())
		sess, err = s.ts.Update(ctx, root, func(sess *transcript.Session) error {
			for i := range sess.Agents {
				if sess.Agents[i].ID == ev.SessionID {
					sess.Agents[i].Ended = r.now().UTC()
				}
			}
			return nil
		})
		if err != nil {
			return nil, errors.Join(copyErr, err)
		}
	}
	reason := ev.Reason
	if reason == "" {
		reason = "other"
	}
	msg := fmt.Sprintf("Claude Code session %s ended (%s).", ev.SessionID, reason)
	if sess != nil {
		msg += fmt.Sprintf(" Lineage %s", short(root))
		if sess.Task != "" {
			msg += fmt.Sprintf(" (%q)", sess.Task)
		}
		msg += fmt.Sprintf(": %d change(s)", len(sess.Changes))
		if len(sess.Files) > 0 {
			msg += fmt.Sprintf(", files touched: %s", strings.Join(firstN(sess.Files, 10), ", "))
		}
		msg += fmt.Sprintf(". Resume with `planq resume %s`.", short(sess.Changes[len(sess.Changes)-1]))
	}
	if _, err := s.state.Log(ctx, msg, changelog.TypeEnd, ""); err != nil {
		return nil, errors.Join(copyErr, fmt.Errorf("changelog: %w", err))
	}
	return nil, copyErr
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}
