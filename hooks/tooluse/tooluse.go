// Package tooluse holds the PostToolUse hook and the session core it shares
// with planq's other session hooks (package hooks): where a session's
// records live, how a Claude Code session is bound to its lineage of jj
// changes, and the fingerprints of a change's description and diff. It
// links nothing heavier than jj, the transcript store and the hook
// protocol, so the planq-hook binary that serves the tool hooks starts
// fast.
package tooluse

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/hooks/claudehook"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// Env is what a hook call depends on besides its input.
type Env struct {
	Getenv func(string) string // environment; default os.Getenv
	Now    func() time.Time    // clock; default time.Now
	JJBin  string              // jj executable; default "jj"
}

// lookup reads the environment.
func (e Env) lookup(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// clock returns the current time.
func (e Env) clock() time.Time {
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

// Open resolves the repo of ev's session (CLAUDE_PROJECT_DIR, else the
// input's cwd, else the working directory) and its transcript store.
func Open(e Env, ev claudehook.Input) (*Scope, error) {
	dir := e.lookup("CLAUDE_PROJECT_DIR")
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
	cfg, err := config.Load(root)
	if err != nil {
		return nil, err
	}
	home, err := config.StateHome(e.lookup)
	if err != nil {
		return nil, err
	}
	project, err := config.ProjectName(root, cfg)
	if err != nil {
		return nil, err
	}
	ts, err := transcript.New(home, project)
	if err != nil {
		return nil, err
	}
	ts.Now = e.Now
	c := jj.New(root)
	if e.JJBin != "" {
		c.Bin = e.JJBin
	}
	return &Scope{Root: root, JJ: c, TS: ts, Home: home, Project: project}, nil
}

// LineageOf returns the root change of the lineage ch belongs to: its
// "Session: <root>" trailer, else the recorded index (transcript.RootFor).
func (s *Scope) LineageOf(ch jj.Change) (string, bool) {
	return s.TS.RootFor(ch.ChangeID, ch.Description)
}

// Bind records that the Claude Code session of ev works in change cur, and
// returns the lineage's root: cur's lineage when it has one; else the
// session's lineage when cur is a checkpoint on top of it; else a new
// lineage rooted at cur when cur is described (the change was declared).
// It returns "" when there is nothing to bind to (an undescribed change).
func (s *Scope) Bind(ctx context.Context, e Env, ev claudehook.Input, cur jj.Change) (string, *transcript.Session, error) {
	root, ok := s.LineageOf(cur)
	if !ok && ValidSession(ev.SessionID) {
		if sroot, err := s.TS.RootOfSession(ev.SessionID); err == nil {
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
			sess.AddAgent(transcript.Agent{ID: ev.SessionID, Transcript: ev.TranscriptPath, Change: cur.ChangeID, Started: e.clock().UTC()})
		}
		sess.NonResumable, sess.Reason = false, ""
		return nil
	})
	return root, sess, err
}

// SessionRoot returns the lineage root recorded for ev's Claude Code session.
func (s *Scope) SessionRoot(ev claudehook.Input) (string, bool) {
	if !ValidSession(ev.SessionID) {
		return "", false
	}
	root, err := s.TS.RootOfSession(ev.SessionID)
	return root, err == nil
}

// ValidSession reports whether id is a Claude Code session id planq records.
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

// Tools whose file_path (or notebook_path) input names a file they modify.
var editTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// The MCP tools after which the session's lineage is reconciled with jj.
const (
	toolJJInit     = "mcp__planq__jj_init"
	toolJJNew      = "mcp__planq__jj_new"
	toolJJDescribe = "mcp__planq__jj_describe"
)

// PostToolUse records what a tool call did to the session: the files an edit
// tool modified (for jj_push's check and the summary), and the lineage's new
// changes after jj_init, jj_new or a Bash command that ran jj. It prints
// nothing.
func PostToolUse(ctx context.Context, e Env, ev claudehook.Input) (*claudehook.Response, error) {
	if responseIsError(ev.ToolResponse) {
		return nil, nil
	}
	switch {
	case editTools[ev.ToolName]:
		return nil, recordEdit(ctx, e, ev)
	case ev.ToolName == toolJJInit || ev.ToolName == toolJJNew || ev.ToolName == toolJJDescribe ||
		(ev.ToolName == "Bash" && mentionsJJ(ev.ToolInput)):
		s, err := Open(e, ev)
		if errors.Is(err, ErrNotJJRepo) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		cur, err := s.JJ.Current(ctx)
		if err != nil {
			return nil, fmt.Errorf("jj: %w", err)
		}
		root, _, err := s.Bind(ctx, e, ev, cur)
		if err != nil || root == "" || ev.ToolName != toolJJDescribe {
			return nil, err
		}
		// The description was just written: remember the diff it describes,
		// so the stop hook knows whether the diff has moved since.
		mark, err := s.MarkOf(ctx, cur)
		if err != nil {
			return nil, err
		}
		_, err = s.TS.Update(ctx, root, func(sess *transcript.Session) error {
			SetMark(sess, cur.ChangeID, mark)
			return nil
		})
		return nil, err
	}
	return nil, nil
}

// recordEdit adds the file an edit tool wrote to the session's lineage.
func recordEdit(ctx context.Context, e Env, ev claudehook.Input) error {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	_ = json.Unmarshal(ev.ToolInput, &in)
	path := in.FilePath
	if path == "" {
		path = in.NotebookPath
	}
	if path == "" {
		return nil
	}
	s, err := Open(e, ev)
	if errors.Is(err, ErrNotJJRepo) {
		return nil
	}
	if err != nil {
		return err
	}
	root, ok := s.SessionRoot(ev)
	if !ok {
		return nil
	}
	if !filepath.IsAbs(path) {
		base := ev.Cwd
		if base == "" {
			base = s.Root
		}
		path = filepath.Join(base, path)
	}
	rel, err := filepath.Rel(s.Root, filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil // outside the repo: not part of the change
	}
	_, err = s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		sess.AddFiles(filepath.ToSlash(rel))
		return nil
	})
	return err
}

