package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/planq-dev/planq/hooks/tooluse"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// Runner runs planq's session hooks (session-start, post-tool-use,
// pre-compact, stop, session-end). The CLI builds one per hook process.
type Runner struct {
	Getenv func(string) string // environment; default os.Getenv
	Now    func() time.Time    // clock; default time.Now
	JJBin  string              // jj executable; default "jj"
	// CopyBudget bounds the transcript copy of one hook call (default 2s;
	// pre-compact and session-end get four times as much).
	CopyBudget time.Duration
}

func (r *Runner) getenv(k string) string {
	if r.Getenv != nil {
		return r.Getenv(k)
	}
	return os.Getenv(k)
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) copyBudget() time.Duration {
	if r.CopyBudget > 0 {
		return r.CopyBudget
	}
	return 2 * time.Second
}

// ErrNotJJRepo reports that the session's directory is not in a jj repo, so
// the session hooks have nothing to do.
var ErrNotJJRepo = tooluse.ErrNotJJRepo

func (r *Runner) env() tooluse.Env { return tooluse.Env{Getenv: r.Getenv, Now: r.Now, JJBin: r.JJBin} }

// scope is what one hook call works on: the session core (tooluse.Scope)
// and the project's state repo.
type scope struct {
	root  string // code repo root
	jj    *jj.Client
	state *staterepo.Store
	ts    *transcript.Store
}

func (s *scope) core() *tooluse.Scope { return &tooluse.Scope{Root: s.root, JJ: s.jj, TS: s.ts} }

// openRepo opens ev's repo; ok is false, with no error, outside a jj repo,
// where the session hooks have nothing to do.
func (r *Runner) openRepo(ev Input) (s *scope, ok bool, err error) {
	s, err = r.open(ev)
	if errors.Is(err, ErrNotJJRepo) {
		return nil, false, nil
	}
	return s, err == nil, err
}

// openCurrent is openRepo plus the working-copy change @.
func (r *Runner) openCurrent(ctx context.Context, ev Input) (s *scope, cur jj.Change, ok bool, err error) {
	s, ok, err = r.openRepo(ev)
	if !ok {
		return nil, jj.Change{}, false, err
	}
	cur, err = s.jj.Current(ctx)
	if err != nil {
		return nil, jj.Change{}, false, fmt.Errorf("jj: %w", err)
	}
	return s, cur, true, nil
}

func (r *Runner) open(ev Input) (*scope, error) {
	t, err := tooluse.Open(r.env(), ev)
	if err != nil {
		return nil, err
	}
	st, err := staterepo.Open(staterepo.Options{Dir: t.Root, Home: t.Home, Project: t.Project, Getenv: r.Getenv, Now: r.Now})
	if err != nil {
		return nil, err
	}
	return &scope{root: t.Root, jj: t.JJ, state: st, ts: t.TS}, nil
}

func (s *scope) lineageOf(ch jj.Change) (string, bool) { return s.core().LineageOf(ch) }

func (r *Runner) bind(ctx context.Context, s *scope, ev Input, cur jj.Change) (string, *transcript.Session, error) {
	return s.core().Bind(ctx, r.env(), ev, cur)
}

func (s *scope) sessionRoot(ev Input) (string, bool) { return s.core().SessionRoot(ev) }

// copyTranscript appends the new complete lines of ev's transcript to the
// lineage's store within budget.
func (r *Runner) copyTranscript(ctx context.Context, s *scope, root string, ev Input, budget time.Duration) (transcript.CopyResult, error) {
	if root == "" || ev.TranscriptPath == "" {
		return transcript.CopyResult{}, nil
	}
	if !filepath.IsAbs(ev.TranscriptPath) || filepath.Ext(ev.TranscriptPath) != ".jsonl" {
		return transcript.CopyResult{}, fmt.Errorf("transcript_path %q is not an absolute .jsonl path", ev.TranscriptPath)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	return s.ts.Copy(ctx, root, ev.TranscriptPath, transcript.CopyOptions{})
}

func validSession(id string) bool { return tooluse.ValidSession(id) }

// short abbreviates a change id as jj shows it.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
