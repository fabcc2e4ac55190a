package transcript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/planq-dev/planq/internal/atomicfile"
	"github.com/planq-dev/planq/jj"
)

// Session is the metadata of one session lineage: the jj changes it made and
// the agent sessions that worked in it. It is stored as session.json.
type Session struct {
	Project string    `json:"project"`
	Root    string    `json:"root"`            // the root change id: the lineage's key
	Task    string    `json:"task,omitempty"`  // the first line of the root's description
	Changes []string  `json:"changes"`         // change ids of the lineage, root first, in order of creation
	Agents  []Agent   `json:"agent_sessions"`  // agent host sessions, oldest first
	Files   []string  `json:"files,omitempty"` // repo-relative paths the sessions modified
	Created time.Time `json:"created"`         // when the lineage was recorded
	Updated time.Time `json:"updated"`         // last change to this record
	// NonResumable is set when the root change no longer exists (abandoned);
	// Reason says why in words for the user.
	NonResumable bool   `json:"non_resumable,omitempty"`
	Reason       string `json:"reason,omitempty"`
	// Described maps a change id to fingerprints of its description and diff
	// when its description was last written or checked (see the stop hook).
	Described map[string]string `json:"described,omitempty"`
	// Workspaces are the jj workspaces this lineage's sessions made for
	// parallel agents and subagents, oldest first.
	Workspaces []Workspace `json:"workspaces,omitempty"`
	// Origin is the machine (its origin id, see Origin) that recorded the
	// lineage, when it is not this one: the lineage came with a pull of
	// the state repo.
	Origin string `json:"origin,omitempty"`
}

// Workspace is one jj workspace a session of the lineage made.
type Workspace struct {
	Name     string    `json:"name"`
	Path     string    `json:"path"`
	Change   string    `json:"change"`             // the change it was made on
	By       string    `json:"by,omitempty"`       // the session that asked for it
	Subagent bool      `json:"subagent,omitempty"` // for a subagent of that session
	Created  time.Time `json:"created"`
	// Reported is set once the session was told what the subagent's
	// workspace holds.
	Reported bool `json:"reported,omitempty"`
}

// AddWorkspace records w, replacing an earlier record of the same name.
func (s *Session) AddWorkspace(w Workspace) {
	for i := range s.Workspaces {
		if s.Workspaces[i].Name == w.Name {
			s.Workspaces[i] = w
			return
		}
	}
	s.Workspaces = append(s.Workspaces, w)
}

// Agent is one agent host session that worked in a lineage.
type Agent struct {
	ID         string    `json:"id"`                   // the host's session id
	Host       string    `json:"host,omitempty"`       // the host ("claude", "opencode"); empty is Claude Code, from before there were others
	Parent     string    `json:"parent,omitempty"`     // the session that started this one as a subagent
	Transcript string    `json:"transcript,omitempty"` // the session's transcript (the host's, or planq's mirror of it)
	Change     string    `json:"change,omitempty"`     // the working-copy change when it started
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended,omitzero"`
	// StopBlocked is set while planq's stop hook blocked this session's last
	// stop, so it never blocks twice in a row.
	StopBlocked bool `json:"stop_blocked,omitempty"`
	// Workspace is the directory of the code repo the session ran in.
	Workspace string `json:"workspace,omitempty"`
	// Origin is the machine the session ran on (its origin id), when it is
	// not this one: it came with a pull of the state repo.
	Origin string `json:"origin,omitempty"`
}

// LastAgent returns the most recent agent session, subagents aside, if any.
func (s *Session) LastAgent() (Agent, bool) {
	for i := len(s.Agents) - 1; i >= 0; i-- {
		if s.Agents[i].Parent == "" {
			return s.Agents[i], true
		}
	}
	return Agent{}, false
}

// AgentFor returns the latest agent session, subagents aside, that started
// on change.
func (s *Session) AgentFor(change string) (Agent, bool) {
	for i := len(s.Agents) - 1; i >= 0; i-- {
		if s.Agents[i].Change == change && s.Agents[i].Parent == "" {
			return s.Agents[i], true
		}
	}
	return Agent{}, false
}

