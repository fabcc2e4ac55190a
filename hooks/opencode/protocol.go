package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/planq-dev/planq/hooks/session"
)

// The events the plugin runs planq for, as `planq hook <event> --host opencode`.
const (
	EventPreToolUse   = "pre-tool-use"  // tool.execute.before: the gate
	EventPostToolUse  = "post-tool-use" // tool.execute.after
	EventSessionStart = "session-start" // first request of a session, and the first after a compaction
	EventPreCompact   = "pre-compact"   // experimental.session.compacting
	EventStop         = "stop"          // session.idle: the turn ended
	EventSessionEnd   = "session-end"   // session.deleted
)

// The sources of a session-start payload.
const (
	SourceStartup = "startup" // the session was created while the plugin ran
	SourceResume  = "resume"  // an older session (opencode --session, --continue, or picked in the TUI)
	SourceCompact = "compact" // the first request after a compaction
)

// Payload is the JSON object the plugin sends on stdin; each event fills the
// fields it has (see plugin.js and Check).
type Payload struct {
	Tool      string          `json:"tool,omitempty"`   // tool events: OpenCode's tool name
	SessionID string          `json:"sessionID"`        // every event
	CallID    string          `json:"callID,omitempty"` // tool events
	Args      json.RawMessage `json:"args,omitempty"`   // tool events: the tool's input object
	// pre-tool-use: the plugin sets a reply's command in the call's args
	// (a plugin from before planq's sandbox does not), and the user's
	// permission config it read (nil when it could not).
	Rewrites   bool            `json:"rewrites,omitempty"`
	Permission *Permissions    `json:"permission,omitempty"`
	Directory  string          `json:"directory"`          // every event: the project directory OpenCode runs in
	ParentID   string          `json:"parentID,omitempty"` // a subagent session's parent session
	Source     string          `json:"source,omitempty"`   // session-start: startup, resume or compact
	Reason     string          `json:"reason,omitempty"`   // session-end: "deleted"
	Messages   json.RawMessage `json:"messages,omitempty"` // pre-compact and stop: [{info, parts}], see AppendTranscript
}

// MaxPayload bounds a payload read from stdin; stop and pre-compact carry the
// whole session, which can be large, but not this large.
const MaxPayload = session.MaxInputSize

// ReadPayload reads one payload from r: one JSON object, nothing after it, at
// most MaxPayload bytes, read as session.DecodeObject reads every hook's
// input (known fields of the right type, no key twice and none that differs
// from a known one only in case); fields it does not know are ignored.
// Errors are one line.
func ReadPayload(r io.Reader) (Payload, error) {
	data, err := session.ReadInput(r)
	if err != nil {
		return Payload{}, fmt.Errorf("the OpenCode plugin's input: %w", err)
	}
	return parsePayload(data)
}

// parsePayload is ReadPayload on the bytes read.
func parsePayload(data []byte) (Payload, error) {
	var p Payload
	switch err := session.DecodeObject(data, &p); {
	case err == nil:
		return p, nil
	case errors.Is(err, session.ErrNoInput):
		return Payload{}, errors.New("no input on stdin; the OpenCode plugin sends one JSON object there")
	default:
		return Payload{}, fmt.Errorf("the OpenCode plugin's input %w", err)
	}
}

// Check reports whether p has what event needs: a session and a directory
// always; the tool, call id and argument object for the tool events; a known
// source for session-start; the message array for pre-compact and stop.
func (p Payload) Check(event string) error {
	var missing []string
	need := func(ok bool, field string) {
		if !ok {
			missing = append(missing, field)
		}
	}
	need(p.SessionID != "", "sessionID")
	need(p.Directory != "", "directory")
	switch event {
	case EventPreToolUse, EventPostToolUse:
		need(p.Tool != "", "tool")
		need(p.CallID != "", "callID")
		need(isJSON(p.Args, '{'), "args (an object)")
	case EventSessionStart:
		need(p.Source == SourceStartup || p.Source == SourceResume || p.Source == SourceCompact, "source (startup, resume or compact)")
	case EventPreCompact, EventStop:
		need(isJSON(p.Messages, '['), "messages (an array)")
	case EventSessionEnd:
	default:
		return fmt.Errorf("unknown OpenCode hook event %q", event)
	}
	if len(missing) > 0 {
		return fmt.Errorf("the OpenCode plugin's %s input lacks %s; reinstall the plugin with planq mcp install --host opencode", event, strings.Join(missing, ", "))
	}
	return nil
}

func isJSON(raw json.RawMessage, open byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == open
}

// Reply is what planq prints on stdout for the plugin; the zero Reply prints
// nothing, which the plugin takes as "carry on".
type Reply struct {
	Decision string `json:"decision,omitempty"` // pre-tool-use: "allow" or "deny"
	Reason   string `json:"reason,omitempty"`   // pre-tool-use deny: the error the model sees, verbatim
	Warning  string `json:"warning,omitempty"`  // pre-tool-use allow: appended to the tool's output
	Command  string `json:"command,omitempty"`  // pre-tool-use allow: the command a bash call runs instead of its own
	Context  string `json:"context,omitempty"`  // session-start: system prompt text; pre-compact: compaction prompt text
	Nudge    string `json:"nudge,omitempty"`    // stop: a user message sent to a main session
}

// Deny is a pre-tool-use reply that blocks the call; reason goes to the model.
func Deny(reason string) Reply { return Reply{Decision: "deny", Reason: reason} }

// Allow is a pre-tool-use reply that lets the call run, with an optional
// warning appended to its output.
func Allow(warning string) Reply { return Reply{Decision: "allow", Warning: warning} }

// WriteReply prints r as one line of JSON; the zero Reply prints nothing.
func WriteReply(w io.Writer, r Reply) error {
	if r == (Reply{}) {
		return nil
	}
	if err := session.WriteLine(w, r); err != nil {
		return fmt.Errorf("reply to the OpenCode plugin: %w", err)
	}
	return nil
}
