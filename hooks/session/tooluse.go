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
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/transcript"
)

// PreToolUse is the gate's verdict on ev's tool call: nothing for a call it
// lets through, a denial with the reason for the model, or (gate.mode: warn)
// a warning. The gate state and the configuration are the session's
// project's (ev.ProjectDir; the tool's cwd when unset), never those of the
// repository the tool happens to run in. Read-only tools are allowed without
// reading anything; other read-only calls read only the configuration; jj
// and the gate's cache are consulted only for calls that modify.
func PreToolUse(ctx context.Context, ev Event, getenv func(string) string) (Reply, error) {
	r, _, err := judge(ctx, ev, getenv)
	return r, err
}

// account is what the local metrics record of a pre-tool-use verdict: the
// class of gate rule that decided (gate.Rule*), and whether the gate state
// was read and found the change declared.
type account struct {
	rule     string
	unlocked bool
}

// judge is PreToolUse with its account.
func judge(ctx context.Context, ev Event, getenv func(string) string) (Reply, account, error) {
	if ev.Call == nil || ev.Call.Name == "" {
		return Reply{}, account{}, errors.New("hook input names no tool")
	}
	if ev.Call.Tool.Kind == gate.KindReadOnly {
		return Reply{}, account{rule: gate.RuleReadOnly}, nil
	}
	dir := ev.Cwd
	if dir == "" {
		dir = ev.ProjectDir
	}
	if dir == "" {
		return Reply{}, account{}, errors.New("hook input has no working directory and the host named no project directory")
	}
	if !filepath.IsAbs(dir) {
		return Reply{}, account{}, errors.New("the tool's working directory is not an absolute path: " + dir)
	}
	if ev.ProjectDir != "" && !filepath.IsAbs(ev.ProjectDir) {
		return Reply{}, account{}, errors.New("the project directory is not an absolute path: " + ev.ProjectDir)
	}
	call := gate.ToolCall{Name: ev.Call.Name, Tool: ev.Call.Tool, Input: ev.Call.Input}
	res := gate.Evaluate(ctx, call, dir, gate.EvalOptions{ProjectDir: ev.ProjectDir, Getenv: getenv, PlanqTool: ev.Host.Tool,
		SandboxEntry: sandboxEntry(ev.Host, ev.Call.Tool), SandboxShell: ev.Host.Shell, LeaveUnsandboxed: ev.Call.HostJudges})
	acc := account{rule: res.Decision.Rule, unlocked: res.State != nil && res.StateErr == nil && !res.State.Locked}
	switch d := res.Decision; {
	case d.Sandbox:
		return Reply{Command: d.Command}, acc, nil
	case d.Warn:
		return Reply{Warn: true, Reason: d.Message}, acc, nil
	case !d.Allow:
		return Reply{Deny: true, Reason: d.Message}, acc, nil
	}
	return Reply{}, acc, nil
}

// sandboxEntry is how the host's rewritten shell commands start the OS
// sandbox, or nil where they cannot (the parser-only gate): the host must
// apply rewrites, and this machine must have a sandbox.
func sandboxEntry(h Host, t gate.Tool) []string {
	if !h.Rewrites || t.Kind != gate.KindShell || !sandbox.Detect().Available() {
		return nil
	}
	entry, err := sandbox.Entry()
	if err != nil {
		return nil
	}
	return entry
}

// Enforcement says how the gate holds h's locked shell calls on this
// machine, in the project at dir with the hooks' environment getenv (nil:
// os.Getenv), for people and the model: "OS sandbox (Landlock ABI 7)", or
// "parser-only (why)" where the host cannot apply a rewritten command, the
// machine has no sandbox, or the user turned it off (gate.SandboxOff).
// Cheap: no process.
func Enforcement(h Host, dir string, getenv func(string) string) (text string, sandboxed bool) {
	e := sandbox.Detect()
	switch {
	case !e.Available():
		return e.String(), false
	case !h.Rewrites:
		return "parser-only (the host does not apply rewritten commands)", false
	}
	pol := gate.DefaultPolicy()
	if dir != "" {
		pol = gate.LoadProject(dir).Policy
	}
	if off := gate.SandboxOff(getenv, pol); off != "" {
		return "parser-only (the OS sandbox is turned off: " + off + ")", false
	}
	return e.String(), true
}

// FailedPreToolUse is the answer when the gate could not judge a call: a
// denial naming the error, or with gate.on_error: allow in the project's
// configuration a warning.
func FailedPreToolUse(projectDir string, err error) Reply {
	msg := text.OneLine(err.Error())
	if projectDir != "" && filepath.IsAbs(projectDir) {
		if p := gate.LoadProject(projectDir); p.Err == nil && p.Policy.OnErrorAllow {
			return Reply{Warn: true, Reason: "planq gate (gate.on_error: allow, let through): the gate could not judge this call: " + msg}
		}
	}
	return Reply{Deny: true, Reason: "planq gate: blocked this call because the gate could not judge it: " + msg +
		". Retry it; if it keeps failing, ask the user to run `planq doctor` (a user can set gate.on_error: allow in .planq/config.yaml to let calls through when the gate fails)."}
}

// The planq MCP tools after which the session's lineage is reconciled with jj.
var lineageTools = map[string]bool{"jj_init": true, "jj_new": true, "jj_describe": true}

// PostToolUse records what a tool call did to the session: the files an
// editor or a patch modified (for jj_push's check and the summary), and the
// lineage's new changes after jj_init, jj_new, jj_describe or a shell
// command that ran jj.
func PostToolUse(ctx context.Context, e Env, ev Event) error {
	_, err := postToolUse(ctx, e, ev)
	return err
}

// postToolUse is PostToolUse, with what the model should be told: the
// files that changed while the gate was locked, when the call declared the
// change by hand.
func postToolUse(ctx context.Context, e Env, ev Event) (string, error) {
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
