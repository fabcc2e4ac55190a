package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// Host is Gemini CLI, as the session core knows it: planq's tools are
// mcp_planq_<tool>, PreCompress fires before every model request,
// compacting or not, and a BeforeTool answer's tool_input is the input the
// call runs with (NOTES.md, "Rewriting a tool call").
var Host = session.Host{Name: "gemini", Display: "Gemini CLI", ToolPrefix: ToolPrefix, CompactEveryTurn: true, Rewrites: true}

// Gemini CLI's hook event names (hook_event_name) for planq's events.
const (
	EventBeforeTool   = "BeforeTool"
	EventAfterTool    = "AfterTool"
	EventSessionStart = "SessionStart"
	EventAfterAgent   = "AfterAgent"
	EventPreCompress  = "PreCompress"
	EventSessionEnd   = "SessionEnd"
)

// eventNames maps planq's events to Gemini CLI's.
var eventNames = session.EventNames{
	session.EventSessionStart: EventSessionStart,
	session.EventPreToolUse:   EventBeforeTool,
	session.EventPostToolUse:  EventAfterTool,
	session.EventPreCompact:   EventPreCompress,
	session.EventStop:         EventAfterAgent,
	session.EventSessionEnd:   EventSessionEnd,
}

// EventName is Gemini CLI's name for planq's event ("" for none).
func EventName(event string) string { return eventNames[event] }

// Input is the JSON Gemini CLI gives every hook on stdin (checked with
// 0.61.0): the fields all events share and those of each event planq
// handles. Fields an event does not carry stay zero; fields Gemini CLI adds
// later are ignored.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"` // ~/.gemini/tmp/<project>/chats/session-*.jsonl
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Timestamp      string `json:"timestamp"`

	// BeforeTool and AfterTool.
	ToolName            string          `json:"tool_name,omitempty"`
	ToolInput           json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse        json.RawMessage `json:"tool_response,omitempty"` // AfterTool: llmContent, returnDisplay, error
	MCPContext          json.RawMessage `json:"mcp_context,omitempty"`   // MCP tools: server_name, tool_name, command, args
	OriginalRequestName string          `json:"original_request_name,omitempty"`

	Source         string `json:"source,omitempty"`           // SessionStart: startup, resume, clear
	Reason         string `json:"reason,omitempty"`           // SessionEnd: exit, clear, logout, prompt_input_exit, other
	Trigger        string `json:"trigger,omitempty"`          // PreCompress: auto, manual
	Prompt         string `json:"prompt,omitempty"`           // AfterAgent
	PromptResponse string `json:"prompt_response,omitempty"`  // AfterAgent
	StopHookActive bool   `json:"stop_hook_active,omitempty"` // AfterAgent: this turn was asked for by an AfterAgent hook
}

// ParseInput decodes one hook input strictly (session.DecodeObject), with
// errors that say it was Gemini CLI's.
func ParseInput(data []byte) (Input, error) { return session.Decode[Input](data, Host.Display) }

// Protocol is Gemini CLI's hook protocol (session.Protocol).
type Protocol struct{}

// Host names Gemini CLI.
func (Protocol) Host() session.Host { return Host }

// Read decodes Gemini CLI's input for event. The project is
// GEMINI_PROJECT_DIR, which Gemini CLI sets for every hook (else the
// input's cwd); a run_shell_command's dir_path, relative to the project,
// becomes the call's working directory, so the gate judges the command where
// it runs.
func (Protocol) Read(event string, data []byte, getenv func(string) string) (session.Event, error) {
	ev := session.Event{Name: event, Host: Host, ProjectDir: getenv("GEMINI_PROJECT_DIR")}
	name, err := eventNames.Of(event, Host.Display)
	if err != nil {
		return ev, err
	}
	in, err := ParseInput(data)
	if err != nil {
		return ev, err
	}
	if err := session.CheckEventName(in.HookEventName, name, "planq mcp install --host gemini"); err != nil {
		return ev, err
	}
	ev.SessionID, ev.TranscriptPath, ev.Cwd = in.SessionID, in.TranscriptPath, in.Cwd
	ev.Source, ev.Trigger, ev.Reason, ev.StopHookActive = in.Source, in.Trigger, in.Reason, in.StopHookActive
	if ev.ProjectDir == "" {
		ev.ProjectDir = in.Cwd
	}
	if event != session.EventPreToolUse && event != session.EventPostToolUse {
		return withSubagentChats(ev), nil
	}
	if in.ToolName == "" {
		return ev, errors.New("hook input names no tool")
	}
	mcp, err := rawMCPContext(in.MCPContext)
	if err != nil {
		return ev, fmt.Errorf("hook input's mcp_context is malformed: %w", err)
	}
	ev.Call = &session.Call{Name: in.ToolName, Tool: GateToolWith(in.ToolName, mcp), Input: in.ToolInput, Failed: responseFailed(in.ToolResponse)}
	if ev.Call.Tool.Kind == gate.KindShell {
		if ev.Cwd, err = shellDir(ev.ProjectDir, in.Cwd, in.ToolInput); err != nil {
			return ev, err
		}
		if event == session.EventPreToolUse {
			call := ev
			ev.Call.HostJudges = func() bool { return !sandboxable(call, getenv) }
		}
	}
	return ev, nil
}

