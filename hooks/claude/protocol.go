package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/planq-dev/planq/hooks/session"
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

	// WorktreeCreate names the worktree: name (2.1.197), worktree_name in
	// some versions before; base_path is the repo it is made from where a
	// version sends one. WorktreeRemove gives its path.
	Name         string `json:"name,omitempty"`
	WorktreeName string `json:"worktree_name,omitempty"`
	BasePath     string `json:"base_path,omitempty"`
	WorktreePath string `json:"worktree_path,omitempty"`
	PromptID     string `json:"prompt_id,omitempty"`
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
	EventWorktreeCreate   = "WorktreeCreate"
	EventWorktreeRemove   = "WorktreeRemove"
)

// MaxInputSize bounds the hook input read from stdin; a Write of a large file
// or a long tool response can make it big, but never this big.
const MaxInputSize = session.MaxInputSize

// ReadInput reads one hook input from r. It is strict about the shape — one
// JSON object, nothing after it, known fields of the right type, at most
// MaxInputSize bytes, no key twice and none that differs from a known one
// only in case (Go's decoder would take it; Claude Code's would not) — and
// tolerant of fields it does not know. Errors are one line, naming the
// problem.
func ReadInput(r io.Reader) (Input, error) {
	data, err := session.ReadInput(r)
	if err != nil {
		return Input{}, err
	}
	return parseInput(data)
}

// parseInput is ReadInput on the bytes read (session.DecodeObject), with
// errors that say it was Claude Code's input.
func parseInput(data []byte) (Input, error) { return session.Decode[Input](data, Host.Display) }

