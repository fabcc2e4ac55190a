package codex

import (
	"encoding/json"
	"io"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
)

// Host is Codex CLI, as the session core knows it. It rewrites: a
// PreToolUse answer's updatedInput, with permissionDecision "allow", is the
// command Codex runs (NOTES.md, "Rewriting a tool call").
var Host = session.Host{Name: "codex", Display: "Codex CLI", ToolPrefix: ToolPrefix, Rewrites: true}

// Hook event names, as Codex spells them in hook_event_name and hooks.json.
const (
	EventPreToolUse   = "PreToolUse"
	EventPostToolUse  = "PostToolUse"
	EventSessionStart = "SessionStart"
	EventPreCompact   = "PreCompact"
	EventStop         = "Stop"
	EventSessionEnd   = "SessionEnd"
	EventSubagentStop = "SubagentStop" // served as planq's stop: a subagent's turn ended
)

// eventNames maps planq's events to Codex's hook_event_name: Claude Code's
// names.
var eventNames = session.ClaudeEventNames()

// Input is the JSON Codex 0.169 gives a command hook on stdin (Claude
// Code's shape plus turn_id and model); fields an event does not carry stay
// zero, fields Codex adds later are ignored.
type Input struct {
	SessionID      string `json:"session_id"`
	TurnID         string `json:"turn_id,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"` // the session's rollout, JSON Lines; null for an ephemeral session
	Cwd            string `json:"cwd"`                       // the session's directory; for Bash, the command's workdir
	HookEventName  string `json:"hook_event_name"`
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`

	ToolName     string          `json:"tool_name,omitempty"`     // PreToolUse, PostToolUse
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`    // {"command": …} for Bash and apply_patch
	ToolUseID    string          `json:"tool_use_id,omitempty"`   // the model's call id
	ToolResponse json.RawMessage `json:"tool_response,omitempty"` // PostToolUse: a string (Bash, apply_patch) or an MCP result

	Source               string `json:"source,omitempty"`                 // SessionStart: startup, resume, clear, compact
	Trigger              string `json:"trigger,omitempty"`                // PreCompact: manual, auto
	StopHookActive       bool   `json:"stop_hook_active,omitempty"`       // Stop: this turn continues because a Stop hook asked
	LastAssistantMessage string `json:"last_assistant_message,omitempty"` // Stop
	Reason               string `json:"reason,omitempty"`                 // SessionEnd
	Prompt               string `json:"prompt,omitempty"`                 // UserPromptSubmit
	AgentTranscriptPath  string `json:"agent_transcript_path,omitempty"`  // SubagentStop: the subagent's rollout

	// A subagent's events: its thread, and its kind; session_id is then
	// the session it belongs to.
	AgentID   string `json:"agent_id,omitempty"`
	AgentType string `json:"agent_type,omitempty"`
}

// Protocol is Codex's hook protocol (session.Protocol).
type Protocol struct{}

// Host names Codex CLI.
func (Protocol) Host() session.Host { return Host }

// Read decodes Codex's input for event. Codex gives a hook the session's
// directory as cwd, but a Bash call's cwd is the command's workdir; the
// session's project is the cwd its rollout (transcript_path) starts with,
// which Resolve reads (without a rollout, PLANQ_PROJECT_DIR). A
// subagent's hooks carry its thread as agent_id and its own rollout, but
// the session it belongs to as session_id: the event is then the
// subagent's thread with that session as its parent, whose lineage it
// shares.
func (Protocol) Read(event string, data []byte, getenv func(string) string) (session.Event, error) {
	ev := session.Event{Name: event, Host: Host}
	name, err := eventNames.Of(event, "Codex")
	if err != nil {
		return ev, err
	}
	in, err := session.Decode[Input](data, Host.Display)
	if err != nil {
		return ev, err
	}
	if event == session.EventStop && in.HookEventName == EventSubagentStop {
		// A subagent's stop: its transcript is agent_transcript_path.
		name, in.TranscriptPath = EventSubagentStop, in.AgentTranscriptPath
	}
	if err := session.CheckEventName(in.HookEventName, name, "planq mcp install --host codex"); err != nil {
		return ev, err
	}
	if err := session.RequireSession("Codex's hook input", in.SessionID, in.Cwd); err != nil {
		return ev, err
	}
	ev.SessionID, ev.TranscriptPath, ev.Cwd = in.SessionID, in.TranscriptPath, in.Cwd
	ev.Source, ev.Trigger, ev.Reason, ev.StopHookActive = in.Source, in.Trigger, in.Reason, in.StopHookActive
	if in.AgentID != "" && in.AgentID != in.SessionID {
		ev.SessionID, ev.ParentID = in.AgentID, in.SessionID
	}
	if in.TranscriptPath == "" {
		ev.ProjectDir = getenv("PLANQ_PROJECT_DIR")
	}
	ev.PermissionMode = in.PermissionMode
	if in.ToolName != "" {
		ev.Call = &session.Call{Name: in.ToolName, Tool: GateTool(in.ToolName), Input: in.ToolInput, Failed: responseIsError(in.ToolResponse)}
	}
	return ev, nil
}

