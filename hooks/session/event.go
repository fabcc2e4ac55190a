// Package session is the light, host-neutral half of planq's session core:
// the events planq handles whatever agent host sends them (Event, Reply),
// the hook protocol each host adapter implements (Protocol) and the JSON
// hook shape Claude Code defined that other hosts adopted (hookjson.go,
// decode.go), where a session's records live and how a session is bound
// to its lineage of jj changes (Scope), the gate's verdict on a tool call
// (pretooluse.go: PreToolUse) and the rewrite of a locked shell call into
// the OS sandbox (rewrite.go), the post-tool-use answer (posttooluse.go:
// PostToolUse, which records the files a call touched and the lineage
// after jj moved, RecordToolUse, and says what subagents did in their
// workspaces, workspace.go), the tool hooks' whole process (serve.go:
// RunPreToolUse, RunPostToolUse) and the hooks' local metrics
// (metrics.go). It links nothing heavier than the gate, jj, the transcript
// store and the metrics recorder, so the planq-hook binary, which serves
// the tool hooks on every tool call, starts fast. The rest of the core
// (session-start context, the living-summary nudge, compaction, session
// end, the worktree events) is package hooks.
package session

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/planq-dev/planq/gate"
)

// The session events planq handles, named as `planq hook <event>` takes them.
const (
	EventSessionStart = "session-start" // a session starts, resumes or was compacted: give it context
	EventPreToolUse   = "pre-tool-use"  // a tool is about to run: the gate's verdict
	EventPostToolUse  = "post-tool-use" // a tool ran: record the files it touched
	EventPreCompact   = "pre-compact"   // the host is about to compact: keep the transcript
	EventStop         = "stop"          // the agent's turn ends: the living-summary nudge
	EventSessionEnd   = "session-end"   // the session ends: keep the transcript, log it
)

// Events lists the events in the order a session meets them.
var Events = []string{EventSessionStart, EventPreToolUse, EventPostToolUse, EventPreCompact, EventStop, EventSessionEnd}

// The workspace events: a host that runs parallel agents in worktrees of
// its own (Claude Code's --worktree, EnterWorktree, subagents with worktree
// isolation) asks planq to make each one a jj workspace, and to remove it.
const (
	EventWorktreeCreate = "worktree-create" // make a workspace; answer its directory
	EventWorktreeRemove = "worktree-remove" // forget a workspace; its change stays
)

// Host is what the core needs to know of the agent host an event comes from.
type Host struct {
	Name       string // the --host value: "claude", "opencode"
	Display    string // the host's name for people: "Claude Code"
	ToolPrefix string // how the host shows planq's MCP tools to the model: "mcp__planq__", "planq_"
	// CompactContext says the host takes context into its compaction
	// (OpenCode), so pre-compact answers with the session's context.
	CompactContext bool
	// CompactEveryTurn says the host fires pre-compact before every model
	// request, whether it then compacts or not, and waits for it (Gemini
	// CLI's PreCompress): pre-compact then only copies the transcript's new
	// lines, cheaply and idempotently, and logs no compaction.
	CompactEveryTurn bool
	// Rewrites says the host runs a shell command the pre-tool-use hook
	// rewrote (Reply.Command), as verified against its CLI: then locked
	// shell calls run in the OS sandbox where the machine has one. A host
	// without it keeps the parser-only gate.
	Rewrites bool
	// Shell is the shell the host runs every shell command with, as it
	// names it ("/bin/bash"), when that is known and its shell execs the
	// last command of a string (so the sandbox's entry point cannot see
	// which shell started it); "" leaves the entry point to find it.
	Shell string
	// EntryByName says the host asks before running a command that holds
	// a path outside the project (Copilot CLI's path check, which would ask
	// about the sandbox entry point's own path on every locked call): the
	// rewrite names the entry point by its bare name where the shell's PATH
	// finds that very file (sandbox.ByName).
	EntryByName bool
}

// Tool spells planq's MCP tool name the way the host shows it to the model.
func (h Host) Tool(name string) string { return h.ToolPrefix + name }

// Event is one hook event, host-neutral.
type Event struct {
	Name string // one of the Event* constants
	Host Host
	// SessionID is the host's session id; ParentID, when set, is the
	// session that started this one as a subagent, whose lineage it shares.
	SessionID, ParentID string
	// TranscriptPath is the session's transcript as JSON Lines: the host's
	// own file, or the mirror its adapter keeps.
	TranscriptPath string
	// SubTranscripts are more transcripts of the session that the host
	// keeps apart, to be kept with it: Claude Code's subagents' files.
	// Adapters fill it for the events that copy transcripts only.
	SubTranscripts []string
	Cwd            string // the tool's or session's working directory
	// ProjectDir is the session's project as the host names it
	// (CLAUDE_PROJECT_DIR, the plugin's directory); empty means Cwd.
	ProjectDir     string
	Source         string // session-start: startup, resume, clear or compact
	Trigger        string // pre-compact: manual or auto
	Reason         string // session-end: why it ended
	StopHookActive bool   // stop: the host already continues because a stop hook asked
	Call           *Call  // pre-tool-use and post-tool-use
	// PermissionMode is the host's permission mode for the call, as its
	// hook input names it (Claude Code: default, acceptEdits, plan, auto,
	// dontAsk, bypassPermissions): a rewritten call must be approved the
	// way the original would have been.
	PermissionMode string
	// Worktree is the workspace of a worktree-create or worktree-remove.
	Worktree *Worktree
	// Messages are the session's messages when the host sends them in the
	// hook's input instead of keeping a transcript file (OpenCode's
	// plugin, at stop and pre-compact): the adapter's Resolve keeps them
	// in planq's mirror of the transcript, which becomes TranscriptPath.
	Messages json.RawMessage
}

