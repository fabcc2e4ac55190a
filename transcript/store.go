// Package transcript keeps the conversation transcripts of agent sessions,
// keyed by the root jj change of a session lineage, under PLANQ_HOME.
//
// None of the design card's packages fits this store: it is not jj (it only
// names changes), not the git state repo (transcripts are large, private and
// append-only, so they stay out of git), and not hooks (the MCP server reads
// it too). Layout:
//
//	PLANQ_HOME/sessions/<project>/<root change id>/transcript.jsonl  append-only JSON Lines
//	PLANQ_HOME/sessions/<project>/<root change id>/copy.json         copy offsets per source file
//	PLANQ_HOME/sessions/<project>/<root change id>/session.json      the lineage's metadata
//	PLANQ_HOME/sessions/<project>/by-session/<host session id>       -> root change id
//	PLANQ_HOME/sessions/<project>/by-change/<change id>              -> root change id
//
// Writers take a flock on the lineage's .lock file, so hook processes that
// run at the same time never interleave or duplicate lines. Readers stream
// the file line by line and never load it whole.
package transcript

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/internal/flock"
	"github.com/planq-dev/planq/project"
)

// File names inside a lineage directory.
const (
	TranscriptFile = "transcript.jsonl"
	SessionFile    = "session.json"
	copyStateFile  = "copy.json"
	lockFileName   = ".lock"
	bySessionDir   = "by-session"
	byChangeDir    = "by-change"
)

// ErrNoTranscript reports that a lineage has no stored transcript yet.
var ErrNoTranscript = errors.New("no transcript stored")

// ErrNoSession reports that no session is recorded for a change or session id.
var ErrNoSession = errors.New("no session recorded")

// Store is the transcript store of one project under PLANQ_HOME.
type Store struct {
	Home    string // PLANQ_HOME
	Project string // project name (validated like a state repo name)
	// LockTimeout bounds how long a writer waits for a lineage's lock; default 10s.
	LockTimeout time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// ForRepo returns the transcript store of the project of the code repo
// whose root is root, as project.Locate finds it (the store the hooks
// write), and the project's location. It reads files only.
func ForRepo(root string, getenv func(string) string) (*Store, project.Location, error) {
	loc, err := project.Locate(root, getenv)
	if err != nil {
		return nil, project.Location{}, err
	}
	ts, err := New(loc.Home, loc.Name)
	return ts, loc, err
}

// New returns the store of project under home, validating the project name.
func New(home, project string) (*Store, error) {
	if home == "" {
		return nil, errors.New("transcript: PLANQ_HOME is empty")
	}
	if err := config.ValidName(project); err != nil {
		return nil, fmt.Errorf("transcript: project: %w", err)
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return &Store{Home: abs, Project: project}, nil
}

// idOK reports whether id is 1 to max bytes, each allowed by ok. (A plain
// loop: bounded-repetition regexps cost milliseconds to compile at start-up,
// which every hook process would pay.)
func idOK(id string, max int, ok func(i int, c byte) bool) bool {
	if id == "" || len(id) > max {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !ok(i, id[i]) {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

// isChangeIDLetter reports whether c is a letter of jj's change id
// alphabet: jj writes change ids in "reverse hex", k to z.
func isChangeIDLetter(c byte) bool { return c >= 'k' && c <= 'z' }

// ValidChangeID reports whether id is a jj change id or a prefix of one
// (letters k to z, as jj writes them), so it is safe as a path element and
// as the argument of a change_id() revset, which fails on any other letter.
func ValidChangeID(id string) error {
	if !idOK(id, 64, func(_ int, c byte) bool { return isChangeIDLetter(c) }) {
		return fmt.Errorf("%q is not a jj change id (jj writes them with the letters k to z, e.g. qpvuntsm)", id)
	}
	return nil
}

// ValidSessionID reports whether id looks like an agent session id (Claude Code, OpenCode …).
func ValidSessionID(id string) error {
	if !idOK(id, 128, func(i int, c byte) bool { return isAlnum(c) || i > 0 && (c == '_' || c == '-') }) {
		return fmt.Errorf("%q is not a valid session id (letters, digits, - and _ only)", id)
	}
	return nil
}

// ProjectDir returns PLANQ_HOME/sessions/<project>.
func (s *Store) ProjectDir() string {
	return filepath.Join(s.Home, "sessions", s.Project)
}

// Dir returns the directory of the lineage rooted at root.
func (s *Store) Dir(root string) (string, error) {
	if err := ValidChangeID(root); err != nil {
		return "", fmt.Errorf("root change: %w", err)
	}
	return filepath.Join(s.ProjectDir(), root), nil
}

// Path returns the transcript file of the lineage rooted at root.
func (s *Store) Path(root string) (string, error) {
	dir, err := s.Dir(root)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, TranscriptFile), nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// lock takes the exclusive lock of the lineage directory dir.
func (s *Store) lock(ctx context.Context, dir string) (func(), error) {
	timeout := s.LockTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	l, err := flock.Acquire(ctx, filepath.Join(dir, lockFileName), timeout)
	switch {
	case errors.Is(err, flock.ErrTimeout):
		return nil, fmt.Errorf("transcript: %s is busy: another planq process held its lock for %s", dir, timeout)
	case err != nil:
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return l.Release, nil
}
