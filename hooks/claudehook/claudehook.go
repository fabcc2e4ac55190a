// Package claudehook holds Claude Code's hook protocol — the JSON a hook
// reads on stdin and the JSON it answers with — and the gate's PreToolUse
// hook. It depends on nothing heavier than the gate, so a process that runs
// only these hooks starts fast: Claude Code starts one for every tool call.
package claudehook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/planq-dev/planq/gate"
)

// Input is the JSON Claude Code gives every hook on stdin: the fields all
// events share and those particular to each event, so every planq hook reads
// the same type. Fields an event does not carry stay zero. Fields Claude Code
// adds later are ignored.
type Input struct {
	// Common to every event.
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"` // default, plan, acceptEdits, bypassPermissions
	HookEventName  string `json:"hook_event_name"`

	// PreToolUse and PostToolUse.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"` // PostToolUse only

	Prompt             string `json:"prompt,omitempty"`              // UserPromptSubmit
	Source             string `json:"source,omitempty"`              // SessionStart: startup, resume, clear, compact
	StopHookActive     bool   `json:"stop_hook_active,omitempty"`    // Stop, SubagentStop
	Trigger            string `json:"trigger,omitempty"`             // PreCompact: manual, auto
	CustomInstructions string `json:"custom_instructions,omitempty"` // PreCompact
	Reason             string `json:"reason,omitempty"`              // SessionEnd
	Message            string `json:"message,omitempty"`             // Notification
	AgentID            string `json:"agent_id,omitempty"`            // subagent events
	AgentType          string `json:"agent_type,omitempty"`          // subagent events
}

// Hook event names, as Claude Code spells them in hook_event_name.
const (
	EventPreToolUse       = "PreToolUse"
	EventPostToolUse      = "PostToolUse"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventSessionStart     = "SessionStart"
	EventSessionEnd       = "SessionEnd"
	EventStop             = "Stop"
	EventSubagentStop     = "SubagentStop"
	EventPreCompact       = "PreCompact"
	EventNotification     = "Notification"
)

// MaxInputSize bounds the hook input read from stdin; a Write of a large file
// or a long tool response can make it big, but never this big.
const MaxInputSize = 32 << 20

// inputKeys are the JSON keys of Input, which ReadInput reads exactly.
var inputKeys = func() []string {
	t := reflect.TypeOf(Input{})
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}()

// ReadInput reads one hook input from r. It is strict about the shape — one
// JSON object, nothing after it, known fields of the right type, at most
// MaxInputSize bytes, no key twice and none that differs from a known one
// only in case (Go's decoder would take it; Claude Code's would not) — and
// tolerant of fields it does not know. Errors are one line, naming the
// problem.
func ReadInput(r io.Reader) (Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputSize+1))
	if err != nil {
		return Input{}, fmt.Errorf("read hook input: %w", err)
	}
	if len(data) > MaxInputSize {
		return Input{}, fmt.Errorf("hook input is larger than %d MiB", MaxInputSize>>20)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return Input{}, errors.New("no hook input on stdin; Claude Code sends the hook's JSON there")
	}
	if trimmed[0] != '{' {
		return Input{}, fmt.Errorf("hook input is not a JSON object (it starts with %q)", firstRune(trimmed))
	}
	if _, err := gate.ExactFields(trimmed, inputKeys...); err != nil {
		return Input{}, fmt.Errorf("hook input is not the JSON Claude Code sends: %s", oneLine(err.Error()))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var in Input
	if err := dec.Decode(&in); err != nil {
		return Input{}, fmt.Errorf("hook input is not the JSON Claude Code sends: %s", oneLine(err.Error()))
	}
	if int(dec.InputOffset()) != len(trimmed) {
		return Input{}, errors.New("hook input has data after its JSON object")
	}
	return in, nil
}

// Expect checks that the input is for event: it is an error when
// hook_event_name names another event (a hook wired to the wrong event).
// An input without a name is taken to be for event.
func (in Input) Expect(event string) error {
	if in.HookEventName != "" && in.HookEventName != event {
		return fmt.Errorf("hook input is for %s, not %s; check the hook wiring (planq mcp install)", in.HookEventName, event)
	}
	return nil
}

// Response is what a hook prints on stdout for Claude Code. A nil *Response
// prints nothing, which Claude Code takes as "carry on".
type Response struct {
	Continue       *bool  `json:"continue,omitempty"`       // false stops Claude altogether
	StopReason     string `json:"stopReason,omitempty"`     // shown to the user with continue: false
	SuppressOutput bool   `json:"suppressOutput,omitempty"` // hide stdout from the transcript
	SystemMessage  string `json:"systemMessage,omitempty"`  // a warning shown to the user
	// Decision "block" with Reason: Stop and SubagentStop continue with
	// Reason given to the model; PostToolUse shows Reason to the model.
	Decision string            `json:"decision,omitempty"`
	Reason   string            `json:"reason,omitempty"`
	Specific *SpecificResponse `json:"hookSpecificOutput,omitempty"`
}

// SpecificResponse is the hookSpecificOutput object.
type SpecificResponse struct {
	HookEventName string `json:"hookEventName"`
	// PreToolUse: "allow", "deny" or "ask"; the reason is shown to the model
	// for a denial and to the user otherwise.
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"` // PreToolUse: replaces tool_input
	// SessionStart, UserPromptSubmit, PreToolUse, PostToolUse: text added to
	// the model's context.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// WriteResponse prints r as one line of JSON; a nil r prints nothing.
func WriteResponse(w io.Writer, r *Response) error {
	if r == nil {
		return nil
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode hook output: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// DenyToolUse is a PreToolUse response that denies the call; reason goes to
// the model.
func DenyToolUse(reason string) *Response {
	return &Response{Specific: &SpecificResponse{
		HookEventName:            EventPreToolUse,
		PermissionDecision:       "deny",
		PermissionDecisionReason: reason,
	}}
}

// WarnToolUse is a PreToolUse response that lets the call through (the usual
// permission flow continues) with a warning for the user and the model.
func WarnToolUse(warning string) *Response {
	return &Response{
		SystemMessage: warning,
		Specific:      &SpecificResponse{HookEventName: EventPreToolUse, AdditionalContext: warning},
	}
}

func firstRune(b []byte) string {
	r := []rune(string(b[:min(len(b), 4)]))
	return string(r[:1])
}

func oneLine(s string) string { return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" "))) }

// Handler handles one hook event; a nil response allows silently.
type Handler func(ctx context.Context, in Input, projectDir string) (*Response, error)

// Serve runs one hook: it reads the input from r, runs h and prints its
// response on w. projectDir is CLAUDE_PROJECT_DIR. The error, if any, is one
// line for stderr; a hook process then exits 1, which Claude Code treats as
// a non-blocking error.
func Serve(ctx context.Context, r io.Reader, w io.Writer, projectDir string, h Handler) error {
	in, err := ReadInput(r)
	if err != nil {
		return err
	}
	resp, err := h(ctx, in, projectDir)
	if err != nil {
		return err
	}
	return WriteResponse(w, resp)
}
