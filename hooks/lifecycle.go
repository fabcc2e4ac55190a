package hooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

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
func (r *Runner) PostToolUse(ctx context.Context, ev Input) (*Response, error) {
	if responseIsError(ev.ToolResponse) {
		return nil, nil
	}
	switch {
	case editTools[ev.ToolName]:
		return nil, r.recordEdit(ctx, ev)
	case ev.ToolName == toolJJInit || ev.ToolName == toolJJNew || ev.ToolName == toolJJDescribe ||
		(ev.ToolName == "Bash" && mentionsJJ(ev.ToolInput)):
		s, cur, ok, err := r.openCurrent(ctx, ev)
		if !ok || err != nil {
			return nil, err
		}
		root, _, err := r.bind(ctx, s, ev, cur)
		if err != nil || root == "" || ev.ToolName != toolJJDescribe {
			return nil, err
		}
		// The description was just written: remember the diff it describes,
		// so the stop hook knows whether the diff has moved since.
		mark, err := r.markOf(ctx, s, cur)
		if err != nil {
			return nil, err
		}
		_, err = s.ts.Update(ctx, root, func(sess *transcript.Session) error {
			setMark(sess, cur.ChangeID, mark)
			return nil
		})
		return nil, err
	}
	return nil, nil
}

// recordEdit adds the file an edit tool wrote to the session's lineage.
func (r *Runner) recordEdit(ctx context.Context, ev Input) error {
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
	s, ok, err := r.openRepo(ev)
	if !ok || err != nil {
		return err
	}
	root, ok := s.sessionRoot(ev)
	if !ok {
		return nil
	}
	if !filepath.IsAbs(path) {
		base := ev.Cwd
		if base == "" {
			base = s.root
		}
		path = filepath.Join(base, path)
	}
	rel, err := filepath.Rel(s.root, filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil // outside the repo: not part of the change
	}
	_, err = s.ts.Update(ctx, root, func(sess *transcript.Session) error {
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

// mark is the state of a change's description and diff at a point in time.
type mark struct {
	Desc, Diff string // fingerprints
	Empty      bool   // the diff was empty
}

// markOf fingerprints cur's description and diff.
func (r *Runner) markOf(ctx context.Context, s *scope, cur jj.Change) (mark, error) {
	m := mark{Desc: fingerprint(cur.Description), Empty: cur.Empty}
	if cur.Empty {
		return m, nil
	}
	diff, err := s.jj.DiffGit(ctx, "@")
	if err != nil {
		return m, fmt.Errorf("jj diff: %w", err)
	}
	m.Diff = fingerprint(diff)
	return m, nil
}

func fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// Marks are kept in the session record as "desc:diff" per change id.
func getMark(sess *transcript.Session, change string) (mark, bool) {
	v, ok := sess.Described[change]
	if !ok {
		return mark{}, false
	}
	d, f, _ := strings.Cut(v, ":")
	return mark{Desc: d, Diff: f, Empty: f == ""}, true
}

func setMark(sess *transcript.Session, change string, m mark) {
	if sess.Described == nil {
		sess.Described = map[string]string{}
	}
	sess.Described[change] = m.Desc + ":" + m.Diff
}

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
