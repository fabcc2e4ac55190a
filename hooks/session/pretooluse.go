package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/text"
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
		SandboxEntry: sandboxEntry(ev.Host, ev.Call.Tool, getenv), SandboxShell: ev.Host.Shell, LeaveUnsandboxed: ev.Call.HostJudges})
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
// apply rewrites, and this machine must have a sandbox. getenv is the
// hook's environment, which the host's shell shares (nil: os.Getenv).
func sandboxEntry(h Host, t gate.Tool, getenv func(string) string) []string {
	if !h.Rewrites || t.Kind != gate.KindShell || !sandbox.Detect().Available() {
		return nil
	}
	entry, err := sandbox.Entry()
	if err != nil {
		return nil
	}
	if h.EntryByName {
		if getenv == nil {
			getenv = os.Getenv
		}
		entry = sandbox.ByName(entry, getenv("PATH"))
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
