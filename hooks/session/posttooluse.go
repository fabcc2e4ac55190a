package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/transcript"
)

// The planq MCP tools after which the session's lineage is reconciled with jj.
var lineageTools = map[string]bool{"jj_init": true, "jj_new": true, "jj_describe": true}

// PostToolUse is the whole post-tool-use answer: it records what the call
// did (RecordToolUse), names the files that changed while the gate was
// locked when the call declared the change by hand, and, after a call that
// ran subagents in workspaces of their own, tells the session what those
// workspaces hold (SubagentReport).
func PostToolUse(ctx context.Context, e Env, ev Event) (Reply, error) {
	note, err := recordToolUse(ctx, e, ev)
	if err != nil {
		return Reply{Context: note}, err
	}
	if ev.Call == nil || !ev.Call.Subagent || ev.Call.Failed {
		return Reply{Context: note}, nil
	}
	report, err := SubagentReport(ctx, e, ev)
	return Reply{Context: strings.TrimSpace(note + "\n\n" + report)}, err
}

// RecordToolUse records what a tool call did to the session, and nothing
// more (PostToolUse is the whole answer): the files an editor or a patch
// modified (for jj_push's check and the summary), and the lineage's new
// changes after jj_init, jj_new, jj_describe or a shell command that ran jj.
func RecordToolUse(ctx context.Context, e Env, ev Event) error {
	_, err := recordToolUse(ctx, e, ev)
	return err
}

// recordToolUse is RecordToolUse, with what the model should be told: the
// files that changed while the gate was locked, when the call declared the
// change by hand.
func recordToolUse(ctx context.Context, e Env, ev Event) (string, error) {
	c := ev.Call
	if c == nil || c.Failed {
		return "", nil
	}
	switch t := c.Tool; {
	case t.Kind == gate.KindEditor:
		p := stringInput(c.Input, t.Field)
		if p == "" {
			return "", nil
		}
		return "", recordFiles(ctx, e, ev, []string{p})
	case t.Kind == gate.KindPatch:
		paths, err := gate.PatchPaths(stringInput(c.Input, t.Field))
		if err != nil {
			return "", nil // the host could not apply it either
		}
		return "", recordFiles(ctx, e, ev, paths)
	case t.Kind == gate.KindMCP && t.Server == "planq" && lineageTools[t.MCPTool],
		t.Kind == gate.KindShell && mentionsJJ(stringInput(c.Input, t.Field)):
		return reconcile(ctx, e, ev, t.Kind == gate.KindMCP && t.MCPTool == "jj_describe")
	}
	return "", nil
}

// reconcile binds the session to @'s lineage after jj moved; described says
// the description was just written, so the stop hook knows which diff it
// describes. When the call declared the change by hand (the gate was seen
// locked since the last check), it makes the check at declaration and
// returns its note for the model.
func reconcile(ctx context.Context, e Env, ev Event, described bool) (string, error) {
	s, err := Open(e, ev)
	if errors.Is(err, ErrNotJJRepo) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	cur, err := s.JJ.Current(ctx)
	if err != nil {
		return "", fmt.Errorf("jj: %w", err)
	}
	var note string
	if cur.Declared() {
		recordDeclared(e, s, ev)
		note = checkByHand(ctx, e, s, ev)
	} else {
		gate.MarkLocked(s.Root)
	}
	root, _, err := s.Bind(ctx, e, ev, cur)
	if err != nil || root == "" || !described {
		return note, err
	}
	mark, err := s.MarkOf(ctx, cur)
	if err != nil {
		return note, err
	}
	_, err = s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		SetMark(sess, cur.ChangeID, mark)
		return nil
	})
	return note, err
}

// checkByHand is the check at declaration for a change declared outside
// jj_init (jj describe or jj new -m in a shell): made only when the gate
// was seen locked since the last check, so the jj commands of a declared
// session cost nothing more. It never fails the hook.
func checkByHand(ctx context.Context, e Env, s *Scope, ev Event) string {
	if !gate.Pending(s.Root) {
		return ""
	}
	esc, err := gate.CheckDeclared(ctx, s.JJ, s.Root)
	if err != nil || !esc.Checked {
		return ""
	}
	RecordEscapes(e, s, ev, ev.Call.Name, esc.Files)
	if n := esc.Note(); n != "" {
		return "planq: " + n
	}
	return ""
}

// recordFiles adds the files a call wrote inside the repo to the session's
// lineage; relative paths are relative to the call's cwd.
func recordFiles(ctx context.Context, e Env, ev Event, paths []string) error {
	s, root, err := OpenLineage(e, ev)
	if s == nil {
		return err
	}
	var rels []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			base := ev.Cwd
			if base == "" {
				base = s.Root
			}
			p = filepath.Join(base, p)
		}
		rel, err := filepath.Rel(s.Root, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // outside the repo: not part of the change
		}
		rels = append(rels, filepath.ToSlash(rel))
	}
	if len(rels) == 0 {
		return nil
	}
	_, err = s.TS.Update(ctx, root, func(sess *transcript.Session) error {
		sess.AddFiles(rels...)
		return nil
	})
	return err
}

// stringInput returns the string member field of a tool input ("" when it
// is absent or not a string).
func stringInput(input json.RawMessage, field string) string {
	var m map[string]json.RawMessage
	if field == "" || json.Unmarshal(input, &m) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(m[field], &s)
	return s
}

// mentionsJJ reports whether a shell command runs jj.
func mentionsJJ(command string) bool { return sandbox.RunsJJ(command) }
