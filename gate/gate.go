package gate

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/planq-dev/planq/config"
)

// Kind is what an agent host's tool does to files, as the host's adapter
// declares it (see Tool).
type Kind string

// The kinds of tool the gate knows how to judge.
const (
	KindUnknown  Kind = ""          // the adapter does not know the tool: gate.unknown decides
	KindReadOnly Kind = "read-only" // never modifies the project (reads, searches, todo lists, subagents)
	KindShell    Kind = "shell"     // runs a bash command held in the input field Field
	KindEditor   Kind = "editor"    // writes the file whose path is in the input field Field
	KindPatch    Kind = "patch"     // applies an apply_patch patch ("*** Begin Patch") held in Field
	KindMCP      Kind = "mcp"       // a tool of an MCP server: Server and MCPTool name it
)

// Tool says what one of an agent host's tools does, for the gate: its kind
// and where its input holds what the gate reads. Each host adapter maps its
// tool names to Tools; the gate itself knows no host's vocabulary.
type Tool struct {
	Kind    Kind
	Field   string // shell: the command; editor: the file path; patch: the patch text
	Server  string // mcp: the server's name ("planq" for planq's own tools)
	MCPTool string // mcp: the tool's name on its server ("jj_init")
}

// ToolCall is one agent tool call as a host reports it to a hook.
type ToolCall struct {
	Name  string          // the tool's name as the host spells it, for messages
	Tool  Tool            // what the tool does (from the host's adapter)
	Input json.RawMessage // the tool's arguments as a JSON object
	// Root is the project boundary, when known. Writes provably outside it
	// (the host's own plan files, scratch files in /tmp) are not held back
	// by the gate.
	Root string
	// Cwd is the tool's working directory, when known: relative paths and
	// /proc/self/cwd resolve against it.
	Cwd string
	// Getenv reads the environment the tool inherits; nil means os.Getenv.
	Getenv func(string) string
}

func (c ToolCall) where() Where { return Where{Root: c.Root, Cwd: c.Cwd, Getenv: c.Getenv} }

// Verdict is the gate's judgement of one tool call or Bash command.
type Verdict struct {
	Modifies bool   `json:"modifies"`       // the call may change files
	Part     string `json:"part,omitempty"` // the part of the call that decided it
	Reason   string `json:"reason"`         // why, in one phrase
	// Git is set when the call runs a git command that rewrites history or
	// the working copy, which a jj repo should do with jj instead.
	Git *GitRewrite `json:"git,omitempty"`
	// Sure says the gate is sure the call modifies the project: it writes
	// a file it sees is in the project (rm -rf build, sed -i, > file). A
	// locked call the gate is sure of is denied without running; any other
	// locked shell call may run in the OS sandbox instead (Decision.Sandbox),
	// where the kernel, not this judgement, keeps the project unchanged.
	Sure bool `json:"sure,omitempty"`
	// Declares says the command declares the change by hand (jj describe
	// -m, jj new -m, jj commit, jj git init in the project): what the gate
	// asks for, so it runs outside the sandbox.
	Declares bool `json:"declares,omitempty"`
	// Rule is the class of rule that judged the call (RuleReadOnly,
	// RuleShell, RuleOutside, RulePlanq, RuleMCPConfig, RuleMCPName,
	// RuleUnknown) when the call does not modify: that rule decides it. A
	// modifying call is decided by the gate's state.
	Rule string `json:"rule,omitempty"`
}

// GitRewrite names a history- or working-copy-rewriting git command and its
// jj equivalent.
type GitRewrite struct {
	Part    string `json:"part"`    // the git command as written
	Command string `json:"command"` // "git commit", "git checkout", …
	JJ      string `json:"jj"`      // what to do in jj instead
}

// Policy is the gate's configuration, from .planq/config.yaml's gate section.
type Policy struct {
	Mode              string   // config.ModeStrict, ModeWarn or ModeOff
	PermissiveUnknown bool     // unknown commands and tools count as read-only
	OnErrorAllow      bool     // a failing hook lets calls through (gate.on_error: allow)
	Tests             []string // test entry points treated as read-only (gate.tests)
	AllowGit          bool     // allow history-rewriting git commands in a jj repo
	Allow             []string // extra read-only command names ("name" or "name sub")
	Deny              []string // extra modifying command names; beat everything else
	MCPAllow          []string // read-only MCP tool name globs
	MCPDeny           []string // modifying MCP tool name globs; beat MCPAllow
	SandboxOff        bool     // gate.sandbox: off, the parser-only gate where an OS sandbox exists
}

// DefaultPolicy returns the policy used without a configuration file.
func DefaultPolicy() Policy { return PolicyFromConfig(config.Default()) }

// PolicyFromConfig builds the gate policy from a loaded configuration.
func PolicyFromConfig(c config.Config) Policy {
	g := c.Gate
	mode := g.Mode
	if mode == "" {
		mode = config.ModeStrict
	}
	return Policy{
		Mode:              mode,
		PermissiveUnknown: g.Unknown == config.UnknownPermissive,
		OnErrorAllow:      g.OnError == config.OnErrorAllow,
		Tests:             g.TestEntries(),
		AllowGit:          g.Git == config.GitAllow,
		Allow:             g.Allow,
		Deny:              g.Deny,
		MCPAllow:          g.MCPAllow,
		MCPDeny:           g.MCPDeny,
		SandboxOff:        g.Sandbox == config.SandboxOff,
	}
}

