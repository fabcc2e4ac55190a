package gate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/planq-dev/planq/config"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	custom := DefaultPolicy()
	custom.MCPAllow = []string{"mcp__linear__*"}
	custom.MCPDeny = []string{"mcp__linear__create*", "mcp__github__get_and_delete*"}
	permissive := DefaultPolicy()
	permissive.PermissiveUnknown = true

	tests := []struct {
		name  string
		tool  string
		input string
		root  string
		pol   Policy
		want  bool
		part  string
	}{
		{name: "Read", tool: "Read", input: `{"file_path":"/r/a.go"}`, want: readOnly},
		{name: "Glob", tool: "Glob", input: `{"pattern":"**/*.go"}`, want: readOnly},
		{name: "Grep", tool: "Grep", input: `{"pattern":"x"}`, want: readOnly},
		{name: "WebFetch", tool: "WebFetch", want: readOnly},
		{name: "Task", tool: "Task", want: readOnly},
		{name: "TodoWrite", tool: "TodoWrite", input: `{"todos":[]}`, want: readOnly},
		{name: "Write", tool: "Write", input: `{"file_path":"/r/a.go","content":"x"}`, want: modifies, part: "Write /r/a.go"},
		{name: "Edit", tool: "Edit", input: `{"file_path":"/r/a.go","old_string":"a","new_string":"b"}`, want: modifies, part: "Edit /r/a.go"},
		{name: "MultiEdit", tool: "MultiEdit", input: `{"file_path":"/r/a.go","edits":[]}`, want: modifies},
		{name: "NotebookEdit", tool: "NotebookEdit", input: `{"notebook_path":"/r/n.ipynb"}`, want: modifies, part: "NotebookEdit /r/n.ipynb"},
		{name: "Write inside the repo", tool: "Write", input: `{"file_path":"/r/sub/a.go"}`, root: "/r", want: modifies},
		{name: "Write outside the repo", tool: "Write", input: `{"file_path":"/root/.claude/plans/p.md"}`, root: "/r", want: readOnly},
		{name: "a sibling with the same prefix is outside", tool: "Write", input: `{"file_path":"/repo2/a.go"}`, root: "/repo", want: readOnly},
		{name: "Write with a relative path", tool: "Write", input: `{"file_path":"a.go"}`, root: "/r", want: modifies},
		{name: "Write with garbage input", tool: "Write", input: `[1,2]`, want: modifies},
		{name: "Bash read-only", tool: "Bash", input: `{"command":"git status","description":"status"}`, want: readOnly},
		{name: "Bash modifying", tool: "Bash", input: `{"command":"ls > out"}`, want: modifies, part: "> out"},
		{name: "Bash without command", tool: "Bash", input: `{}`, want: modifies},
		{name: "Bash with non-string command", tool: "Bash", input: `{"command":3}`, want: modifies},
		{name: "planq jj_init", tool: "mcp__planq__jj_init", want: readOnly},
		{name: "planq jj_status", tool: "mcp__planq__jj_status", want: readOnly},
		{name: "planq jj_git_init", tool: "mcp__planq__jj_git_init", want: readOnly},
		{name: "planq query_ancestor", tool: "mcp__planq__query_ancestor", want: readOnly},
		{name: "planq state tool", tool: "mcp__planq__planq_note", want: readOnly},
		{name: "planq jj_describe is gated", tool: "mcp__planq__jj_describe", want: modifies},
		{name: "planq jj_abandon is gated", tool: "mcp__planq__jj_abandon", want: modifies},
		{name: "other MCP read verb", tool: "mcp__context7__get-library-docs", want: readOnly},
		{name: "other MCP list verb", tool: "mcp__github__list_issues", want: readOnly},
		{name: "other MCP unknown verb", tool: "mcp__github__create_issue", want: modifies},
		{name: "mcp_allow", tool: "mcp__linear__update_issue", pol: custom, want: readOnly},
		{name: "mcp_deny beats mcp_allow", tool: "mcp__linear__create_issue", pol: custom, want: modifies},
		{name: "mcp_deny beats the read verbs", tool: "mcp__github__get_and_delete_x", pol: custom, want: modifies},
		{name: "permissive MCP", tool: "mcp__x__do_thing", pol: permissive, want: readOnly},
		{name: "unknown tool strict", tool: "FutureTool", want: modifies},
		{name: "unknown tool permissive", tool: "FutureTool", pol: permissive, want: readOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := tt.pol
			if pol.Mode == "" {
				pol = DefaultPolicy()
			}
			in := tt.input
			if in == "" {
				in = "{}"
			}
			v := Classify(ToolCall{Name: tt.tool, Tool: testTool(tt.tool), Input: json.RawMessage(in), Root: tt.root}, pol)
			if v.Modifies != tt.want {
				t.Fatalf("modifies=%v (%s), want %v", v.Modifies, v.Reason, tt.want)
			}
			if tt.part != "" && !strings.Contains(v.Part, tt.part) {
				t.Errorf("part %q, want it to contain %q", v.Part, tt.part)
			}
			if v.Reason == "" {
				t.Error("no reason")
			}
		})
	}
}

func TestPolicyFromConfig(t *testing.T) {
	t.Parallel()
	c, err := config.Parse([]byte("gate:\n  mode: warn\n  unknown: permissive\n  git: allow\n  allow: [frob]\n  deny: [curl]\n  mcp_allow: ['mcp__a__*']\n  mcp_deny: ['mcp__b__*']\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := PolicyFromConfig(c)
	if p.Mode != config.ModeWarn || !p.PermissiveUnknown || !p.AllowGit ||
		len(p.Allow) != 1 || len(p.Deny) != 1 || len(p.MCPAllow) != 1 || len(p.MCPDeny) != 1 {
		t.Errorf("policy %+v does not reflect the configuration", p)
	}
	d := DefaultPolicy()
	if d.Mode != config.ModeStrict || d.PermissiveUnknown || d.AllowGit {
		t.Errorf("default policy %+v, want strict, strict unknown, git denied", d)
	}
}
