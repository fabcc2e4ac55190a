package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
)

// Host is Copilot CLI, as the session core knows it. It rewrites: a
// PreToolUse answer's modifiedArgs are the arguments the call runs with
// (NOTES.md, "Rewriting a tool call"). Its shell is /bin/bash whatever
// $SHELL says, and bash execs the rewritten command's entry point, whose
// parent is then copilot: the rewrite names the shell.
var Host = session.Host{Name: "copilot", Display: "Copilot CLI", ToolPrefix: ToolPrefix, Rewrites: true, Shell: "/bin/bash", EntryByName: true}

// Hook event names, as planq wires them. The PascalCase names make Copilot
// send its VS Code-compatible payloads (snake_case, Claude Code's shape);
// subagentStart has no such form, so it is wired by its camelCase name.
const (
	EventPreToolUse    = "PreToolUse"
	EventPostToolUse   = "PostToolUse"
	EventSessionStart  = "SessionStart"
	EventPreCompact    = "PreCompact"
	EventStop          = "Stop"
	EventSessionEnd    = "SessionEnd"
	EventSubagentStart = "subagentStart" // served as planq's session-start for the subagent
)

// eventNames maps planq's events to Copilot's hook_event_name: Claude
// Code's names.
var eventNames = session.ClaudeEventNames()

// Input is the JSON Copilot CLI 1.0.102 gives a hook wired by a PascalCase
// event name on stdin; fields an event does not carry stay zero, fields
// Copilot adds later are ignored.
type Input struct {
	HookEventName  string `json:"hook_event_name"`
	SessionID      string `json:"session_id"` // a subagent's own id in its events
	Timestamp      string `json:"timestamp"`  // ISO 8601
	Cwd            string `json:"cwd"`
	TranscriptPath string `json:"transcript_path,omitempty"` // Stop, PreCompact: the session's events.jsonl

	ToolName   string          `json:"tool_name,omitempty"`   // PreToolUse, PostToolUse: Bash, Write, Edit, Read, planq-jj_init…
	ToolInput  json.RawMessage `json:"tool_input,omitempty"`  // the tool's arguments
	ToolResult *ToolResult     `json:"tool_result,omitempty"` // PostToolUse

	Source             string `json:"source,omitempty"`              // SessionStart: new, startup, resume
	InitialPrompt      string `json:"initial_prompt,omitempty"`      // SessionStart
	Reason             string `json:"reason,omitempty"`              // SessionEnd: complete, error, abort, timeout, user_exit
	Trigger            string `json:"trigger,omitempty"`             // PreCompact: manual, auto
	CustomInstructions string `json:"custom_instructions,omitempty"` // PreCompact
	StopReason         string `json:"stop_reason,omitempty"`         // Stop: end_turn
	StopHookActive     bool   `json:"stop_hook_active,omitempty"`    // Stop: this turn continues because a Stop hook asked

	// A subagent's events: its id (also its session_id), its kind, and the
	// session that started it, whose lineage it shares.
	AgentID       string `json:"agent_id,omitempty"`
	AgentType     string `json:"agent_type,omitempty"`
	ParentAgentID string `json:"parent_agent_id,omitempty"`
}

// ToolResult is a PostToolUse payload's tool_result.
type ToolResult struct {
	ResultType       string `json:"result_type"` // success, failure, denied, error
	TextResultForLLM string `json:"text_result_for_llm"`
}

// SubagentInput is the camelCase JSON Copilot gives a subagentStart hook.
type SubagentInput struct {
	SessionID        string `json:"sessionId"` // the parent session
	Timestamp        int64  `json:"timestamp"` // Unix milliseconds
	Cwd              string `json:"cwd"`
	TranscriptPath   string `json:"transcriptPath"` // the parent's events.jsonl
	AgentName        string `json:"agentName"`
	AgentDisplayName string `json:"agentDisplayName,omitempty"`
	AgentDescription string `json:"agentDescription,omitempty"`
	AgentID          string `json:"agentId"`
	AgentType        string `json:"agentType,omitempty"`
	ParentAgentID    string `json:"parentAgentId,omitempty"`
}

// Protocol is Copilot CLI's hook protocol (session.Protocol).
type Protocol struct{}

// Host names Copilot CLI.
func (Protocol) Host() session.Host { return Host }

