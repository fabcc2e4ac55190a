package hooks

import (
	"context"
	"errors"
	"fmt"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

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
