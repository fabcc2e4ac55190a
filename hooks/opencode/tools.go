package opencode

// ToolPrefix starts the name OpenCode gives planq's own MCP tools: server
// "planq", tool "jj_init" is "planq_jj_init" (OpenCode joins the sanitized
// server and tool names with "_").
const ToolPrefix = "planq_"

// ToolKind says what a tool can do to the files of the project.
type ToolKind string

// The kinds of OpenCode tools.
const (
	ReadOnly ToolKind = "read-only" // modifies no file
	Shell    ToolKind = "shell"     // runs a shell command (field: the command)
	Editor   ToolKind = "editor"    // writes or edits one file (field: its path)
	Patch    ToolKind = "patch"     // applies a patch (field: the patch text, paths in its "*** … File:" lines)
)

// toolSpec is one row of the tool table.
type toolSpec struct {
	kind  ToolKind
	field string // the argument holding the command, path or patch
}

// tools are OpenCode 1.18.33's built-in tools, checked against the binary
// and a live run (NOTES.md), plus a few older names (list, todoread,
// codesearch, patch) so an older OpenCode is not ungated. The older
// multiedit is left out on purpose: each of its edits[] names its own file,
// which one path field cannot say, so it stays unknown and the gate holds it
// back until the change is declared.
var tools = map[string]toolSpec{
	// Modifying. bash also takes "workdir" (the directory the command runs
	// in, relative to the project) and "timeout".
	"bash":        {Shell, "command"},
	"write":       {Editor, "filePath"}, // + content
	"edit":        {Editor, "filePath"}, // + oldString, newString, replaceAll
	"apply_patch": {Patch, "patchText"}, // offered instead of edit and write to models whose id has "gpt-" (not gpt-4, not oss)
	"patch":       {Patch, "patchText"}, // older name

	// Read-only.
	"read":                        {ReadOnly, ""},
	"glob":                        {ReadOnly, ""},
	"grep":                        {ReadOnly, ""},
	"list":                        {ReadOnly, ""}, // older versions
	"webfetch":                    {ReadOnly, ""},
	"websearch":                   {ReadOnly, ""},
	"codesearch":                  {ReadOnly, ""}, // older versions
	"task":                        {ReadOnly, ""}, // starts a subagent session; its own tool calls are gated
	"todowrite":                   {ReadOnly, ""}, // the session's todo list, not a file
	"todoread":                    {ReadOnly, ""}, // older versions
	"skill":                       {ReadOnly, ""},
	"question":                    {ReadOnly, ""}, // asks the user (TUI, desktop)
	"lsp":                         {ReadOnly, ""}, // OPENCODE_EXPERIMENTAL_LSP_TOOL
	"plan_exit":                   {ReadOnly, ""}, // OPENCODE_EXPERIMENTAL_PLAN_MODE
	"invalid":                     {ReadOnly, ""}, // what a malformed call becomes; returns an error text
	"execute":                     {ReadOnly, ""}, // OPENCODE_EXPERIMENTAL_CODE_MODE: a script calling MCP tools, each gated on its own
	"list_mcp_resources":          {ReadOnly, ""},
	"list_mcp_resource_templates": {ReadOnly, ""},
	"read_mcp_resource":           {ReadOnly, ""},
}

// Tool returns what OpenCode's tool name does and the argument that holds its
// command, path or patch text (empty for read-only tools); ok is false for a
// name the table does not know: MCP tools (planq's start with ToolPrefix),
// plugins' custom tools, and tools of other OpenCode versions.
func Tool(name string) (kind ToolKind, field string, ok bool) {
	t, ok := tools[name]
	return t.kind, t.field, ok
}