// Load reads the session record of the lineage rooted at root.
func (s *Store) Load(root string) (*Session, error) {
	dir, err := s.Dir(root)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, SessionFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for root change %s", ErrNoSession, root)
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: read session: %w", err)
	}
	path := filepath.Join(dir, SessionFile)
	var sess Session
	if err := json.Unmarshal(data, &sess); err != nil {
		return nil, fmt.Errorf("transcript: %w", &BadRecord{Path: path, Problem: "not valid JSON: " + err.Error()})
	}
	if err := sess.check(root); err != nil {
		return nil, fmt.Errorf("transcript: %w", &BadRecord{Path: path, Problem: err.Error()})
	}
	return &sess, nil
}

// Update applies fn to the session record of the lineage rooted at root
// (creating it when missing) under the lineage's lock, and saves it with its
// indexes. fn may return an error to abort without saving.
func (s *Store) Update(ctx context.Context, root string, fn func(*Session) error) (*Session, error) {
	dir, err := s.Dir(root)
	if err != nil {
		return nil, err
	}
	unlock, err := s.lock(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	sess, err := s.Load(root)
	if errors.Is(err, ErrNoSession) {
		now := s.now().UTC()
		sess, err = &Session{Project: s.Project, Root: root, Changes: []string{root}, Created: now}, nil
	}
	if err != nil {
		return nil, err
	}
	before, _ := json.Marshal(sess)
	existed := !sess.Updated.IsZero()
	if err := fn(sess); err != nil {
		return nil, err
	}
	sess.Root, sess.Project = root, s.Project
	if after, _ := json.Marshal(sess); existed && string(after) == string(before) {
		return sess, nil // nothing changed: hooks run often, skip the write
	}
	sess.Updated = s.now().UTC()
	if err := sess.check(root); err != nil {
		return nil, fmt.Errorf("session %s: %w", root, err)
	}
	data, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	// The indexes first, the record last: a record that names a change or
	// an agent session has its index, even when the process was killed
	// in between (a record saved first, with its indexes still to write,
	// read as unchanged by every later Update, which skipped the write,
	// and the change stayed in no lineage for good).
	for _, c := range sess.Changes {
		if err := s.writeIndex(byChangeDir, c, root); err != nil {
			return nil, err
		}
	}
	for _, a := range sess.Agents {
		if err := s.writeIndex(bySessionDir, a.ID, root); err != nil {
			return nil, err
		}
	}
	if err := atomicfile.Write(filepath.Join(dir, SessionFile), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("transcript: write session: %w", err)
	}
	return sess, nil
}

// AddChange records change as part of the lineage (idempotent).
func (sess *Session) AddChange(change string) {
	if change != "" && !slices.Contains(sess.Changes, change) {
		sess.Changes = append(sess.Changes, change)
	}
}

// AddAgent records an agent session (idempotent by id; a known id gets
// its transcript path refreshed and its end time cleared).
func (sess *Session) AddAgent(a Agent) {
	for i := range sess.Agents {
		if sess.Agents[i].ID == a.ID {
			if a.Transcript != "" {
				sess.Agents[i].Transcript = a.Transcript
			}
			if a.Workspace != "" {
				sess.Agents[i].Workspace = a.Workspace
			}
			sess.Agents[i].Ended = time.Time{}
			return
		}
	}
	sess.Agents = append(sess.Agents, a)
}

// AddFiles records modified files (deduplicated, in first-seen order).
func (sess *Session) AddFiles(paths ...string) {
	for _, p := range paths {
		if p != "" && !slices.Contains(sess.Files, p) {
			sess.Files = append(sess.Files, p)
		}
	}
}

// writeIndex records key -> root under the project's index dir, skipping the
// write when it already says so (hooks run often).
func (s *Store) writeIndex(kind, key, root string) error {
	path := filepath.Join(s.ProjectDir(), kind, key)
	if cur, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(cur)) == root {
		return nil
	}
	if err := atomicfile.Write(path, []byte(root+"\n"), 0o644); err != nil {
		return fmt.Errorf("transcript: index %s/%s: %w", kind, key, err)
	}
	return nil
}

func (s *Store) readIndex(kind, key string) (string, error) {
	data, err := os.ReadFile(filepath.Join(s.ProjectDir(), kind, key))
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoSession
	}
	if err != nil {
		return "", fmt.Errorf("transcript: read index: %w", err)
	}
	root := strings.TrimSpace(string(data))
	if ValidChangeID(root) != nil {
		return "", fmt.Errorf("transcript: index %s/%s is corrupt", kind, key)
	}
	return root, nil
}

