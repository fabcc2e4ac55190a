package opencode

import (
	"strings"

	"github.com/planq-dev/planq/gate"
)

// ToolPrefix starts the name OpenCode gives planq's own MCP tools: server
// "planq", tool "jj_init" is "planq_jj_init" (OpenCode joins the sanitized
// server and tool names with "_").
const ToolPrefix = "planq_"

// tools are OpenCode 1.18.33's built-in tools, checked against the binary
// and a live run (NOTES.md), plus a few older names (list, todoread,
// codesearch, patch) so an older OpenCode is not ungated. The older
// multiedit is left out on purpose: each of its edits[] names its own file,
// which one path field cannot say, so it stays unknown and the gate holds it
// back until the change is declared.
var tools = map[string]gate.Tool{
	// Modifying. bash also takes "workdir" (the directory the command runs
	// in, relative to the project) and "timeout".
	"bash":        {Kind: gate.KindShell, Field: "command"},
	"write":       {Kind: gate.KindEditor, Field: "filePath"}, // + content
	"edit":        {Kind: gate.KindEditor, Field: "filePath"}, // + oldString, newString, replaceAll
	"apply_patch": {Kind: gate.KindPatch, Field: "patchText"}, // offered instead of edit and write to models whose id has "gpt-" (not gpt-4, not oss)
	"patch":       {Kind: gate.KindPatch, Field: "patchText"}, // older name

	// Read-only.
	"read":                        readOnly,
	"glob":                        readOnly,
	"grep":                        readOnly,
	"list":                        readOnly, // older versions
	"webfetch":                    readOnly,
	"websearch":                   readOnly,
	"codesearch":                  readOnly, // older versions
	"task":                        readOnly, // starts a subagent session; its own tool calls are gated
	"todowrite":                   readOnly, // the session's todo list, not a file
	"todoread":                    readOnly, // older versions
	"skill":                       readOnly,
	"question":                    readOnly, // asks the user (TUI, desktop)
	"lsp":                         readOnly, // OPENCODE_EXPERIMENTAL_LSP_TOOL
	"plan_exit":                   readOnly, // OPENCODE_EXPERIMENTAL_PLAN_MODE
	"invalid":                     readOnly, // what a malformed call becomes; returns an error text
	"execute":                     readOnly, // OPENCODE_EXPERIMENTAL_CODE_MODE: a script calling MCP tools, each gated on its own
	"list_mcp_resources":          readOnly,
	"list_mcp_resource_templates": readOnly,
	"read_mcp_resource":           readOnly,
}

// readOnly is a tool that modifies no file.
var readOnly = gate.Tool{Kind: gate.KindReadOnly}

// GateTool says what OpenCode's tool name does, for the gate: the built-in
// tools by the table (their kind and the argument that holds the command,
// path or patch text), planq's own MCP tools (planq_<tool>), and anything
// else unknown (other MCP servers' and plugins' tools: OpenCode's names do
// not say which server a tool is from; tools of other OpenCode versions).
func GateTool(name string) gate.Tool {
	if t, ok := tools[name]; ok {
		return t
	}
	if tool, ok := strings.CutPrefix(name, ToolPrefix); ok && tool != "" {
		return gate.Tool{Kind: gate.KindMCP, Server: "planq", MCPTool: tool}
	}
	return gate.Tool{}
}