// planqAlwaysAllowed reports whether a tool of planq's MCP server is always
// allowed: declaring the change, looking at it, and the state tools (every
// planq_* tool).
func planqAlwaysAllowed(tool string) bool {
	switch tool {
	case "jj_init", "jj_status", "jj_git_init", "query_ancestor":
		return true
	}
	return strings.HasPrefix(tool, "planq_")
}

// MCP tool name globs that only read, used when the configuration names
// neither way. The verb after the server name decides.
var defaultMCPReadGlobs = []string{
	"mcp__*__get*", "mcp__*__list*", "mcp__*__search*", "mcp__*__read*",
	"mcp__*__query*", "mcp__*__fetch*", "mcp__*__find*", "mcp__*__view*",
	"mcp__*__show*", "mcp__*__describe*", "mcp__*__lookup*", "mcp__*__resolve*",
	"mcp__*__inspect*", "mcp__*__status*", "mcp__*__diff*", "mcp__*__explain*",
}

// Classify judges one tool call under pol by its Tool. The tool's input is
// decoded exactly (ExactFields): an input with a duplicate key, or a key
// that differs from one the gate reads only in case, is ambiguous and
// modifies.
func Classify(call ToolCall, pol Policy) Verdict {
	v := classify(call, pol)
	if !v.Modifies && v.Rule == "" {
		v.Rule = kindRule[call.Tool.Kind]
	}
	return v
}

// kindRule is the class of rule that let a call of each kind through as
// not modifying, unless the judgement names a narrower one.
var kindRule = map[Kind]string{
	KindReadOnly: RuleReadOnly, KindShell: RuleShell, KindEditor: RuleOutside, KindPatch: RuleOutside,
	KindMCP: RuleMCPName, KindUnknown: RuleUnknown,
}

func classify(call ToolCall, pol Policy) Verdict {
	name, t := call.Name, call.Tool
	switch t.Kind {
	case KindReadOnly:
		return Verdict{Reason: name + " only reads"}
	case KindEditor:
		fields, err := ExactFields(call.Input, t.Field)
		if err != nil {
			return Verdict{Modifies: true, Part: name, Reason: "the " + name + " input is ambiguous or malformed (" + err.Error() + "), so planq cannot tell which file it writes"}
		}
		p, _ := stringField(fields, t.Field)
		part := name
		if p != "" {
			part = name + " " + p
		}
		if k := editorTarget(call.where(), p); k == pathOutside {
			return Verdict{Part: part, Reason: name + " writes " + p + ", outside the project"}
		}
		return Verdict{Modifies: true, Part: part, Reason: name + " writes files"}
	case KindPatch:
		return classifyPatch(call)
	case KindShell:
		fields, err := ExactFields(call.Input, t.Field)
		if err != nil {
			return Verdict{Modifies: true, Part: name, Reason: "the " + name + " input is ambiguous or malformed (" + err.Error() + "), so planq cannot tell which command runs"}
		}
		cmd, ok := stringField(fields, t.Field)
		if !ok {
			return Verdict{Modifies: true, Part: name, Reason: "the " + name + " input has no command string, so planq cannot tell what it does"}
		}
		return AnalyzeBashAt(cmd, pol, call.where())
	case KindMCP:
		return classifyMCP(name, t, pol)
	}
	if pol.PermissiveUnknown {
		return Verdict{Part: name, Reason: "unknown tool " + name + " (gate.unknown: permissive)"}
	}
	return Verdict{Modifies: true, Part: name, Reason: "unknown tool " + name + " counts as modifying (gate.unknown: strict)"}
}

// editorTarget says where an editor tool's (or a patch's) file is: judged
// by the one rule the files a Bash command writes are (places.judge).
func editorTarget(w Where, p string) pathKind {
	return w.places().judge(resolvedRoot(w.Root), p, w.Cwd, resolveAbs)
}

// classifyMCP judges an MCP tool. The configuration's globs and the read
// verbs match the host-neutral name mcp__<server>__<tool>, whatever the host
// calls the tool.
func classifyMCP(name string, t Tool, pol Policy) Verdict {
	if t.Server == "planq" && planqAlwaysAllowed(t.MCPTool) {
		return Verdict{Reason: "planq's " + t.MCPTool + " is always allowed", Rule: RulePlanq}
	}
	full := "mcp__" + t.Server + "__" + t.MCPTool
	if g, ok := matchGlob(pol.MCPDeny, full); ok {
		return Verdict{Modifies: true, Part: name, Reason: name + " matches gate.mcp_deny " + g}
	}
	if g, ok := matchGlob(pol.MCPAllow, full); ok {
		return Verdict{Part: name, Reason: name + " matches gate.mcp_allow " + g, Rule: RuleMCPConfig}
	}
	if g, ok := matchGlob(defaultMCPReadGlobs, full); ok {
		return Verdict{Part: name, Reason: name + " only reads (its name matches " + g + ")"}
	}
	if pol.PermissiveUnknown {
		return Verdict{Part: name, Reason: "MCP tool " + name + " is not known to modify (gate.unknown: permissive)", Rule: RuleUnknown}
	}
	return Verdict{Modifies: true, Part: name,
		Reason: "MCP tool " + name + " is not known to only read (add " + full + " to gate.mcp_allow in .planq/config.yaml if it does)"}
}

func matchGlob(globs []string, name string) (string, bool) {
	for _, g := range globs {
		if ok, err := path.Match(g, name); err == nil && ok {
			return g, true
		}
	}
	return "", false
}
