package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/config"
	ossandbox "github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

// Evaluation is everything the gate concluded about one tool call.
type Evaluation struct {
	Verdict  Verdict  `json:"verdict"`
	Decision Decision `json:"decision"`
	Mode     string   `json:"mode"`
	// State is the gate state, read only when the decision needed it.
	State *Status `json:"state,omitempty"`
	// Errors met on the way; the decision already accounts for them.
	StateErr  error `json:"-"`
	ConfigErr error `json:"-"`
	// OnErrorAllow is the project's gate.on_error: allow, for a caller that
	// fails after the evaluation.
	OnErrorAllow bool `json:"-"`
	// Root is the project boundary the call was judged against (the jj
	// workspace, else the project directory; empty when unknown).
	Root string `json:"root,omitempty"`
	// SandboxOff says why the OS sandbox the host and machine offer
	// (EvalOptions.SandboxEntry) was not used: the user turned it off
	// (SandboxOff). Empty otherwise.
	SandboxOff string `json:"sandbox_off,omitempty"`
}

// SandboxEnv is the environment variable that turns the OS sandbox off for
// the hooks it reaches: PLANQ_SANDBOX=off keeps the parser-only gate where
// the host and the machine could run locked shell commands in the sandbox
// (for a tool that misbehaves in it). Any other value leaves it on.
const SandboxEnv = "PLANQ_SANDBOX"

// SandboxOff says why the user turned the OS sandbox off, or "" when they
// did not: PLANQ_SANDBOX=off in the hook's environment (getenv; nil means
// os.Getenv), or gate.sandbox: off in the project's configuration (pol).
// Neither is within a locked agent's reach: the hook's environment is the
// host's, and the configuration is in the project, read-only until the
// change is declared.
func SandboxOff(getenv func(string) string, pol Policy) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case strings.EqualFold(strings.TrimSpace(getenv(SandboxEnv)), config.SandboxOff):
		return SandboxEnv + "=off in the hook's environment"
	case pol.SandboxOff:
		return "gate.sandbox: off in " + config.File
	}
	return ""
}

// EvalOptions tune Evaluate.
type EvalOptions struct {
	// ProjectDir is the session's project (CLAUDE_PROJECT_DIR): its jj repo
	// holds the gate state and the configuration, and it bounds "inside".
	// Empty means the tool's working directory.
	ProjectDir string
	// AssumeLocked judges the call as if the gate were locked, without
	// reading jj: the answer to "would this be blocked before declaring?".
	AssumeLocked bool
	// Getenv is the environment the tool inherits (HOME, TMPDIR, PATH…);
	// nil means os.Getenv.
	Getenv func(string) string
	// PlanqTool spells one of planq's MCP tools the way the host shows it
	// to the model ("planq_jj_init" in OpenCode), for the next step a denial
	// names; nil means MCP's usual mcp__planq__<tool>.
	PlanqTool func(tool string) string
	// SandboxEntry, when set, says locked shell calls may run in the OS
	// sandbox (the host applies a rewritten command and this machine has a
	// sandbox, sandbox.Detect): the words that start the sandbox entry
	// point (sandbox.Entry). Nil keeps the parser-only gate, as does the
	// user's switch (SandboxOff).
	SandboxEntry []string
	// SandboxShell is the shell the host runs commands with, as it names
	// it (session.Host.Shell), passed to the entry point (--shell); ""
	// leaves the entry point to find it.
	SandboxShell string
	// LeaveUnsandboxed, when set, is asked about a call that would run in
	// the sandbox, and only then: true keeps the parser-only decision for
	// it (the host's own permission rules would judge the rewritten
	// command instead of the call, session.Call.HostJudges). Asking only
	// then keeps the host's rule files unread on every other call.
	LeaveUnsandboxed func() bool
}

// Project is where a call's gate state and configuration come from: the
// session's project, never the repository the tool happens to run in (a
// command that cds into another jj repo, or names one with jj -R, is still
// judged against the project's state).
type Project struct {
	Dir    string // the project directory
	Root   string // its jj workspace root, or Dir outside a jj repo
	IsJJ   bool
	Config config.Config
	Policy Policy
	Err    error // reading the configuration failed; Policy is the default
}

// LoadProject resolves the project at dir and reads its configuration.
func LoadProject(dir string) Project {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	p := Project{Dir: dir, Root: dir}
	if root, ok := jj.FindRoot(dir); ok {
		p.Root, p.IsJJ = root, true
	}
	cfg, err := config.Load(p.Root)
	if err == nil {
		err = configOutside(p.Root)
	}
	p.Config, p.Err = cfg, err
	p.Policy = PolicyFromConfig(cfg)
	if err != nil {
		p.Config, p.Policy = config.Default(), DefaultPolicy()
	}
	return p
}

