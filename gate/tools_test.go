package gate

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// testTool describes the tools the gate's tests call by name the way a
// Claude-shaped host adapter does (the real tables live in the adapters
// under hooks/): Bash runs commands, the editors write file_path or
// notebook_path, mcp__server__tool names an MCP tool, apply_patch carries
// its patch in "patch".
func testTool(name string) Tool {
	switch name {
	case "Read", "Glob", "Grep", "WebFetch", "Task", "TodoWrite":
		return Tool{Kind: KindReadOnly}
	case "Bash":
		return Tool{Kind: KindShell, Field: "command"}
	case "Write", "Edit", "MultiEdit":
		return Tool{Kind: KindEditor, Field: "file_path"}
	case "NotebookEdit":
		return Tool{Kind: KindEditor, Field: "notebook_path"}
	case "apply_patch":
		return Tool{Kind: KindPatch, Field: "patch"}
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		server, tool, _ := strings.Cut(rest, "__")
		return Tool{Kind: KindMCP, Server: server, MCPTool: tool}
	}
	return Tool{}
}

func TestPatchPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, patch string
		want        []string
		err         string
	}{
		{"add update delete move", "*** Begin Patch\n*** Add File: a.go\n+package a\n*** Update File: b.go\n*** Move to: c.go\n@@\n-x\n+y\n*** Delete File: d.go\n*** End Patch\n",
			[]string{"a.go", "b.go", "c.go", "d.go"}, ""},
		{"CRLF and blank edges", "\r\n*** Begin Patch\r\n*** Add File: /tmp/x\r\n+1\r\n*** End Patch\r\n\r\n", []string{"/tmp/x"}, ""},
		{"end of file marker", "*** Begin Patch\n*** Update File: a\n@@\n-a\n+b\n*** End of File\n*** End Patch", []string{"a"}, ""},
		{"no end", "*** Begin Patch\n*** Add File: a\n+x\n", nil, "not one patch"},
		{"no begin", "*** Add File: a\n+x\n*** End Patch", nil, "not one patch"},
		{"heredoc wrapper", "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n*** End Patch\nEOF", nil, "not one patch"},
		{"unknown operation", "*** Begin Patch\n*** Copy File: a\n*** End Patch", nil, "no patch operation"},
		{"empty name", "*** Begin Patch\n*** Add File:  \n*** End Patch", nil, "no patch operation"},
		{"no files", "*** Begin Patch\n*** End Patch", nil, "names no file"},
		// Codex trims a hunk's header line: after an add, a padded header is one.
		{"padded header after an add", "*** Begin Patch\n*** Add File: /tmp/decoy\n+x\n \t*** Update File: a.go\n@@\n-a\n+b\n*** End Patch", []string{"/tmp/decoy", "a.go"}, ""},
		{"header after a no-break space", "*** Begin Patch\n*** Add File: /tmp/decoy\n+x\n\u00a0*** Delete File: a.go\n*** End Patch", []string{"/tmp/decoy", "a.go"}, ""},
		{"path keeps its inner spaces", "*** Begin Patch\n*** Add File:  lead.txt \n+x\n*** Update File: a\n*** Move to:  b \n@@\n-a\n+b\n*** End Patch", []string{" lead.txt", "a", " b "}, ""},
		{"a header-like line is content", "*** Begin Patch\n*** Add File: /tmp/x\n+*** Update File: a.go\n*** Update File: /tmp/y\n@@\n *** Delete File: b.go\n-a\n+b\n*** End Patch", []string{"/tmp/x", "/tmp/y"}, ""},
		{"heredoc", "<<'EOF'\n*** Begin Patch\n*** Delete File: a.go\n*** End Patch\nEOF\n", []string{"a.go"}, ""},
		{"other heredoc word", "<<'PATCH'\n*** Begin Patch\n*** Delete File: a.go\n*** End Patch\nPATCH", nil, "not one patch"},
		{"a header without its space", "*** Begin Patch\n*** Update File:a.go\n@@\n-a\n+b\n*** End Patch", nil, "no patch operation"},
		{"a tabbed header inside an update", "*** Begin Patch\n*** Update File: /tmp/y\n@@\n-a\n+b\n\t*** Delete File: a.go\n*** End Patch", nil, "must start with @@"},
		{"two ends", "*** Begin Patch\n*** Add File: /tmp/x\n+x\n*** End Patch\n*** Delete File: a.go\n*** End Patch", nil, "no patch operation"},
		{"garbage after an add", "*** Begin Patch\n*** Add File: /tmp/x\n+x\ngarbage\n*** Delete File: a.go\n*** End Patch", nil, "no patch operation"},
		{"update without change", "*** Begin Patch\n*** Update File: a.go\n*** End Patch", nil, "has no change"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PatchPaths(tt.patch)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("PatchPaths = %v, %v; want an error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("PatchPaths = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// A patch modifies unless every file it touches is outside the project; a
// patch planq cannot read, or an ambiguous input, modifies.
func TestClassifyPatch(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	out := t.TempDir()
	patch := func(paths ...string) string {
		var b strings.Builder
		b.WriteString("*** Begin Patch\n")
		for _, p := range paths {
			b.WriteString("*** Add File: " + p + "\n+x\n")
		}
		b.WriteString("*** End Patch\n")
		s, _ := json.Marshal(map[string]string{"patch": b.String()})
		return string(s)
	}
	tests := []struct {
		name, input string
		want        bool
	}{
		{"inside, relative", patch("src/a.go"), modifies},
		{"inside, absolute", patch(filepath.Join(repo, "a.go")), modifies},
		{"outside only", patch(filepath.Join(out, "a.txt")), readOnly},
		{"one in, one out", patch(filepath.Join(out, "a.txt"), "a.go"), modifies},
		{"escapes with ..", patch("../" + filepath.Base(repo) + "/a.go"), modifies},
		{"a padded header after an outside decoy", `{"patch":"*** Begin Patch\n*** Add File: ` + filepath.Join(out, "decoy") + `\n+x\n \t*** Update File: a.go\n@@\n-a\n+b\n*** End Patch"}`, modifies},
		{"not a patch", `{"patch":"rm -rf ."}`, modifies},
		{"no patch field", `{"input":"x"}`, modifies},
		{"ambiguous", `{"patch":"*** Begin Patch\n*** Add File: /tmp/x\n*** End Patch","Patch":"x"}`, modifies},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(ToolCall{Name: "apply_patch", Tool: testTool("apply_patch"), Input: json.RawMessage(tt.input), Root: repo, Cwd: repo}, DefaultPolicy())
			if v.Modifies != tt.want || v.Reason == "" {
				t.Fatalf("modifies=%v (%s), want %v", v.Modifies, v.Reason, tt.want)
			}
		})
	}
}

// apply_patch run as a command (Codex's shell tool applies `apply_patch
// <<'EOF' … EOF` itself, and puts an apply_patch program on PATH) is judged
// by its patch's files, as the apply_patch tool is.
func TestApplyPatchCommand(t *testing.T) {
	t.Parallel()
	repo, out := t.TempDir(), t.TempDir()
	outside := "*** Begin Patch\n*** Add File: " + filepath.Join(out, "x.txt") + "\n+x\n*** End Patch"
	decoy := "*** Begin Patch\n*** Add File: " + filepath.Join(out, "x.txt") + "\n+x\n \t*** Update File: a.go\n@@\n-a\n+b\n*** End Patch"
	tests := []struct {
		cmd  string
		want bool
		why  string
	}{
		{"apply_patch <<'EOF'\n" + outside + "\nEOF", readOnly, ""},
		{"applypatch '" + outside + "'", readOnly, ""},
		{"apply_patch <<'EOF'\n" + decoy + "\nEOF", modifies, "apply_patch writes a.go"},
		{"cd /tmp && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch\nEOF", modifies, "writes x.txt"},
		{"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File:a.go\n@@\n-a\n+b\n*** End Patch\nEOF", modifies, "cannot read"},
		{"apply_patch", modifies, "standard input"},
		{`apply_patch "$P"`, modifies, "computed at run time"},
	}
	for _, tt := range tests {
		v := AnalyzeBashAt(tt.cmd, DefaultPolicy(), Where{Root: repo, Cwd: repo})
		if v.Modifies != tt.want || !strings.Contains(v.Reason, tt.why) {
			t.Errorf("%q: modifies=%v (%s), want %v with %q", tt.cmd, v.Modifies, v.Reason, tt.want, tt.why)
		}
	}
}

// Codex reads "*** Add File:  /abs" (two spaces) as the relative path
// " /abs"; a host that trims file names (OpenCode) writes /abs. From a
// working directory outside the project, only the second is inside: the
// gate judges both.
func TestClassifyPatchPaddedPath(t *testing.T) {
	t.Parallel()
	repo, out := t.TempDir(), t.TempDir()
	in, _ := json.Marshal(map[string]string{"patch": "*** Begin Patch\n*** Add File:  " + filepath.Join(repo, "a.go") + "\n+x\n*** End Patch"})
	v := Classify(ToolCall{Name: "apply_patch", Tool: testTool("apply_patch"), Input: in, Root: repo, Cwd: out}, DefaultPolicy())
	if !v.Modifies {
		t.Fatalf("modifies=false (%s), want the trimmed path judged inside", v.Reason)
	}
}

// A denial names planq's tool the way the host shows it to the model.
func TestDecideNamesTheHostsTool(t *testing.T) {
	t.Parallel()
	v := Verdict{Modifies: true, Part: "write a.go", Reason: "write writes files"}
	locked := Status{IsJJRepo: true, Locked: true, ChangeID: "qpvuntsmwlqt"}
	d := Decide("write", v, locked, nil, DefaultPolicy(), func(t string) string { return "planq_" + t })
	if d.Allow || !strings.Contains(d.Message, "call planq_jj_init") || strings.Contains(d.Message, "mcp__") {
		t.Fatalf("denial %q: want it to name planq_jj_init only", d.Message)
	}
	d = Decide("write", v, Status{Locked: true}, nil, DefaultPolicy(), nil)
	if !strings.Contains(d.Message, "mcp__planq__jj_git_init") || !strings.Contains(d.Message, "mcp__planq__jj_init") {
		t.Fatalf("denial %q: want MCP's usual names by default", d.Message)
	}
}

// Classify names the class of rule that let a call through as not
// modifying; a modifying call has none (the gate's state decides it).
func TestClassifyRule(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	out := t.TempDir()
	allowCfg := DefaultPolicy()
	allowCfg.MCPAllow = []string{"mcp__db__run*"}
	permissive := DefaultPolicy()
	permissive.PermissiveUnknown = true
	tests := []struct {
		name, tool, input string
		pol               Policy
		want              string
	}{
		{"host read-only tool", "Read", `{"file_path":"a"}`, DefaultPolicy(), RuleReadOnly},
		{"read-only shell command", "Bash", `{"command":"ls -la"}`, DefaultPolicy(), RuleShell},
		{"modifying shell command", "Bash", `{"command":"rm -rf build"}`, DefaultPolicy(), ""},
		{"editor outside", "Write", `{"file_path":"` + filepath.Join(out, "x") + `"}`, DefaultPolicy(), RuleOutside},
		{"editor inside", "Write", `{"file_path":"` + filepath.Join(repo, "x") + `"}`, DefaultPolicy(), ""},
		{"planq tool", "mcp__planq__planq_log", `{}`, DefaultPolicy(), RulePlanq},
		{"mcp_allow", "mcp__db__run_query", `{}`, allowCfg, RuleMCPConfig},
		{"mcp read name", "mcp__db__get_rows", `{}`, DefaultPolicy(), RuleMCPName},
		{"mcp unknown, permissive", "mcp__db__run_query", `{}`, permissive, RuleUnknown},
		{"mcp unknown, strict", "mcp__db__run_query", `{}`, DefaultPolicy(), ""},
		{"unknown tool, permissive", "Frobnicate", `{}`, permissive, RuleUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Classify(ToolCall{Name: tt.tool, Tool: testTool(tt.tool), Input: json.RawMessage(tt.input), Root: repo, Cwd: repo}, tt.pol)
			if v.Rule != tt.want {
				t.Fatalf("rule %q (modifies=%v, %s), want %q", v.Rule, v.Modifies, v.Reason, tt.want)
			}
			d := Decide(tt.tool, v, Status{IsJJRepo: true, Locked: true}, nil, tt.pol, nil)
			if wantRule := tt.want; wantRule != "" && (d.Rule != wantRule || !d.Allow) || wantRule == "" && (d.Rule != RuleLocked || d.Allow) {
				t.Fatalf("decision %+v for rule %q", d, tt.want)
			}
		})
	}
}
