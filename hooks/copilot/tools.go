package copilot

import (
	"strings"

	"github.com/planq-dev/planq/gate"
)

// ToolPrefix starts the name Copilot CLI gives the model (and hooks) for
// planq's own MCP tools: server "planq", then "-", then the tool, as in
// planq-jj_init (seen in the tools Copilot 1.0.102 sends the model, and in
// its hooks' tool_name).
const ToolPrefix = "planq-"

// readOnlyTools are the names Copilot CLI 1.0.102 reports to a PascalCase
// PreToolUse hook for tools that change no file of the project. Copilot
// renames some of its tools there (view is Read, glob is Glob, grep is
// Grep, task is Agent) and keeps the others' own names; both spellings are
// listed. Agent (task), write_agent and read_agent start or talk to
// subagents, whose own tool calls meet the gate themselves; sql and
// session_store_sql query Copilot's own session database; the *_bash tools
// read or stop a shell a gated bash call started. web_fetch and ask_user
// are listed by their documented names; were Copilot to rename them in
// hooks too, the new names would stay unknown (held until the change is
// declared), never let through.
var readOnlyTools = map[string]bool{
	"Read": true, "view": true, "Glob": true, "glob": true, "Grep": true, "grep": true,
	"web_fetch": true, "ask_user": true,
	"Agent": true, "task": true, "read_agent": true, "list_agents": true, "write_agent": true,
	"read_bash": true, "list_bash": true, "stop_bash": true,
	"sql": true, "session_store_sql": true, "skill": true, "fetch_copilot_cli_documentation": true,
}

// GateTool says what the tool Copilot names in a hook does, for the gate:
// Bash runs tool_input.command in bash; Write (create) and Edit (edit)
// write the file tool_input.path; a few tools only read; an MCP tool is
// server-tool (planq's when it is planq-<tool>); any other name, PowerShell
// among them (its commands are not bash, so the gate cannot judge them),
// is unknown, so the gate holds it back until the change is declared.
func GateTool(name string) gate.Tool {
	switch name {
	case "Bash", "bash":
		return gate.Tool{Kind: gate.KindShell, Field: "command"}
	case "Write", "create", "Edit", "edit":
		return gate.Tool{Kind: gate.KindEditor, Field: "path"}
	}
	if readOnlyTools[name] {
		return gate.Tool{Kind: gate.KindReadOnly}
	}
	if rest, ok := strings.CutPrefix(name, ToolPrefix); ok {
		if planqToolName(rest) {
			return gate.Tool{Kind: gate.KindMCP, Server: ServerName, MCPTool: rest}
		}
		if i := strings.LastIndex(name, "-"); i > len(ToolPrefix) && i < len(name)-1 {
			// Another server whose name starts with planq-: never planq's.
			return gate.Tool{Kind: gate.KindMCP, Server: name[:i], MCPTool: name[i+1:]}
		}
	}
	// Copilot's own tools are snake_case words; an MCP tool is
	// <server>-<tool>. A server name with a dash is split at its first dash:
	// the name then matches no read-only verb and counts as modifying.
	if server, tool, ok := strings.Cut(name, "-"); ok && server != "" && tool != "" {
		return gate.Tool{Kind: gate.KindMCP, Server: server, MCPTool: tool}
	}
	return gate.Tool{}
}

// planqToolName reports whether s can be one of planq's MCP tools: lower
// case letters and underscores, so planq-evil-jj_init (a server planq-evil)
// is never taken for planq's.
func planqToolName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return true
}
