package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

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
var ErrNotJJRepo = errors.New("not a jj repository")

// scope is what one hook call works on.
type scope struct {
	root  string // code repo root
	jj    *jj.Client
	state *staterepo.Store
	ts    *transcript.Store
}

// open resolves the repo, the state store and the transcript store for ev.
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
	dir := r.getenv("CLAUDE_PROJECT_DIR")
	if dir == "" {
		dir = ev.Cwd
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	root, ok := jj.FindRoot(dir)
	if !ok {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotJJRepo)
	}
	st, err := staterepo.Open(staterepo.Options{Dir: root, Getenv: r.Getenv, Now: r.Now})
	if err != nil {
		return nil, err
	}
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		return nil, err
	}
	ts.Now = r.Now
	c := jj.New(root)
	if r.JJBin != "" {
		c.Bin = r.JJBin
	}
	return &scope{root: root, jj: c, state: st, ts: ts}, nil
}

// lineageOf returns the root change of the lineage change belongs to: its
// "Session: <root>" trailer, else the recorded index (transcript.RootFor).
func (s *scope) lineageOf(ch jj.Change) (string, bool) {
	return s.ts.RootFor(ch.ChangeID, ch.Description)
}

// bind records that the Claude Code session of ev works in change cur, and
// returns the lineage's root: cur's lineage when it has one; else the
// session's lineage when cur is a checkpoint on top of it; else a new
// lineage rooted at cur when cur is described (the change was declared).
// It returns "" when there is nothing to bind to (an undescribed change).
func (r *Runner) bind(ctx context.Context, s *scope, ev Input, cur jj.Change) (string, *transcript.Session, error) {
	root, ok := s.lineageOf(cur)
	if !ok && validSession(ev.SessionID) {
		if sroot, err := s.ts.RootOfSession(ev.SessionID); err == nil {
			if sess, err := s.ts.Load(sroot); err == nil && containsAny(sess.Changes, cur.Parents) {
				root, ok = sroot, true
			}
		}
	}
	if !ok {
		if !cur.Declared() {
			return "", nil, nil
		}
		root = cur.ChangeID
	}
	sess, err := s.ts.Update(ctx, root, func(sess *transcript.Session) error {
		if sess.Task == "" && root == cur.ChangeID {
			sess.Task = jj.TaskLine(cur.Description)
		}
		sess.AddChange(cur.ChangeID)
		if validSession(ev.SessionID) {
			sess.AddAgent(transcript.Agent{ID: ev.SessionID, Transcript: ev.TranscriptPath, Change: cur.ChangeID, Started: r.now().UTC()})
		}
		sess.NonResumable, sess.Reason = false, ""
		return nil
	})
	return root, sess, err
}

// sessionRoot returns the lineage root recorded for ev's Claude Code session.
func (s *scope) sessionRoot(ev Input) (string, bool) {
	if !validSession(ev.SessionID) {
		return "", false
	}
	root, err := s.ts.RootOfSession(ev.SessionID)
	return root, err == nil
}

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

func validSession(id string) bool { return id != "" && transcript.ValidSessionID(id) == nil }

func containsAny(list, of []string) bool {
	for _, a := range of {
		for _, b := range list {
			if a == b {
				return true
			}
		}
	}
	return false
}

// short abbreviates a change id as jj shows it.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