// RootOfSession returns the root change of the lineage an agent session
// worked in, or ErrNoSession.
func (s *Store) RootOfSession(sessionID string) (string, error) {
	if err := ValidSessionID(sessionID); err != nil {
		return "", err
	}
	root, err := s.readIndex(bySessionDir, sessionID)
	if errors.Is(err, ErrNoSession) {
		return "", fmt.Errorf("%w for agent session %s", ErrNoSession, sessionID)
	}
	return root, err
}

// RootOfChange returns the root change of the lineage change belongs to, or
// ErrNoSession. change must be a full change id as recorded.
func (s *Store) RootOfChange(change string) (string, error) {
	if err := ValidChangeID(change); err != nil {
		return "", err
	}
	root, err := s.readIndex(byChangeDir, change)
	if errors.Is(err, ErrNoSession) {
		return "", fmt.Errorf("%w for change %s", ErrNoSession, change)
	}
	return root, err
}

// SearchRoot searches the transcript of the lineage rooted at root.
func (s *Store) SearchRoot(ctx context.Context, root, query string, limit int, opts ...Option) (Result, error) {
	path, err := s.Path(root)
	if err != nil {
		return Result{}, err
	}
	return Search(ctx, path, query, limit, opts...)
}

// RangeRoot reads lines from..to of the transcript of the lineage rooted at root.
func (s *Store) RangeRoot(ctx context.Context, root string, from, to int64, opts ...Option) (Result, error) {
	path, err := s.Path(root)
	if err != nil {
		return Result{}, err
	}
	return Range(ctx, path, from, to, opts...)
}

// RootFor returns the root of the lineage a change belongs to: the root named
// by its description's "Session: <root>" trailer (see jj.WithSessionRoot),
// else the recorded index. ok is false when the change is in no recorded
// lineage.
func (s *Store) RootFor(changeID, description string) (root string, ok bool) {
	if r, ok := jj.SessionRoot(description); ok && ValidChangeID(r) == nil {
		return r, true
	}
	if r, err := s.RootOfChange(changeID); err == nil {
		return r, true
	}
	return "", false
}

// RootOfChangePrefix returns the lineage root of the one recorded change
// whose id starts with prefix (as jj shows short ids); ok is false when none
// or several match.
func (s *Store) RootOfChangePrefix(prefix string) (root string, ok bool) {
	if ValidChangeID(prefix) != nil {
		return "", false
	}
	entries, err := os.ReadDir(filepath.Join(s.ProjectDir(), byChangeDir))
	if err != nil {
		return "", false
	}
	match := ""
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			if match != "" {
				return "", false
			}
			match = e.Name()
		}
	}
	if match == "" {
		return "", false
	}
	r, err := s.readIndex(byChangeDir, match)
	return r, err == nil
}

// Roots returns the session records of the project's stored lineages,
// newest Updated first. A record that cannot be read or is not valid is
// left out and named in the error, which joins one error per such record
// (BadRecords lists the invalid ones); the others are returned all the
// same. A project with no lineages has none.
func (s *Store) Roots() ([]*Session, error) {
	names, err := s.RootNames()
	var out []*Session
	errs := []error{err}
	for _, root := range names {
		sess, err := s.Load(root)
		switch {
		case errors.Is(err, ErrNoSession):
			continue // a lineage directory whose record is not written yet
		case err != nil:
			errs = append(errs, err)
			continue
		}
		out = append(out, sess)
	}
	SortNewestFirst(out)
	return out, errors.Join(errs...)
}

// RootNames returns the root change ids of the project's stored lineages,
// without reading their records; a directory that is not a lineage's is
// named in the error (CheckDir).
func (s *Store) RootNames() ([]string, error) {
	entries, err := os.ReadDir(s.ProjectDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: list lineages: %w", err)
	}
	var (
		out  []string
		errs []error
	)
	for _, e := range entries {
		if err := s.CheckDir(e); err != nil {
			errs = append(errs, err)
			continue
		}
		if e.IsDir() && ValidChangeID(e.Name()) == nil {
			out = append(out, e.Name()) // not by-session, by-change or stray files
		}
	}
	return out, errors.Join(errs...)
}

// SortNewestFirst sorts session records as Roots returns them: newest
// Updated first, then by root.
func SortNewestFirst(sessions []*Session) {
	slices.SortStableFunc(sessions, func(a, b *Session) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.Root, b.Root)
	})
}