// sandboxable reports whether ev's run_shell_command may be rewritten to
// run in planq's sandbox; a call that may not reaches Gemini CLI as the
// model wrote it, with the parser-only verdict. Not when Gemini CLI would
// refuse the command itself ($(…), backticks: a rewrite would quote it past
// that check), nor when one of the user's shell rules names a program of
// it, or its policies or settings cannot be read (the policy engine judges
// the rewritten command, and the rule would stop applying).
func sandboxable(ev session.Event, getenv func(string) string) bool {
	command := ev.Call.Command()
	if refusesSubstitution(command) {
		return false
	}
	progs, err := shellRulePrograms(conffile.Options{Home: getenv("HOME"), Getenv: getenv, ProjectDir: ev.ProjectDir})
	return err == nil && !session.RuleJudges(command, progs)
}

// shellDir is the directory a run_shell_command runs in: its dir_path,
// resolved against the project (Gemini CLI's target directory), else the
// hook's cwd. The argument is read exactly, as the gate reads the command.
func shellDir(project, cwd string, input json.RawMessage) (string, error) {
	fields, err := gate.ExactFields(input, fieldDirPath)
	if err != nil {
		return "", fmt.Errorf("the run_shell_command input is ambiguous or malformed: %w", err)
	}
	raw, ok := fields[fieldDirPath]
	if !ok || string(raw) == "null" {
		return cwd, nil
	}
	var dir string
	if err := json.Unmarshal(raw, &dir); err != nil {
		return "", errors.New("the run_shell_command input's dir_path is not a string")
	}
	if dir == "" {
		return cwd, nil
	}
	if !filepath.IsAbs(dir) {
		base := project
		if base == "" {
			base = cwd
		}
		if !filepath.IsAbs(base) {
			return "", fmt.Errorf("run_shell_command's dir_path %q is relative and the project directory is unknown", dir)
		}
		dir = filepath.Join(base, dir)
	}
	return filepath.Clean(dir), nil
}

// responseFailed reports an AfterTool tool_response that says the call
// failed: its error is set.
func responseFailed(resp json.RawMessage) bool {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(resp, &r) != nil {
		return false
	}
	e := strings.TrimSpace(string(r.Error))
	return e != "" && e != "null" && e != "false" && e != `""`
}

// Output is what a hook prints on stdout for Gemini CLI: Claude Code's
// answer in the shape Codex and Gemini CLI share. Decision "deny" with
// Reason: BeforeTool blocks the call and the model gets "Tool execution
// blocked: <Reason>"; AfterAgent ("block") sends Reason to the model as a
// new user message. A nil *Output prints nothing: "carry on".
type Output = session.HookOutput

// SpecificOutput is the hookSpecificOutput object.
type SpecificOutput = session.HookSpecific

// Respond is Gemini CLI's answer to event carrying r; nil says nothing.
// BeforeTool denies with a decision and warns the user alone; the
// session's context and the nudge are Claude Code's (session.HookAnswer).
func Respond(event string, r session.Reply) *Output {
	switch event {
	case session.EventPreToolUse:
		switch {
		case r.Deny:
			return &Output{Decision: "deny", Reason: r.Reason}
		case r.Warn:
			return &Output{SystemMessage: r.Reason}
		}
	case session.EventSessionStart, session.EventStop:
		return session.HookAnswer(event, r)
	}
	return nil
}

// rewriteOutput is BeforeTool's answer that runs the call with other
// arguments: Gemini CLI replaces the call's input with ToolInput (it does
// not merge the two).
type rewriteOutput struct {
	Specific struct {
		HookEventName string          `json:"hookEventName"`
		ToolInput     json.RawMessage `json:"tool_input"`
	} `json:"hookSpecificOutput"`
}

// Write answers ev with r as Gemini CLI reads it: one line of JSON, or
// nothing, and exit status 0 (Gemini CLI reads stdout only then; exit 2
// blocks, and any other status lets the call through, so planq never uses
// one). A rewritten shell call is the whole tool_input with its command
// replaced.
func (Protocol) Write(w io.Writer, ev session.Event, r session.Reply) (int, error) {
	if ev.Name == session.EventPreToolUse && r.Command != "" && !r.Deny {
		in, err := session.RewrittenInput(ev, r.Command)
		if err == nil {
			var out rewriteOutput
			out.Specific.HookEventName, out.Specific.ToolInput = EventBeforeTool, in
			return 0, session.WriteLine(w, out)
		}
		r = session.RewriteFailed(ev, err)
	}
	out := Respond(ev.Name, r)
	if out == nil {
		return 0, nil
	}
	return 0, session.WriteLine(w, out)
}
