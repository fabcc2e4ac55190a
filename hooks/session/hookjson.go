package session

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// The JSON hook protocol Claude Code defined, which Codex, Gemini CLI and
// Copilot CLI adopted, each in part: the hooks' event names, the check
// that an input is for the hook it reached, and the answer's shape.

// EventNames maps planq's events to a host's names for their hooks (its
// hook_event_name).
type EventNames map[string]string

// ClaudeEventNames returns the names Claude Code gave the hooks of planq's
// session events, which Codex and Copilot CLI (wired by these names) give
// them too.
func ClaudeEventNames() EventNames {
	return EventNames{
		EventSessionStart: "SessionStart",
		EventPreToolUse:   "PreToolUse",
		EventPostToolUse:  "PostToolUse",
		EventPreCompact:   "PreCompact",
		EventStop:         "Stop",
		EventSessionEnd:   "SessionEnd",
	}
}

// Of is the host's name for planq's event, or an error saying that planq
// has no such hook for host (its name for people).
func (n EventNames) Of(event, host string) (string, error) {
	name, ok := n[event]
	if !ok {
		return "", fmt.Errorf("planq has no %s hook for %s", event, host)
	}
	return name, nil
}

// Planq is planq's event the host's name stands for, or the name itself
// when it stands for none.
func (n EventNames) Planq(name string) string {
	for event, v := range n {
		if v == name {
			return event
		}
	}
	return name
}

// CheckEventName errors when a hook input's hook_event_name, got, names
// another event than want, the host's name for the hook's own (an input
// naming none is taken to be for it); install is the command that wires
// the hooks anew.
func CheckEventName(got, want, install string) error {
	if got != "" && got != want {
		return fmt.Errorf("hook input is for %s, not %s; check the hook wiring (%s)", got, want, install)
	}
	return nil
}

// RequireSession errors when a hook input names no session or no absolute
// cwd; who says whose input it was ("Codex's hook input").
func RequireSession(who, sessionID, cwd string) error {
	if sessionID == "" {
		return fmt.Errorf("%s has no session_id", who)
	}
	return RequireCwd(who, cwd)
}

// RequireCwd errors when a hook input's cwd is not an absolute path; who
// says whose input it was.
func RequireCwd(who, cwd string) error {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return fmt.Errorf("%s cwd %q is not an absolute path", who, cwd)
	}
	return nil
}

// Decode is DecodeInput into a new T; on an error it returns the zero T.
func Decode[T any](data []byte, display string) (T, error) {
	var v T
	if err := DecodeInput(data, &v, display); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// HookSpecific is the hookSpecificOutput object of a hook's answer.
type HookSpecific struct {
	HookEventName string `json:"hookEventName"` // the host's name of the hook's event
	// PreToolUse: "allow", "deny" or "ask", and its reason, shown to the
	// model for a denial and to the user otherwise.
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"` // PermissionDecision's reason
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`             // PreToolUse: replaces tool_input
	// SessionStart, UserPromptSubmit, PreToolUse, PostToolUse: text added to
	// the model's context.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// HookOutput is a hook's answer as Codex and Gemini CLI read it (Claude
// Code's adds its session controls, and writes systemMessage first). A nil
// *HookOutput prints nothing, which the host takes as "carry on".
type HookOutput struct {
	// Decision "block" with Reason: Stop continues the turn with Reason as
	// the next prompt; Gemini CLI's BeforeTool denies with "deny".
	Decision      string        `json:"decision,omitempty"`
	Reason        string        `json:"reason,omitempty"`             // Decision's reason
	Specific      *HookSpecific `json:"hookSpecificOutput,omitempty"` // the event's own answer
	SystemMessage string        `json:"systemMessage,omitempty"`      // a warning shown to the user
}

// HookAnswer is the answer to planq's event carrying r in Claude Code's
// shape; nil says nothing. pre-tool-use denies with a permission decision,
// or warns the user (systemMessage) and the model (additionalContext);
// session-start's and post-tool-use's context is additional context; stop's
// nudge blocks the turn's end.
func HookAnswer(event string, r Reply) *HookOutput {
	name := ClaudeEventNames()[event]
	switch event {
	case EventPreToolUse:
		switch {
		case r.Command != "":
			// A host that runs rewritten commands writes the rewrite
			// itself; one that reaches here would run the original
			// unsandboxed, so it is denied instead.
			return &HookOutput{Specific: &HookSpecific{HookEventName: name, PermissionDecision: "deny",
				PermissionDecisionReason: "planq gate: blocked this call: it may run only in the OS sandbox, and planq cannot hand this host the sandboxed command."}}
		case r.Deny:
			return &HookOutput{Specific: &HookSpecific{HookEventName: name, PermissionDecision: "deny", PermissionDecisionReason: r.Reason}}
		case r.Warn:
			return &HookOutput{SystemMessage: r.Reason, Specific: &HookSpecific{HookEventName: name, AdditionalContext: r.Reason}}
		}
	case EventSessionStart, EventPostToolUse:
		if r.Context != "" {
			return &HookOutput{Specific: &HookSpecific{HookEventName: name, AdditionalContext: r.Context}}
		}
	case EventStop:
		if r.Nudge != "" {
			return &HookOutput{Decision: "block", Reason: r.Nudge}
		}
	}
	return nil
}

// ReplaceInput returns a tool's input with its string member field set to
// value, every other member kept: how a host's pre-tool-use answer hands
// back a rewritten shell command (Reply.Command) in the whole input it
// expects.
func ReplaceInput(input json.RawMessage, field, value string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		return nil, fmt.Errorf("the tool input is not a JSON object")
	}
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	m[field] = v
	return json.Marshal(m)
}
