package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/project"
	"github.com/planq-dev/planq/transcript"
)

// Env is what a hook call depends on besides its input.
type Env struct {
	Getenv func(string) string // environment; default os.Getenv
	Now    func() time.Time    // clock; default time.Now
	JJBin  string              // jj executable; default "jj"
}

// Lookup reads the environment.
func (e Env) Lookup(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// Clock returns the current time.
func (e Env) Clock() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// ErrNotJJRepo reports that the session's directory is not in a jj repo, so
// the session hooks have nothing to do.
var ErrNotJJRepo = errors.New("not a jj repository")

// Scope is what one hook call works on: the code repo, its jj, and the
// project's transcript store.
type Scope struct {
	Root          string // code repo root
	JJ            *jj.Client
	TS            *transcript.Store
	Home, Project string // PLANQ_HOME and the project name
}

// Dir is the directory an event is about: its project, else its cwd.
func (e Event) Dir() string {
	if e.ProjectDir != "" {
		return e.ProjectDir
	}
	return e.Cwd
}

// Open resolves the repo of ev's session (its project, else its cwd, else
// the working directory) and its transcript store.
func Open(e Env, ev Event) (*Scope, error) {
	dir := ev.Dir()
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
	cfg, err := config.Load(root)
	if err != nil {
		return nil, err
	}
	home, err := config.StateHome(e.Lookup)
	if err != nil {
		return nil, err
	}
	name, _, err := project.Name(root, cfg, home)
	if err != nil {
		return nil, err
	}
	ts, err := transcript.New(home, name)
	if err != nil {
		return nil, err
	}
	ts.Now = e.Now
	c := jj.New(root)
	if e.JJBin != "" {
		c.Bin = e.JJBin
	}
	return &Scope{Root: root, JJ: c, TS: ts, Home: home, Project: name}, nil
}

// LineageOf returns the root change of the lineage ch belongs to: its
// "Session: <root>" trailer, else the recorded index (transcript.RootFor).
func (s *Scope) LineageOf(ch jj.Change) (string, bool) {
	return s.TS.RootFor(ch.ChangeID, ch.Description)
}

// Bind records that the session of ev works in change cur, and returns the
// lineage's root: cur's lineage when it has one; else the session's (or
// its parent's) lineage when cur is a checkpoint on top of it; else a new
// lineage rooted at cur when cur is described (the change was declared).
// It returns "" when there is nothing to bind to (an undescribed change).
func (s *Scope) Bind(ctx context.Context, e Env, ev Event, cur jj.Change) (string, *transcript.Session, error) {
	root, ok := s.LineageOf(cur)
	if !ok && ValidSession(ev.Owner()) {
		if sroot, err := s.TS.RootOfSession(ev.Owner()); err == nil {
			if sess, err := s.TS.Load(sroot); err == nil && containsAny(sess.Changes, cur.Parents) {
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
	sess, err := s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		if sess.Task == "" && root == cur.ChangeID {
			sess.Task = jj.TaskLine(cur.Description)
		}
		sess.AddChange(cur.ChangeID)
		if ValidSession(ev.SessionID) {
			sess.AddAgent(transcript.Agent{ID: ev.SessionID, Host: ev.Host.Name, Parent: ev.ParentID,
				Transcript: ev.TranscriptPath, Change: cur.ChangeID, Started: e.Clock().UTC()})
		}
		sess.NonResumable, sess.Reason = false, ""
		return nil
	})
	return root, sess, err
}

// OpenLineage opens ev's scope and finds its session's lineage root; a nil
// scope (and no error) when the session is not in a jj repo or has no
// lineage yet (no declared change), which the hooks that keep a lineage's
// record skip quietly.
func OpenLineage(e Env, ev Event) (*Scope, string, error) {
	s, err := Open(e, ev)
	if errors.Is(err, ErrNotJJRepo) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	root, ok := s.SessionRoot(ev)
	if !ok {
		return nil, "", nil
	}
	return s, root, nil
}

// SessionRoot returns the lineage root recorded for ev's session (or its
// parent's).
func (s *Scope) SessionRoot(ev Event) (string, bool) {
	for _, id := range []string{ev.SessionID, ev.ParentID} {
		if !ValidSession(id) {
			continue
		}
		if root, err := s.TS.RootOfSession(id); err == nil {
			return root, true
		}
	}
	return "", false
}

// ValidSession reports whether id is a session id planq records.
func ValidSession(id string) bool { return id != "" && transcript.ValidSessionID(id) == nil }

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

// Mark is the state of a change's description and diff at a point in time.
type Mark struct {
	Desc, Diff string // fingerprints
	Empty      bool   // the diff was empty
}

// MarkOf fingerprints cur's description and diff.
func (s *Scope) MarkOf(ctx context.Context, cur jj.Change) (Mark, error) {
	m := Mark{Desc: Fingerprint(cur.Description), Empty: cur.Empty}
	if cur.Empty {
		return m, nil
	}
	diff, err := s.JJ.DiffGit(ctx, "@")
	if err != nil {
		return m, fmt.Errorf("jj diff: %w", err)
	}
	m.Diff = Fingerprint(diff)
	return m, nil
}

// Fingerprint is a short hash of s.
func Fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// GetMark returns the mark recorded for change; marks are kept in the
// session record as "desc:diff" per change id.
func GetMark(sess *transcript.Session, change string) (Mark, bool) {
	v, ok := sess.Described[change]
	if !ok {
		return Mark{}, false
	}
	d, f, _ := strings.Cut(v, ":")
	return Mark{Desc: d, Diff: f, Empty: f == ""}, true
}

// SetMark records m for change.
func SetMark(sess *transcript.Session, change string, m Mark) {
	if sess.Described == nil {
		sess.Described = map[string]string{}
	}
	sess.Described[change] = m.Desc + ":" + m.Diff
}
