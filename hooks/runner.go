package hooks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// Runner runs planq's session events (session-start, pre-compact, stop,
// session-end; the tool events are package session's) for any host. The
// CLI builds one per hook process.
type Runner struct {
	session.Env // environment, clock and jj executable
	// CopyBudget bounds the transcript copy of one hook call (default 2s;
	// pre-compact and session-end get four times as much).
	CopyBudget time.Duration
	// WireWorkspace gives a new jj workspace ws of the repo whose main
	// working copy is mainRoot the planq wiring (MCP server, hooks) of
	// every agent host wired there, so a parallel agent there is gated
	// too. Nil wires nothing.
	WireWorkspace func(ctx context.Context, mainRoot, ws string) error
}

func (r *Runner) now() time.Time { return r.Clock() }

func (r *Runner) copyBudget() time.Duration {
	if r.CopyBudget > 0 {
		return r.CopyBudget
	}
	return 2 * time.Second
}

// Handle answers ev, whichever session event it is.
func (r *Runner) Handle(ctx context.Context, ev session.Event) (session.Reply, error) {
	switch ev.Name {
	case session.EventSessionStart:
		return r.SessionStart(ctx, ev)
	case session.EventPreToolUse:
		return session.PreToolUse(ctx, ev, r.Env.Lookup)
	case session.EventPostToolUse:
		return session.PostToolUse(ctx, r.Env, ev)
	case session.EventPreCompact:
		return r.PreCompact(ctx, ev)
	case session.EventStop:
		return r.Stop(ctx, ev)
	case session.EventSessionEnd:
		return r.SessionEnd(ctx, ev)
	case session.EventWorktreeCreate:
		return r.WorktreeCreate(ctx, ev)
	case session.EventWorktreeRemove:
		return r.WorktreeRemove(ctx, ev)
	}
	return session.Reply{}, fmt.Errorf("unknown session event %q", ev.Name)
}

// ErrNotJJRepo reports that the session's directory is not in a jj repo, so
// the session hooks have nothing to do.
var ErrNotJJRepo = session.ErrNotJJRepo

// scope is what one hook call works on: the session core's Scope and the
// project's state repo.
type scope struct {
	*session.Scope
	state *staterepo.Store
}

// openRepo opens ev's repo; ok is false, with no error, outside a jj repo,
// where the session hooks have nothing to do.
func (r *Runner) openRepo(ev session.Event) (s *scope, ok bool, err error) {
	s, err = r.open(ev)
	if errors.Is(err, ErrNotJJRepo) {
		return nil, false, nil
	}
	return s, err == nil, err
}

// openCurrent is openRepo plus the working-copy change @.
func (r *Runner) openCurrent(ctx context.Context, ev session.Event) (s *scope, cur jj.Change, ok bool, err error) {
	s, ok, err = r.openRepo(ev)
	if !ok {
		return nil, jj.Change{}, false, err
	}
	cur, err = s.JJ.Current(ctx)
	if err != nil {
		return nil, jj.Change{}, false, fmt.Errorf("jj: %w", err)
	}
	return s, cur, true, nil
}

func (r *Runner) open(ev session.Event) (*scope, error) {
	t, err := session.Open(r.Env, ev)
	if err != nil {
		return nil, err
	}
	st, err := staterepo.Open(staterepo.Options{Dir: t.Root, Home: t.Home, Project: t.Project, Getenv: r.Getenv, Now: r.Now})
	if err != nil {
		return nil, err
	}
	return &scope{Scope: t, state: st}, nil
}

// copyTranscript appends to the lineage's store, within budget, what its
// earlier transcripts gained since their last copy (Store.CatchUp) and the
// new complete lines of ev's transcript and its subagents' (Claude Code
// keeps them apart), which it notes in the vault (Store.Note) so that what
// the session writes after its last hook is kept too. The result is the
// copy of ev's own transcript.
func (r *Runner) copyTranscript(ctx context.Context, s *scope, root string, ev session.Event, budget time.Duration) (transcript.CopyResult, error) {
	if root == "" {
		return transcript.CopyResult{}, nil
	}
	if ev.TranscriptPath != "" && (!filepath.IsAbs(ev.TranscriptPath) || filepath.Ext(ev.TranscriptPath) != ".jsonl") {
		return transcript.CopyResult{}, fmt.Errorf("transcript path %q is not an absolute .jsonl path", ev.TranscriptPath)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	// First what earlier sessions of the lineage wrote after their last hook.
	if _, err := s.TS.CatchUp(ctx, root, transcript.CopyOptions{}); err != nil || ev.TranscriptPath == "" {
		return transcript.CopyResult{}, err
	}
	var errs []error
	var res transcript.CopyResult
	for i, src := range append([]string{ev.TranscriptPath}, ev.SubTranscripts...) {
		r, err := s.TS.Copy(ctx, root, src, transcript.CopyOptions{})
		if err == nil {
			err = s.TS.Note(root, src)
		}
		if i == 0 {
			res = r
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

// sweep copies, within the copy budget, what the transcripts noted in the
// project's vault gained after their sessions' last hooks (Store.Sweep).
func (r *Runner) sweep(ctx context.Context, s *scope) (transcript.CopyResult, error) {
	ctx, cancel := context.WithTimeout(ctx, r.copyBudget())
	defer cancel()
	return s.TS.Sweep(ctx, transcript.VaultIdle)
}
