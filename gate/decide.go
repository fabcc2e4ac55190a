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
}

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
	if pol.Mode == config.ModeOff || !NeedsState(v) {
		return Decision{Allow: true}
	}
	var msg string
	switch {
	case stateErr != nil && pol.OnErrorAllow:
		return Decision{Allow: true, Warn: true, Message: fmt.Sprintf("planq gate (gate.on_error: allow, let through): this %s call (%s) %s, and planq could not read the gate state: %s.",
			tool, v.Part, v.Reason, text.OneLine(stateErr.Error()))}
	case stateErr != nil:
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and planq could not read the gate state: %s. "+
			"Run `jj status` to see what is wrong; a user can turn the gate off with gate.mode: off in .planq/config.yaml.",
			tool, v.Part, v.Reason, text.OneLine(stateErr.Error()))
	case v.Git != nil && st.IsJJRepo && !pol.AllowGit:
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s in a jj repository rewrites history or the working copy behind jj's back. "+
			"Do it the jj way instead: %s. (A user can allow git here with gate.git: allow in .planq/config.yaml.)",
			tool, v.Git.Part, v.Git.Command, v.Git.JJ)
	case !v.Modifies || !st.Locked:
		return Decision{Allow: true}
	case !st.IsJJRepo:
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and this directory is not a jj repository, so no change can be declared for the work yet. "+
			"Next step: call %s (it keeps the existing git history), then %s with a one-line description of what you are about to do, then retry this call. "+
			"Reading, searching and running tests stay allowed.",
			tool, v.Part, v.Reason, planqTool("jj_git_init"), planqTool("jj_init"))
	default:
		msg = fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and no jj change is declared for this work yet (the working-copy change %s has no description). "+
			"Next step: call %s with a one-line description of what you are about to do (for example \"Fix the off-by-one in the pager\"), then retry this call. "+
			"Reading, searching and running tests stay allowed.",
			tool, v.Part, v.Reason, shortID(st.ChangeID), planqTool("jj_init"))
	}
	if pol.Mode == config.ModeWarn {
		return Decision{Allow: true, Warn: true, Message: "planq gate (warn mode, allowed): " + strings.TrimPrefix(msg, "planq gate: ")}
	}
	return Decision{Message: msg}
}

// shortID names the working-copy change by its short id, or "@" when the
// state does not know it.
func shortID(id string) string {
	if id == "" {
		return "@"
	}
	return jj.ShortID(id)
}