// configOutside is an error when a symbolic link (.planq or the file
// itself) puts the project's configuration outside the project: the OS
// sandbox keeps only the project read-only while the gate is locked, so a
// locked command could write the file there (in /tmp, say) and turn the
// gate or the sandbox off for every call after it. The gate then uses its
// defaults and denies what modifies, as for an invalid configuration.
func configOutside(root string) error {
	cfg := config.Path(root)
	dirLink, fileLink := isLink(filepath.Dir(cfg)), isLink(cfg)
	if !dirLink && !fileLink {
		return nil
	}
	target, err := filepath.EvalSymlinks(cfg)
	if err != nil {
		return nil // a dangling link: config.Load found no file
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	if rel, err := filepath.Rel(realRoot, target); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	return fmt.Errorf("%s is a symbolic link to %s, outside the project, where a command run while the gate is locked may write it; make it a file in the project", config.File, target)
}

func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// Evaluate decides on one tool call made in dir (the tool's working
// directory), the way the PreToolUse hook does: read-only tools (by the
// host's own word, Tool.Kind) are allowed at once; otherwise the project's configuration is read, the
// call classified, and the project's gate state read only when the call
// modifies.
func Evaluate(ctx context.Context, call ToolCall, dir string, opt EvalOptions) Evaluation {
	if call.Tool.Kind == KindReadOnly {
		v := Classify(call, DefaultPolicy())
		return Evaluation{Verdict: v, Decision: Decision{Allow: true, Rule: v.Rule}, Mode: config.ModeStrict}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	projectDir := opt.ProjectDir
	if projectDir == "" {
		projectDir = dir
	}
	p := LoadProject(projectDir)
	pol := p.Policy
	if call.Root == "" && (p.IsJJ || opt.ProjectDir != "") {
		// The boundary: the project's jj workspace, else the project; a
		// bare working directory outside any repository is none.
		call.Root = p.Root
	}
	if call.Cwd == "" {
		call.Cwd = dir
	}
	if call.Getenv == nil {
		call.Getenv = opt.Getenv
	}
	ev := Evaluation{Verdict: Classify(call, pol), Mode: pol.Mode, ConfigErr: p.Err, OnErrorAllow: pol.OnErrorAllow, Root: call.Root}
	if opt.SandboxEntry != nil {
		ev.SandboxOff = SandboxOff(opt.Getenv, pol)
	}
	sandboxed := opt.SandboxEntry != nil && ev.SandboxOff == "" && call.Tool.Kind == KindShell && pol.Mode == config.ModeStrict && !ev.Verdict.Declares
	if pol.Mode == config.ModeOff || !NeedsState(ev.Verdict) && !sandboxed {
		ev.Decision = Decide(call.Name, ev.Verdict, Status{}, nil, pol, opt.PlanqTool)
		return ev
	}
	if p.Err != nil && NeedsState(ev.Verdict) {
		ev.Decision = Decision{Rule: RuleConfigError, Message: fmt.Sprintf("planq gate: blocked this %s call (%s): %s, and the gate's configuration is invalid: %s. "+
			"Ask the user to fix .planq/config.yaml; read-only calls stay allowed.", call.Name, ev.Verdict.Part, ev.Verdict.Reason, text.OneLine(p.Err.Error()))}
		return ev
	}
	var st Status
	var stErr error
	if opt.AssumeLocked {
		st = Status{IsJJRepo: p.IsJJ, Root: p.Root, Locked: true}
	} else {
		st, stErr = State(ctx, p.Root)
	}
	ev.State, ev.StateErr = &st, stErr
	ev.Decision = Decide(call.Name, ev.Verdict, st, stErr, pol, opt.PlanqTool)
	if sandboxed {
		if d := Sandboxed(ev.Decision, ev.Verdict, st, stErr); d.Sandbox && (opt.LeaveUnsandboxed == nil || !opt.LeaveUnsandboxed()) {
			ev.Decision = rewrite(d, call, p, opt)
		}
	}
	return ev
}

// rewrite fills in the command a sandboxed decision runs: the sandbox
// entry point given the project's root, the tools that declare the change
// (jj_git_init first outside a jj repository), and the original command.
func rewrite(d Decision, call ToolCall, p Project, opt EvalOptions) Decision {
	planqTool := opt.PlanqTool
	if planqTool == nil {
		planqTool = func(t string) string { return "mcp__planq__" + t }
	}
	tools := []string{planqTool("jj_init")}
	if !p.IsJJ {
		tools = append([]string{planqTool("jj_git_init")}, tools...)
	}
	root := call.Root
	if root == "" {
		root = p.Dir
	}
	fields, err := ExactFields(call.Input, call.Tool.Field)
	cmd, _ := stringField(fields, call.Tool.Field)
	if err == nil {
		d.Command, err = ossandbox.Command(opt.SandboxEntry, ossandbox.Invocation{Root: root, Tools: tools, Shell: opt.SandboxShell, Command: cmd})
	}
	if err != nil {
		return Decision{Rule: RuleGateError, Message: fmt.Sprintf("planq gate: blocked this %s call: it would run in the OS sandbox, but %s.", call.Name, text.OneLine(err.Error()))}
	}
	return d
}
