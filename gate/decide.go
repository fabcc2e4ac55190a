package gate

import (
	"fmt"
	"strings"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

// Decision is what the gate does with one tool call.
type Decision struct {
	Allow bool `json:"allow"`
	// Warn is set in warn mode when the call would have been denied: it is
	// allowed, and Message is the warning.
	Warn bool `json:"warn,omitempty"`
	// Message is written for the model: for a denial, what was blocked, why,
	// and the exact next step; for a warning, the same as advice.
	Message string `json:"message,omitempty"`
	// Rule is the class of rule that decided (one of the Rule* names), for
	// people and the local metrics; the same call and state always give the
	// same class.
	Rule string `json:"rule,omitempty"`
	// Sandbox says the call is allowed to run only inside the OS sandbox,
	// where the project is read-only: a locked shell call the gate is not
	// sure modifies (RuleSandbox). Command is what the host runs instead.
	Sandbox bool `json:"sandbox,omitempty"`
	// Command is the shell command the host must run instead of the
	// call's (Sandbox): the sandbox entry point with the original command.
	Command string `json:"command,omitempty"`
}

// The classes of rule that decide a call, as Decision.Rule names them. The
// names are stable: the local metrics count verdicts by them. A call that
// does not modify the project is decided by the rule that judged it so
// (Verdict.Rule); one that modifies, by the gate's state.
const (
	RuleOff         = "off"          // gate.mode: off lets everything through
	RuleReadOnly    = "read-only"    // the host declares the tool read-only
	RuleShell       = "shell"        // the shell analysis found the command does not modify the project
	RuleOutside     = "outside"      // an editor or patch tool writes only outside the project
	RulePlanq       = "planq-tool"   // one of planq's own MCP tools, always allowed
	RuleMCPConfig   = "mcp-config"   // gate.mcp_allow in .planq/config.yaml
	RuleMCPName     = "mcp-name"     // an MCP tool whose name says it only reads (get*, list*, …)
	RuleUnknown     = "unknown"      // an unknown tool let through by gate.unknown: permissive
	RuleDeclared    = "declared"     // a modifying call, with the change declared
	RuleLocked      = "locked"       // a modifying call before the change is declared
	RuleNotJJ       = "not-jj"       // a modifying call outside a jj repository
	RuleGit         = "git"          // git rewriting history or the working copy in a jj repository
	RuleStateError  = "state-error"  // the gate state could not be read
	RuleConfigError = "config-error" // .planq/config.yaml is invalid
	RuleGateError   = "gate-error"   // the hook could not judge the call at all
	RuleSandbox     = "sandbox"      // a locked shell call run in the OS sandbox, the project read-only
)

// NeedsState reports whether deciding on v needs the gate's state: only
// calls that modify do. Read-only calls never touch jj or the cache.
func NeedsState(v Verdict) bool { return v.Modifies || v.Git != nil }

// Decide applies the policy to a judged call. st is the gate state (used
// only when NeedsState(v)); stateErr is the error reading it, if any, in
// which case a modifying call is denied with the error. tool is the tool's
// name, for the message; planqTool spells planq's own tools the way the host
// shows them (nil: mcp__planq__<tool>), for the next step a denial names.
func Decide(tool string, v Verdict, st Status, stateErr error, pol Policy, planqTool func(string) string) Decision {
	if planqTool == nil {
		planqTool = func(t string) string { return "mcp__planq__" + t }
	}
	if pol.Mode == config.ModeOff {
		return Decision{Allow: true, Rule: RuleOff}
	}
	if !NeedsState(v) {
		return Decision{Allow: true, Rule: v.Rule}
	}
	var msg, rule string
	switch {
	case stateErr != nil && pol.OnErrorAllow:
		return Decision{Allow: true, Warn: true, Rule: RuleStateError, Message: fmt.Sprintf("planq gate (gate.on_error: allow, let through): this %s call (%s) %s, and planq could not read the gate state: %s.",
			tool, v.Part, v.Reason, text.OneLine(stateErr.Error()))}
	case stateErr != nil:
		rule = RuleStateError
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and planq could not read the gate state: %s. "+
			"Run `jj status` to see what is wrong; a user can turn the gate off with gate.mode: off in .planq/config.yaml.",
			tool, v.Part, v.Reason, text.OneLine(stateErr.Error()))
	case v.Git != nil && st.IsJJRepo && !pol.AllowGit:
		rule = RuleGit
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s in a jj repository rewrites history or the working copy behind jj's back. "+
			"Do it the jj way instead: %s. (A user can allow git here with gate.git: allow in .planq/config.yaml.)",
			tool, v.Git.Part, v.Git.Command, v.Git.JJ)
	case !v.Modifies:
		return Decision{Allow: true, Rule: v.Rule}
	case !st.Locked:
		return Decision{Allow: true, Rule: RuleDeclared}
	case !st.IsJJRepo:
		rule = RuleNotJJ
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and this directory is not a jj repository, so no change can be declared for the work yet. "+
			"Next step: call %s (it keeps the existing git history), then %s with a one-line description of what you are about to do, then retry this call. "+
			"Reading, searching and running tests stay allowed.",
			tool, v.Part, v.Reason, planqTool("jj_git_init"), planqTool("jj_init"))
	default:
		rule = RuleLocked
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and no jj change is declared for this work yet (the working-copy change %s has no description). "+
			"Next step: call %s with a one-line description of what you are about to do (for example \"Fix the off-by-one in the pager\"), then retry this call. "+
			"Reading, searching and running tests stay allowed.",
			tool, v.Part, v.Reason, shortID(st.ChangeID), planqTool("jj_init"))
	}
	if pol.Mode == config.ModeWarn {
		return Decision{Allow: true, Warn: true, Rule: rule, Message: "planq gate (warn mode, allowed): " + strings.TrimPrefix(msg, "planq gate: ")}
	}
	return Decision{Message: msg, Rule: rule}
}

// shortID names the working-copy change by its short id, or "@" when the
// state does not know it.
func shortID(id string) string {
	if id == "" {
		return "@"
	}
	return jj.ShortID(id)
}

// Sandboxed turns the parser-only decision d on a shell call into the
// decision with the OS sandbox at hand: while the gate is locked (or its
// state cannot be read), a call the gate is not sure modifies (read-only
// to the parser, or unknown to it) is allowed to run in the sandbox
// instead of being denied or trusted; a call it is sure of, and git behind
// jj's back, keep d. Declarations (Verdict.Declares) and an unlocked gate
// keep d too: nothing is sandboxed once the change is declared.
func Sandboxed(d Decision, v Verdict, st Status, stateErr error) Decision {
	locked := stateErr != nil || st.Locked
	if !locked || v.Declares || v.Sure || d.Rule == RuleGit || d.Rule == RuleOff {
		return d
	}
	return Decision{Allow: true, Sandbox: true, Rule: RuleSandbox}
}