// mentionsJJ reports whether a Bash tool input runs jj.
func mentionsJJ(input json.RawMessage) bool {
	var in struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(input, &in)
	for _, f := range strings.FieldsFunc(in.Command, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|' || r == '(' || r == ')'
	}) {
		if f == "jj" || strings.HasSuffix(f, "/jj") {
			return true
		}
	}
	return false
}

// responseIsError reports a tool response that says the call failed.
func responseIsError(resp json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
		IsErr2  bool `json:"is_error"`
	}
	if json.Unmarshal(resp, &r) == nil && (r.IsError || r.IsErr2) {
		return true
	}
	return false
}

// PostToolUseTimeout bounds one PostToolUse call; Claude Code's own timeout
// for it (see hooks.Hooks) is longer, so planq always answers first.
const PostToolUseTimeout = 8 * time.Second

// RunPostToolUse is the whole PostToolUse hook process, shared by `planq
// hook post-tool-use` and the planq-hook binary: it never blocks the user
// on an internal error (the call already ran), it prints one line on
// stderr and exits 0.
func RunPostToolUse(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, e Env) int {
	ctx, cancel := context.WithTimeout(ctx, PostToolUseTimeout)
	defer cancel()
	fail := func(err error) int {
		fmt.Fprintf(stderr, "planq hook post-tool-use: %s\n", strings.Join(strings.Fields(err.Error()), " "))
		return 0
	}
	defer func() {
		if r := recover(); r != nil {
			fail(fmt.Errorf("internal error: %v", r))
		}
	}()
	ev, err := claudehook.ReadInput(stdin)
	if err == nil {
		err = ev.Expect(claudehook.EventPostToolUse)
	}
	if err != nil {
		return fail(err)
	}
	out, err := PostToolUse(ctx, e, ev)
	if werr := claudehook.WriteResponse(stdout, out); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return fail(err)
	}
	return 0
}