// Resolve reads what Codex's input leaves to its rollout
// (session.Resolver): the session's project, the cwd the rollout's
// session record names, and, when no agent_id named the subagent, whether
// the rollout is a subagent's thread (its id differs from session_id, or
// it names a parent thread). A shell call's check of the user's execpolicy
// rules (sandboxable) is set here, once the project is known.
func (Protocol) Resolve(ev session.Event, getenv func(string) string) (session.Event, error) {
	if ev.TranscriptPath != "" {
		meta, err := readMeta(ev.TranscriptPath)
		if err != nil {
			return ev, err
		}
		ev.ProjectDir = meta.Cwd
		switch {
		case ev.ParentID != "":
			// agent_id named the subagent's thread already.
		case meta.ID != "" && meta.ID != ev.SessionID:
			// A subagent's thread: Codex reports the session it belongs
			// to, whose lineage it shares, as session_id.
			ev.SessionID, ev.ParentID = meta.ID, ev.SessionID
		case meta.Parent != "" && meta.Parent != ev.SessionID:
			ev.ParentID = meta.Parent
		}
	}
	if ev.Name == session.EventPreToolUse && ev.Call != nil && ev.Call.Tool.Kind == gate.KindShell {
		call := ev
		ev.Call.HostJudges = func() bool { return !sandboxable(call, getenv) }
	}
	return ev, nil
}

// sandboxable reports whether ev's shell call may be rewritten to run in
// planq's sandbox: not when its command names a program one of the user's
// execpolicy rules is about (or a rules file cannot be read), since Codex
// judges its rules on the rewritten command and they would stop applying.
// Such a call keeps the parser-only gate.
func sandboxable(ev session.Event, getenv func(string) string) bool {
	project := ev.ProjectDir
	if project == "" {
		project = ev.Cwd
	}
	progs, err := rulePrograms(rulesDirs(userDir(getenv, getenv("HOME")), project, ev.Cwd))
	return err == nil && !session.RuleJudges(ev.Call.Command(), progs)
}

// responseIsError reports an MCP tool response that says the call failed.
func responseIsError(resp json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return len(resp) > 0 && resp[0] == '{' && json.Unmarshal(resp, &r) == nil && r.IsError
}

// Response is what a hook prints on stdout for Codex: Claude Code's
// answer in the shape Codex and Gemini CLI share.
type Response = session.HookOutput

// SpecificResponse is the hookSpecificOutput object.
type SpecificResponse = session.HookSpecific

// Respond is Codex's response to event carrying r (session.HookAnswer);
// nil says nothing. post-tool-use's context, the workspaces of Claude
// Code's subagents, is not Codex's.
func Respond(event string, r session.Reply) *Response {
	if event == session.EventPostToolUse {
		return nil
	}
	return session.HookAnswer(event, r)
}

// Write answers ev with r as Codex reads it; it always exits 0. A
// rewritten shell call is updatedInput paired with permissionDecision
// "allow": without the allow Codex drops the updatedInput and runs the
// model's command.
func (Protocol) Write(w io.Writer, ev session.Event, r session.Reply) (int, error) {
	if ev.Name == session.EventPreToolUse && r.Command != "" && !r.Deny {
		in, err := session.RewrittenInput(ev, r.Command)
		if err == nil {
			return 0, session.WriteLine(w, &Response{Specific: &SpecificResponse{HookEventName: EventPreToolUse, PermissionDecision: "allow", UpdatedInput: in}})
		}
		r = session.RewriteFailed(ev, err)
	}
	resp := Respond(ev.Name, r)
	if resp == nil {
		return 0, nil
	}
	return 0, session.WriteLine(w, resp)
}