// Worktree is the workspace a host asks planq to make or remove.
type Worktree struct {
	Name string // worktree-create: the name the host gave it
	Path string // worktree-remove: its directory
	// Base is where a new workspace's change starts: BaseFresh or
	// BaseHead, as the host's settings say.
	Base string
	// Subagent says a subagent of the session asks, for work of its own
	// on top of the session's change.
	Subagent bool
}

// Where a new workspace's change starts.
const (
	BaseFresh = "fresh" // on trunk(): the remote's default branch
	BaseHead  = "head"  // on the creating session's working-copy change
)

// Owner is the session whose lineage the event belongs to: the parent of a
// subagent session, else the session itself.
func (e Event) Owner() string {
	if e.ParentID != "" {
		return e.ParentID
	}
	return e.SessionID
}

// Call is the tool call of a pre-tool-use or post-tool-use event.
type Call struct {
	Name   string          // the tool's name as the host spells it
	Tool   gate.Tool       // what it does, from the host adapter's tool table
	Input  json.RawMessage // its arguments, a JSON object
	Failed bool            // post-tool-use: the host says the call failed
	// Subagent says the call ran subagents (Claude Code's Agent tool),
	// which may have worked in workspaces of their own.
	Subagent bool
	// HostJudges, set by an adapter for a shell call, reports whether the
	// host's own permission rules would judge the call (a rule names one
	// of its programs, or the rules cannot be read): the host judges them
	// on the command it runs, so a rewrite into the sandbox would slip past
	// them. Such a call keeps the parser-only verdict, as the model wrote
	// it. The core asks only about a call it would rewrite, so an adapter
	// reads its rule files only then.
	HostJudges func() bool
}

// Reply is the core's answer to an event, which the adapter writes in its
// host's protocol. The zero Reply lets everything carry on silently.
type Reply struct {
	Deny bool // pre-tool-use: block the call; Reason goes to the model
	Warn bool // pre-tool-use: let it through with Reason as a warning
	// Command, in pre-tool-use, lets a shell call through on condition that
	// the host runs this command instead of the call's own: the original
	// inside the OS sandbox (gate.Decision.Command). Only for a host that
	// Rewrites.
	Command string
	Reason  string // why
	Context string // session-start, pre-compact, post-tool-use: text for the model's context
	Nudge   string // stop: ask the model for one more turn with this prompt
	Path    string // worktree-create: the workspace's directory
}

// Protocol is one host's hook protocol: what a hook reads on stdin and how
// it answers.
type Protocol interface {
	// Host names the host.
	Host() Host
	// Read decodes the input of one event, strictly: an input the host
	// would read differently from planq is an error. It reads nothing
	// else: what an event needs from the disk is a Resolver's.
	Read(event string, input []byte, getenv func(string) string) (Event, error)
	// Write answers ev with r the way the host reads it and returns the
	// hook process's exit status.
	Write(w io.Writer, ev Event, r Reply) (int, error)
}

// Resolver is a Protocol whose events need more than the hook's input: what
// the host keeps on disk (Codex's rollout names the session's project and a
// subagent's thread) or what planq keeps for it (OpenCode's transcript
// mirror). Resolve runs after Read decoded the input and before the
// handler (ReadEvent), so Read only decodes. On an error it returns the
// event as far as it got, for the error's answer.
type Resolver interface {
	Resolve(ev Event, getenv func(string) string) (Event, error)
}

// ReadEvent is the step every hook takes before its handler: proto decodes
// the input of event (Read), then, when it is a Resolver, resolves what
// the input leaves to the disk (Resolve).
func ReadEvent(proto Protocol, event string, data []byte, getenv func(string) string) (Event, error) {
	ev, err := proto.Read(event, data, getenv)
	if err != nil {
		return ev, err
	}
	if r, ok := proto.(Resolver); ok {
		return r.Resolve(ev, getenv)
	}
	return ev, nil
}

// WriteLine writes v to w as one line of JSON: how every host's hook
// answer is printed.
func WriteLine(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode hook output: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("write hook output: %w", err)
	}
	return nil
}
