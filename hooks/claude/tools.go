package claude

import (
	"slices"
	"strings"

	"github.com/planq-dev/planq/gate"
)

// readOnlyTools are Claude Code's tools that only read, or change nothing in
// the repository (the todo list, plan mode, subagents whose own calls are
// gated): the gate allows them without reading anything, and install wires
// the tool hooks so that Claude Code starts no process for them.
var readOnlyTools = []string{
	"Read", "Glob", "Grep", "LS", "NotebookRead",
	"WebFetch", "WebSearch", "Task", "Agent",
	"TodoRead", "TodoWrite", "ExitPlanMode", "EnterPlanMode",
	"BashOutput", "KillBash", "KillShell", "TaskOutput", "TaskStop",
	"ListMcpResourcesTool", "ReadMcpResourceTool",
	"AskUserQuestion", "SlashCommand", "Skill", "ToolSearch", "LSP",
	// planq's worktree hooks make and forget jj workspaces, keeping every
	// change: entering or leaving one edits no file.
	"EnterWorktree", "ExitWorktree",
}

// ReadOnlyTools returns the tools the gate always lets through.
func ReadOnlyTools() []string { return slices.Clone(readOnlyTools) }

// GateTool says what Claude Code's tool name does, for the gate: Bash runs its
// command, the editors write file_path (notebook_path), mcp__server__tool is
// an MCP tool, and anything else is unknown. planq's server is "planq", or
// "plugin_…_planq" when planq comes as a Claude Code plugin.
func GateTool(name string) gate.Tool {
	switch name {
	case "Bash":
		return gate.Tool{Kind: gate.KindShell, Field: "command"}
	case "Write", "Edit", "MultiEdit":
		return gate.Tool{Kind: gate.KindEditor, Field: "file_path"}
	case "NotebookEdit":
		return gate.Tool{Kind: gate.KindEditor, Field: "notebook_path"}
	}
	if slices.Contains(readOnlyTools, name) {
		return gate.Tool{Kind: gate.KindReadOnly}
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		server, tool, _ := strings.Cut(rest, "__")
		if strings.HasSuffix(server, "_planq") {
			server = "planq"
		}
		return gate.Tool{Kind: gate.KindMCP, Server: server, MCPTool: tool}
	}
	return gate.Tool{}
}

// GatedTools is the tool matcher of the PreToolUse and PostToolUse hooks:
// every tool except the read-only ones, so Claude Code starts no planq
// process for a Read or a Grep. Claude Code reads a matcher with regex
// characters as an unanchored JavaScript regex; a tool it has never heard of
// still matches, and so is still gated.
var GatedTools = notOneOf(readOnlyTools)

// AfterTools is the tool matcher of the PostToolUse hook: the gated tools,
// and the tools that run subagents, whose workspaces planq reports when
// they are done.
var AfterTools = notOneOf(slices.DeleteFunc(slices.Clone(readOnlyTools), func(t string) bool { return slices.Contains(subagentTools, t) }))

// notOneOf is a matcher for every tool name but those listed.
func notOneOf(names []string) string { return "^(?!(?:" + strings.Join(names, "|") + ")$)" }