// Expect checks that the input is for event: it is an error when
// hook_event_name names another event (a hook wired to the wrong event).
// An input without a name is taken to be for event.
func (in Input) Expect(event string) error {
	return session.CheckEventName(in.HookEventName, event, "planq mcp install")
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
type SpecificResponse = session.HookSpecific

// WriteResponse prints r as one line of JSON; a nil r prints nothing.
func WriteResponse(w io.Writer, r *Response) error {
	if r == nil {
		return nil
	}
	return session.WriteLine(w, r)
}

// DenyToolUse is a PreToolUse response that denies the call; reason goes to
// the model.
func DenyToolUse(reason string) *Response {
	return Respond(session.EventPreToolUse, session.Reply{Deny: true, Reason: reason})
}

// WarnToolUse is a PreToolUse response that lets the call through (the usual
// permission flow continues) with a warning for the user and the model.
func WarnToolUse(warning string) *Response {
	return Respond(session.EventPreToolUse, session.Reply{Warn: true, Reason: warning})
}

// Host is Claude Code, as the session core knows it.
var Host = session.Host{Name: "claude", Display: "Claude Code", ToolPrefix: "mcp__planq__", Rewrites: true}

// eventNames maps planq's events to Claude Code's hook_event_name.
var eventNames = session.EventNames{
	session.EventSessionStart: EventSessionStart,
	session.EventPreToolUse:   EventPreToolUse,
	session.EventPostToolUse:  EventPostToolUse,
	session.EventPreCompact:   EventPreCompact,
	session.EventStop:         EventStop,
	session.EventSessionEnd:   EventSessionEnd,

	session.EventWorktreeCreate: EventWorktreeCreate,
	session.EventWorktreeRemove: EventWorktreeRemove,
}

// Protocol is Claude Code's hook protocol (session.Protocol).
type Protocol struct{}

// Host names Claude Code.
func (Protocol) Host() session.Host { return Host }

// Read decodes Claude Code's input for event. The project is
// CLAUDE_PROJECT_DIR, which Claude Code sets for every hook.
func (Protocol) Read(event string, data []byte, getenv func(string) string) (session.Event, error) {
	ev := session.Event{Name: event, Host: Host, ProjectDir: getenv("CLAUDE_PROJECT_DIR")}
	name, err := eventNames.Of(event, Host.Display)
	if err != nil {
		return ev, err
	}
	in, err := parseInput(data)
	if err == nil {
		err = in.Expect(name)
	}
	if err != nil {
		return ev, err
	}
	return in.Event(event, ev.ProjectDir), nil
}

// Resolve reads what Claude Code keeps beside its input
// (session.Resolver): the subagents' transcripts of a session whose
// transcript stop, pre-compact and session-end copy, and for
// worktree-create its worktree.baseRef setting.
func (Protocol) Resolve(ev session.Event, getenv func(string) string) (session.Event, error) {
	switch ev.Name {
	case session.EventStop, session.EventPreCompact, session.EventSessionEnd:
		ev.SubTranscripts = SubagentFiles(ev.TranscriptPath)
	case session.EventWorktreeCreate:
		if ev.Worktree != nil {
			ev.Worktree.Base = BaseRef(ev.Dir(), getenv)
		}
	}
	return ev, nil
}

// Event is in as a host-neutral event of kind event, in project projectDir:
// what the input says (Protocol.Resolve adds what Claude Code keeps on disk).
func (in Input) Event(event, projectDir string) session.Event {
	ev := session.Event{
		Name: event, Host: Host, ProjectDir: projectDir,
		SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd,
		Source: in.Source, Trigger: in.Trigger, Reason: in.Reason, StopHookActive: in.StopHookActive,
		PermissionMode: in.PermissionMode,
	}
	if in.ToolName != "" {
		ev.Call = &session.Call{Name: in.ToolName, Tool: GateTool(in.ToolName), Input: in.ToolInput, Failed: responseIsError(in.ToolResponse),
			Subagent: slices.Contains(subagentTools, in.ToolName)}
	}
	switch event {
	case session.EventWorktreeCreate:
		name := in.Name
		if name == "" {
			name = in.WorktreeName
		}
		if in.BasePath != "" && filepath.IsAbs(in.BasePath) {
			ev.Cwd = in.BasePath
		}
		ev.Worktree = &session.Worktree{Name: name, Subagent: subagentWorktree().MatchString(name)}
	case session.EventWorktreeRemove:
		path := in.WorktreePath
		if path == "" {
			path = in.Cwd
		}
		ev.Worktree = &session.Worktree{Path: path}
	}
	return ev
}

// subagentTools are the tools that run a subagent.
var subagentTools = []string{"Agent", "Task"}

// subagentWorktree is the name Claude Code gives the worktree of a
// subagent started with isolation "worktree": agent-<its id>.
var subagentWorktree = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^agent-[0-9a-zA-Z]+$`) })

// BaseRef is Claude Code's worktree.baseRef setting as it applies in
// projectDir (the local settings over the project's over the user's):
// session.BaseHead for "head", else session.BaseFresh, its default.
func BaseRef(projectDir string, getenv func(string) string) string {
	for _, f := range settingsFiles(projectDir, getenv) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s struct {
			Worktree struct {
				BaseRef string `json:"baseRef"`
			} `json:"worktree"`
		}
		if json.Unmarshal(data, &s) != nil || s.Worktree.BaseRef == "" {
			continue
		}
		if s.Worktree.BaseRef == "head" {
			return session.BaseHead
		}
		return session.BaseFresh
	}
	return session.BaseFresh
}

// Write answers ev with r as Claude Code reads it: a PreToolUse permission
// decision, SessionStart's additional context, or Stop's block with the
// nudge as the reason. It always exits 0.
//
// worktree-create answers with the workspace's directory alone on a line
// (Claude Code takes the last line as the path), and exit status 1 when
// there is none.
func (Protocol) Write(w io.Writer, ev session.Event, r session.Reply) (int, error) {
	if ev.Name == session.EventWorktreeCreate {
		if r.Path == "" {
			return 1, errors.New("no workspace was made")
		}
		_, err := fmt.Fprintln(w, r.Path)
		return 0, err
	}
	if ev.Name == session.EventPreToolUse && r.Command != "" {
		return 0, WriteResponse(w, RewriteToolUse(ev, r.Command, os.Getenv))
	}
	return 0, WriteResponse(w, Respond(ev.Name, r))
}

// RewriteToolUse is the PreToolUse response that runs command instead of
// ev's shell call: hookSpecificOutput.updatedInput is the call's input with
// its command replaced. Claude Code judges the updated input against the
// user's permission rules and mode [run], so the original is judged here
// against the same rules (approvalOf): a deny rule denies, an ask rule
// asks, an allow rule allows, and otherwise Claude Code's mode decides on
// the rewritten command, as it would have on the original (bypass and auto
// sessions are unchanged; default mode asks).
func RewriteToolUse(ev session.Event, command string, getenv func(string) string) *Response {
	if ev.Call == nil {
		return DenyToolUse("planq gate: blocked this call: the hook input names no tool call to rewrite.")
	}
	field := ev.Call.Tool.Field
	in, err := session.ReplaceInput(ev.Call.Input, field, command)
	if err != nil {
		return DenyToolUse("planq gate: blocked this " + ev.Call.Name + " call: " + err.Error() + ", so it cannot be run in the OS sandbox.")
	}
	original := ev.Call.Command()
	dir := ev.ProjectDir
	if dir == "" {
		dir = ev.Cwd
	}
	spec := &SpecificResponse{HookEventName: EventPreToolUse, UpdatedInput: in}
	switch a := approvalOf(original, dir, getenv); a.decision {
	case "deny":
		return DenyToolUse("Permission to use " + ev.Call.Name + " with command " + original + " has been denied by the rule " + a.rule + " in your Claude Code settings.")
	case "ask":
		spec.PermissionDecision = "ask"
		spec.PermissionDecisionReason = "planq runs this command in the OS sandbox, the project read-only until the change is declared; your rule " + a.rule + " asks about it"
	case "allow":
		spec.PermissionDecision = "allow"
		spec.PermissionDecisionReason = "planq runs this command in the OS sandbox, the project read-only until the change is declared; your rule " + a.rule + " allows it"
	}
	return &Response{Specific: spec}
}

// Respond is Claude Code's response to event carrying r
// (session.HookAnswer, in Claude Code's own envelope); nil says nothing.
func Respond(event string, r session.Reply) *Response {
	a := session.HookAnswer(event, r)
	if a == nil {
		return nil
	}
	return &Response{SystemMessage: a.SystemMessage, Decision: a.Decision, Reason: a.Reason, Specific: a.Specific}
}

// responseIsError reports a tool response that says the call failed.
func responseIsError(resp json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
		IsErr2  bool `json:"is_error"`
	}
	return json.Unmarshal(resp, &r) == nil && (r.IsError || r.IsErr2)
}
