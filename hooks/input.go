package hooks

import (
	"context"
	"io"

	"github.com/planq-dev/planq/hooks/claudehook"
)

// The hook protocol lives in hooks/claudehook, a package light enough for the
// PreToolUse hook's process to start fast; these names make it this
// package's own.

// Input is the JSON Claude Code gives every hook on stdin.
type Input = claudehook.Input

// Response is what a hook prints on stdout; nil prints nothing.
type Response = claudehook.Response

// SpecificResponse is the hookSpecificOutput object of a Response.
type SpecificResponse = claudehook.SpecificResponse

// Hook event names, as Claude Code spells them in hook_event_name.
const (
	EventPreToolUse       = claudehook.EventPreToolUse
	EventPostToolUse      = claudehook.EventPostToolUse
	EventUserPromptSubmit = claudehook.EventUserPromptSubmit
	EventSessionStart     = claudehook.EventSessionStart
	EventSessionEnd       = claudehook.EventSessionEnd
	EventStop             = claudehook.EventStop
	EventSubagentStop     = claudehook.EventSubagentStop
	EventPreCompact       = claudehook.EventPreCompact
	EventNotification     = claudehook.EventNotification
)

// MaxInputSize bounds the hook input read from stdin.
const MaxInputSize = claudehook.MaxInputSize

// ReadInput reads one hook input from r (see claudehook.ReadInput).
func ReadInput(r io.Reader) (Input, error) { return claudehook.ReadInput(r) }

// WriteResponse prints r as one line of JSON; a nil r prints nothing.
func WriteResponse(w io.Writer, r *Response) error { return claudehook.WriteResponse(w, r) }

// DenyToolUse is a PreToolUse response that denies the call; reason goes to
// the model.
func DenyToolUse(reason string) *Response { return claudehook.DenyToolUse(reason) }

// WarnToolUse is a PreToolUse response that lets the call through with a
// warning for the user and the model.
func WarnToolUse(warning string) *Response { return claudehook.WarnToolUse(warning) }

// PreToolUse is the gate's PreToolUse hook (see claudehook.PreToolUse).
func PreToolUse(ctx context.Context, in Input, projectDir string) (*Response, error) {
	return claudehook.PreToolUse(ctx, in, projectDir)
}
