package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/gate"
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
	Messages   json.RawMessage `json:"messages,omitempty"` // pre-compact and stop: [{info, parts}], see transcript.AppendOpenCode
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

// Host is OpenCode, as the session core knows it: planq's tools are
// planq_<tool>, and a compaction takes context (experimental.session.compacting).
// It rewrites: the plugin sets a bash call's command to the one planq
// answers (NOTES.md, "Rewriting a tool call").
var Host = session.Host{Name: "opencode", Display: "OpenCode", ToolPrefix: ToolPrefix, CompactContext: true, Rewrites: true}

// Protocol is the protocol of planq's OpenCode plugin (session.Protocol).
type Protocol struct{}

// Host names OpenCode.
func (Protocol) Host() session.Host { return Host }

// Read decodes the plugin's payload for event. The project is the
// directory OpenCode runs in. A bash call's workdir becomes the call's
// working directory. The messages of a stop or pre-compact payload are the
// event's Messages, which Resolve keeps.
func (Protocol) Read(event string, data []byte, getenv func(string) string) (session.Event, error) {
	ev := session.Event{Name: event, Host: Host, ProjectDir: getenv("PLANQ_PROJECT_DIR")}
	p, err := parsePayload(data)
	if err == nil {
		err = p.Check(event)
	}
	if err != nil {
		return ev, err
	}
	if !filepath.IsAbs(p.Directory) {
		return ev, fmt.Errorf("the OpenCode plugin's directory %q is not an absolute path", p.Directory)
	}
	ev.ProjectDir, ev.Cwd = p.Directory, p.Directory
	ev.SessionID, ev.ParentID = p.SessionID, p.ParentID
	ev.Source, ev.Reason = p.Source, p.Reason
	if p.Tool != "" {
		ev.Call = &session.Call{Name: p.Tool, Tool: GateTool(p.Tool), Input: p.Args}
		if ev.Call.Tool.Kind == gate.KindShell {
			if ev.Cwd, err = workdir(p.Directory, p.Args); err != nil {
				return ev, err
			}
			switch {
			case event != EventPreToolUse:
			case !p.Rewrites:
				// An older plugin, which does not apply a rewrite.
				ev.Host.Rewrites = false
			default:
				// Unknown rules, or rules and asks of OpenCode's that would
				// judge the rewritten command instead of this one: the call
				// keeps the parser-only gate.
				command, cwd, perm := ev.Call.Command(), ev.Cwd, p.Permission
				ev.Call.HostJudges = func() bool { return perm == nil || !sandboxable(command, cwd, p.Directory, *perm) }
			}
		}
	}
	ev.Messages = p.Messages
	return ev, nil
}

// workdir is the directory a bash call runs in: its workdir argument,
// relative to the project, else the project. The argument is read exactly,
// as the gate reads the command.
func workdir(dir string, args json.RawMessage) (string, error) {
	fields, err := gate.ExactFields(args, "workdir")
	if err != nil {
		return "", fmt.Errorf("the bash input is ambiguous or malformed: %w", err)
	}
	raw, ok := fields["workdir"]
	if !ok || string(raw) == "null" {
		return dir, nil
	}
	var wd string
	if err := json.Unmarshal(raw, &wd); err != nil {
		return "", fmt.Errorf("the bash input's workdir is not a string")
	}
	if wd == "" {
		return dir, nil
	}
	if !filepath.IsAbs(wd) {
		wd = filepath.Join(dir, wd)
	}
	return filepath.Clean(wd), nil
}

// Write answers the plugin: for pre-tool-use a deny, or an allow with a
// warning, or with the command the bash call must run instead (planq's
// sandbox); the context for session-start and pre-compact, the nudge for
// stop. It always exits 0; the plugin reads the reply.
func (Protocol) Write(w io.Writer, ev session.Event, r session.Reply) (int, error) {
	var out Reply
	switch ev.Name {
	case EventPreToolUse:
		switch {
		case r.Deny:
			out = Deny(r.Reason)
		case r.Warn:
			out = Allow(r.Reason)
		}
		if r.Command != "" && !r.Deny {
			// The plugin puts the command in the call's args itself.
			if _, err := session.RewrittenInput(ev, r.Command); err != nil {
				out = Deny(session.RewriteFailed(ev, err).Reason)
			} else {
				out.Decision, out.Command = "allow", r.Command
			}
		}
	case EventSessionStart, EventPreCompact:
		out.Context = r.Context
	case EventStop:
		out.Nudge = r.Nudge
	}
	return 0, WriteReply(w, out)
}

// Resolve keeps the messages of a stop or pre-compact payload in planq's
// mirror of the session's transcript (under PLANQ_HOME/hosts/opencode/),
// which becomes the event's transcript once it exists
// (session.Resolver).
func (Protocol) Resolve(ev session.Event, getenv func(string) string) (session.Event, error) {
	mirror, err := mirrorPath(getenv, ev.SessionID)
	if err != nil {
		return ev, err
	}
	if len(ev.Messages) > 0 {
		if err := appendLocked(mirror, ev.Messages); err != nil {
			return ev, fmt.Errorf("keep the transcript of OpenCode session %s: %w", ev.SessionID, err)
		}
	}
	if _, err := os.Stat(mirror); err == nil {
		ev.TranscriptPath = mirror
	}
	return ev, nil
}
