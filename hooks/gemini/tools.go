package gemini

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/mcp/toolnames"
)

// ToolPrefix starts the name Gemini CLI gives planq's own MCP tools: server
// "planq", tool "jj_init" is "mcp_planq_jj_init" (mcp_<server>_<tool>).
const ToolPrefix = "mcp_planq_"

// The argument names Gemini CLI 0.61.0's tools take (its tool schemas).
const (
	fieldCommand  = "command"   // run_shell_command: the command line
	fieldDirPath  = "dir_path"  // run_shell_command: the directory it runs in, relative to the project
	fieldFilePath = "file_path" // write_file, replace: the file written
)

// readOnlyTools are Gemini CLI's built-in tools that change no file of the
// project: reading and searching, the web, the todo list and the task
// tracker (kept in ~/.gemini/tmp), plan mode (its plan files live under
// ~/.gemini/tmp), skills, topics, questions to the user, the background
// shells' output (the commands themselves ran through run_shell_command and
// were gated there) and MCP resources. The gate lets them through without
// reading anything, and install wires the tool hooks so that Gemini CLI
// starts no process for them. invoke_agent is left out on purpose: a
// subagent's own tool calls are gated, but planq cannot tell what an agent
// does from its name, so it stays unknown and is held until the change is
// declared.
var readOnlyTools = []string{
	"read_file", "read_many_files", "list_directory", "glob", "grep_search",
	"web_fetch", "google_web_search", "get_internal_docs",
	"write_todos", "update_topic", "complete_task", "ask_user", "activate_skill",
	"enter_plan_mode", "exit_plan_mode",
	"list_background_processes", "read_background_output",
	"list_mcp_resources", "read_mcp_resource",
	"tracker_create_task", "tracker_update_task", "tracker_get_task",
	"tracker_list_tasks", "tracker_add_dependency", "tracker_visualize",
}

// ReadOnlyTools returns the tools the gate always lets through.
func ReadOnlyTools() []string { return slices.Clone(readOnlyTools) }

// GatedTools is the tool matcher of the BeforeTool and AfterTool hooks: every
// tool except the read-only ones. Gemini CLI reads a tool matcher as an
// unanchored JavaScript regex (new RegExp(matcher).test(name)), so a tool it
// adds later still matches, and so is still gated.
var GatedTools = "^(?!(?:" + strings.Join(readOnlyTools, "|") + ")$)"

// MCPContext is the mcp_context object Gemini CLI adds to the input of a tool
// hook for an MCP tool: the server and the tool as the server names them.
type MCPContext struct {
	ServerName string `json:"server_name"`
	ToolName   string `json:"tool_name"`
}

// GateTool says what Gemini CLI's tool name does, for the gate, when the
// host gives no mcp_context (GateToolWith): the built-in tools by the
// table, planq's own tools, and anything else unknown.
func GateTool(name string) gate.Tool { return GateToolWith(name, nil) }

// GateToolWith says what a tool call does, for the gate: run_shell_command runs
// its command, write_file and replace write file_path, the read-only tools
// only read, and an MCP tool mcp_<server>_<tool> is the MCP tool mcp's
// context names, when the name is exactly what Gemini CLI makes of that
// context. Without a context only planq's own tools are recognised:
// mcp_<server>_<tool> cannot be split when the server's name has an
// underscore, so any other name stays unknown and the gate holds it.
func GateToolWith(name string, mcp *MCPContext) gate.Tool {
	switch name {
	case "run_shell_command":
		return gate.Tool{Kind: gate.KindShell, Field: fieldCommand}
	case "write_file", "replace":
		return gate.Tool{Kind: gate.KindEditor, Field: fieldFilePath}
	}
	if slices.Contains(readOnlyTools, name) {
		return gate.Tool{Kind: gate.KindReadOnly}
	}
	if mcp != nil {
		if mcp.ServerName != "" && mcp.ToolName != "" && name == "mcp_"+mcp.ServerName+"_"+mcp.ToolName {
			return gate.Tool{Kind: gate.KindMCP, Server: mcp.ServerName, MCPTool: mcp.ToolName}
		}
		return gate.Tool{}
	}
	if tool, ok := strings.CutPrefix(name, ToolPrefix); ok && slices.Contains(toolnames.All(), tool) {
		return gate.Tool{Kind: gate.KindMCP, Server: ServerName, MCPTool: tool}
	}
	return gate.Tool{}
}

// rawMCPContext decodes an mcp_context value exactly (gate.ExactFields: no
// key twice, none differing from a known one only in case); nil when absent
// or null.
func rawMCPContext(raw json.RawMessage) (*MCPContext, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	fields, err := gate.ExactFields(raw, "server_name", "tool_name")
	if err != nil {
		return nil, err
	}
	var c MCPContext
	for key, dst := range map[string]*string{"server_name": &c.ServerName, "tool_name": &c.ToolName} {
		if v, ok := fields[key]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return nil, fmt.Errorf("%s is not a string", key)
			}
		}
	}
	return &c, nil
}