// Read decodes Copilot's input for event. A subagent's events carry its
// own id as session_id and agent_id and the session that started it as
// parent_agent_id: the event is then the subagent's, with that session as
// its parent, whose lineage it shares. session-start also reads the
// subagentStart payload (camelCase, no hook_event_name). The project is
// COPILOT_PROJECT_DIR, which Copilot gives its hooks, else the cwd.
// Copilot names a transcript only for Stop and PreCompact (and
// subagentStart, the parent's): Resolve finds it for the others.
func (Protocol) Read(event string, data []byte, getenv func(string) string) (session.Event, error) {
	ev := session.Event{Name: event, Host: Host}
	name, err := eventNames.Of(event, Host.Display)
	if err != nil {
		return ev, err
	}
	if event == session.EventSessionStart && isSubagentStart(data) {
		return readSubagentStart(ev, data, getenv)
	}
	in, err := session.Decode[Input](data, Host.Display)
	if err != nil {
		return ev, err
	}
	if in.HookEventName == "" {
		return ev, fmt.Errorf("hook input has no hook_event_name; wire planq's hooks by their PascalCase names (planq mcp install --host copilot)")
	}
	if err := session.CheckEventName(in.HookEventName, name, "planq mcp install --host copilot"); err != nil {
		return ev, err
	}
	if err := session.RequireSession("Copilot CLI's hook input", in.SessionID, in.Cwd); err != nil {
		return ev, err
	}
	ev.SessionID, ev.Cwd = in.SessionID, in.Cwd
	if in.AgentID != "" && in.ParentAgentID != "" && in.ParentAgentID != in.AgentID {
		ev.SessionID, ev.ParentID = in.AgentID, in.ParentAgentID
	}
	ev.ProjectDir = projectDir(getenv)
	ev.Source, ev.Trigger, ev.Reason, ev.StopHookActive = in.Source, in.Trigger, in.Reason, in.StopHookActive
	ev.TranscriptPath = in.TranscriptPath
	if in.ToolName != "" {
		ev.Call = &session.Call{Name: in.ToolName, Tool: GateTool(in.ToolName), Input: in.ToolInput,
			Failed: in.ToolResult != nil && in.ToolResult.ResultType != "success"}
		if event == session.EventPreToolUse && ev.Call.Tool.Kind == gate.KindShell {
			command, dir := ev.Call.Command(), ev.ProjectDir
			if dir == "" {
				dir = ev.Cwd
			}
			ev.Call.HostJudges = func() bool { return hostJudges(command, dir, getenv) }
		}
	}
	return ev, nil
}

// Resolve finds the transcript of a session event whose input names none
// where Copilot keeps it ($COPILOT_HOME/session-state/<session>/events.jsonl,
// the parent's for a subagent, as subagentStart names it), when it is
// there (session.Resolver). Tool events need no transcript.
func (Protocol) Resolve(ev session.Event, getenv func(string) string) (session.Event, error) {
	if ev.TranscriptPath == "" && ev.Name != session.EventPreToolUse && ev.Name != session.EventPostToolUse {
		ev.TranscriptPath = transcriptOf(getenv, ev.Owner())
	}
	return ev, nil
}

// isSubagentStart reports whether a session-start input is subagentStart's
// camelCase payload rather than SessionStart's.
func isSubagentStart(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(data), &probe) != nil {
		return false
	}
	_, named := probe["hook_event_name"]
	_, agent := probe["agentId"]
	return !named && agent
}

// readSubagentStart reads subagentStart's payload as the subagent's
// session-start, parented to the session that started it.
func readSubagentStart(ev session.Event, data []byte, getenv func(string) string) (session.Event, error) {
	in, err := session.Decode[SubagentInput](data, Host.Display)
	if err != nil {
		return ev, err
	}
	if in.AgentID == "" || in.SessionID == "" {
		return ev, errors.New("Copilot CLI's subagentStart input has no agentId or sessionId")
	}
	if err := session.RequireCwd("Copilot CLI's hook input", in.Cwd); err != nil {
		return ev, err
	}
	parent := in.ParentAgentID
	if parent == "" {
		parent = in.SessionID
	}
	ev.SessionID, ev.ParentID, ev.Cwd, ev.Source = in.AgentID, parent, in.Cwd, "startup"
	ev.ProjectDir = projectDir(getenv)
	ev.TranscriptPath = in.TranscriptPath
	return ev, nil
}

// projectDir is the project Copilot names for its hooks
// (COPILOT_PROJECT_DIR), or "" for the cwd.
func projectDir(getenv func(string) string) string {
	if d := getenv("COPILOT_PROJECT_DIR"); filepath.IsAbs(d) {
		return d
	}
	return ""
}

// Response is what a hook prints on stdout for Copilot.
type Response struct {
	// PreToolUse: "deny" blocks the call, PermissionDecisionReason goes to
	// the model.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// Stop: "block" continues the session with Reason as the next prompt.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// subagentStart: prepended to the subagent's prompt.
	AdditionalContext string `json:"additionalContext,omitempty"`
	// PreToolUse: the arguments the call runs with instead of its own
	// (they replace them, they are not merged). Sent without a permission
	// decision: with "allow" Copilot would skip the user's permission rules
	// altogether.
	ModifiedArgs json.RawMessage `json:"modifiedArgs,omitempty"`
}

// Respond is Copilot's response to ev carrying r; nil says nothing.
// Copilot has no warning for a call it runs, and ignores SessionStart's
// output, so a warning and the main session's context are not written; a
// subagent's context is (subagentStart's additionalContext). A rewritten
// shell call is its whole arguments with the command replaced.
func Respond(ev session.Event, r session.Reply) *Response {
	switch ev.Name {
	case session.EventPreToolUse:
		if r.Command != "" && !r.Deny {
			args, err := session.RewrittenInput(ev, r.Command)
			if err == nil {
				return &Response{ModifiedArgs: args}
			}
			r = session.RewriteFailed(ev, err)
		}
		if r.Deny {
			return &Response{PermissionDecision: "deny", PermissionDecisionReason: r.Reason}
		}
	case session.EventSessionStart:
		if r.Context != "" && ev.ParentID != "" {
			return &Response{AdditionalContext: r.Context}
		}
	case session.EventStop:
		if r.Nudge != "" {
			return &Response{Decision: "block", Reason: r.Nudge}
		}
	}
	return nil
}

// Write answers ev with r as Copilot reads it; it always exits 0 (Copilot
// skips a hook that exits otherwise, which for the gate would let the call
// through).
func (Protocol) Write(w io.Writer, ev session.Event, r session.Reply) (int, error) {
	resp := Respond(ev, r)
	if resp == nil {
		return 0, nil
	}
	return 0, session.WriteLine(w, resp)
}
