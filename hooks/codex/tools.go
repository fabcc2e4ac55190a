package codex

import (
	"strings"

	"github.com/planq-dev/planq/gate"
)

// ToolPrefix starts the name hooks and denials use for planq's own MCP
// tools: the model calls function jj_init in namespace mcp__planq, and hooks
// report it as mcp__planq__jj_init, the name a denial gives the model.
const ToolPrefix = "mcp__planq__"

// readOnlyTools are the names Codex 0.169 reports to PreToolUse for tools
// that change no file of the project: the plan, images, goals, questions to
// the user, web search, tool search, and the subagent tools (a subagent's
// own tool calls meet the gate themselves). Every other name that is not
// Bash, apply_patch or an MCP tool stays unknown, so the gate holds it back
// until the change is declared.
var readOnlyTools = map[string]bool{
	"update_plan": true, "view_image": true, "request_user_input": true,
	"web_search": true, "tool_search": true,
	"get_goal": true, "create_goal": true, "update_goal": true,
	"spawn_agent": true, "send_input": true, "resume_agent": true, "wait_agent": true, "close_agent": true,
	// Codex 0.169 names the multi_agent_v1 namespace's other tools without a
	// separator in hooks (seen: multi_agent_v1wait_agent).
	"multi_agent_v1send_input": true, "multi_agent_v1resume_agent": true, "multi_agent_v1wait_agent": true, "multi_agent_v1close_agent": true,
	"list_mcp_resources": true, "list_mcp_resource_templates": true, "read_mcp_resource": true,
}

// GateTool says what the tool Codex names in a hook does, for the gate:
// Bash runs tool_input.command in a shell, apply_patch applies the patch in
// tool_input.command, mcp__server__tool is an MCP tool (planq's when the
// server is planq), a few tools only read, and any other name is unknown.
func GateTool(name string) gate.Tool {
	switch name {
	case "Bash":
		return gate.Tool{Kind: gate.KindShell, Field: "command"}
	case "apply_patch":
		return gate.Tool{Kind: gate.KindPatch, Field: "command"}
	}
	if readOnlyTools[name] {
		return gate.Tool{Kind: gate.KindReadOnly}
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		server, tool, ok := strings.Cut(rest, "__")
		if ok && server != "" && tool != "" {
			return gate.Tool{Kind: gate.KindMCP, Server: server, MCPTool: tool}
		}
	}
	return gate.Tool{}
}
