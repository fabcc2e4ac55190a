package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

// exitGateDeny is `planq gate check`'s exit status when the gate would deny.
const exitGateDeny = 3

func newGateCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Inspect the gate that holds back file edits until the change is declared",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newGateCheckCmd(a))
	return cmd
}

// gateCheckOptions are `planq gate check`'s flags.
type gateCheckOptions struct {
	Bash    string
	HasBash bool // --bash was given (an empty command is still one)
	Tool    string
	Input   string
	Host    string
	Repo    string
	Cwd     string
	JSON    bool
	Locked  bool
}

func newGateCheckCmd(a *app) *cobra.Command {
	o := &gateCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check (--bash 'COMMAND' | --tool NAME [--input JSON])",
		Short: "Say whether a tool call modifies files and whether the gate would let it through",
		Long: `Judge one tool call the way the PreToolUse hook does, in the project's current
state: read-only or modifying, the part of the call that decided it, why,
and whether the hook would allow or deny it now.

The hook judges a call made in a working directory (the tool's cwd) for a
project (CLAUDE_PROJECT_DIR, whose jj repo holds the gate state and the
configuration). --cwd and --project give those. By default the project is
CLAUDE_PROJECT_DIR, else the current directory, and the working directory is
the current one (the project, when --project is given).

For a host that applies rewritten commands, on a machine with an OS sandbox,
a locked shell call the gate is not sure modifies is allowed to run in the
sandbox, the project read-only: the action is "sandbox" and the command the
host would run instead is shown (--json: decision.command).

Exit status: 0 when the hook would allow the call (in the sandbox or not), 3
when it would deny it.`,
		Example: `  planq gate check --bash 'git status && rm -rf build'
  planq gate check --tool Write --input '{"file_path":"/repo/main.go"}'
  planq gate check --bash 'go test ./...' --json
  planq gate check --locked --bash 'make'   # as if no change were declared yet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.HasBash = cmd.Flags().Changed("bash")
			return runGateCheck(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Bash, "bash", "", "a Bash command to judge")
	f.StringVar(&o.Tool, "tool", "", "a tool name to judge, as --host names it (Claude Code: Write, Bash, mcp__server__tool; OpenCode: write, apply_patch; Gemini CLI: write_file, run_shell_command; …)")
	f.StringVar(&o.Host, "host", hosts.Default, "the agent host whose tool names --tool uses: "+strings.Join(hosts.Names(), ", "))
	f.StringVar(&o.Input, "input", "", "the tool's input as a JSON object (with --tool)")
	f.StringVar(&o.Repo, "project", "", "the session's project directory (default: CLAUDE_PROJECT_DIR, else the working directory)")
	f.StringVar(&o.Repo, "repo", "", "same as --project")
	f.StringVar(&o.Cwd, "cwd", "", "the tool's working directory (default: the current directory, or --project when given)")
	f.BoolVar(&o.JSON, "json", false, "print the evaluation as JSON")
	f.BoolVar(&o.Locked, "locked", false, "judge as if no change were declared yet, without reading jj")
	return cmd
}

// runGateCheck judges the call the options describe and prints the
// evaluation; it returns exit status 3 when the hook would deny the call.
func runGateCheck(ctx context.Context, a *app, o *gateCheckOptions) error {
	ad, err := hosts.Lookup(o.Host)
	if err != nil {
		return err
	}
	call, err := gateCall(ad, o)
	if err != nil {
		return err
	}
	project, err := a.repoDir(o.Repo)
	if err != nil {
		return err
	}
	cwd := o.Cwd
	if cwd == "" && o.Repo != "" {
		cwd = project // --project alone: the call runs there
	}
	if cwd == "" {
		if cwd, err = a.Getwd(); err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
	}
	if cwd, err = filepath.Abs(cwd); err != nil {
		return err
	}
	if st, err := os.Stat(cwd); err != nil || !st.IsDir() {
		return fmt.Errorf("--cwd %s is not a directory", cwd)
	}
	opt := gate.EvalOptions{ProjectDir: project, AssumeLocked: o.Locked, Getenv: a.Getenv, PlanqTool: ad.Host().Tool}
	if ad.Host().Rewrites && call.Tool.Kind == gate.KindShell && sandbox.Detect().Available() {
		// What the hook does for this host: a locked shell call runs in the
		// OS sandbox, through the entry point beside this planq.
		if entry, err := sandbox.Entry(); err == nil {
			opt.SandboxEntry = entry
		}
	}
	ev := gate.Evaluate(ctx, call, cwd, opt)
	if o.JSON {
		err = writeGateJSON(a, ev)
	} else {
		err = writeGateText(a, ev, o.Locked)
	}
	if err != nil {
		return err
	}
	if !ev.Decision.Allow {
		return exitError{code: exitGateDeny}
	}
	return nil
}

// gateCall builds the tool call from the options.
func gateCall(ad hosts.Adapter, o *gateCheckOptions) (gate.ToolCall, error) {
	hasBash, bash, tool, input := o.HasBash, o.Bash, o.Tool, o.Input
	switch {
	case hasBash && tool != "":
		return gate.ToolCall{}, errors.New("give either --bash or --tool, not both")
	case hasBash:
		if input != "" {
			return gate.ToolCall{}, errors.New("--input goes with --tool; --bash takes the command itself")
		}
		in, _ := json.Marshal(map[string]string{"command": bash})
		return gate.ToolCall{Name: "Bash", Tool: gate.Tool{Kind: gate.KindShell, Field: "command"}, Input: in}, nil
	case tool != "":
		if input == "" {
			input = "{}"
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(input), &obj); err != nil || obj == nil {
			return gate.ToolCall{}, fmt.Errorf("--input is not a JSON object: %s", strings.TrimSpace(input))
		}
		return gate.ToolCall{Name: tool, Tool: ad.GateTool(tool), Input: json.RawMessage(input)}, nil
	}
	return gate.ToolCall{}, errors.New("nothing to check: give --bash 'COMMAND' or --tool NAME [--input JSON] (see planq gate check --help)")
}

func writeGateText(a *app, ev gate.Evaluation, assumed bool) error {
	w := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	v := ev.Verdict
	kind := "read-only"
	if v.Modifies {
		kind = "modifying"
	}
	fmt.Fprintf(w, "verdict:\t%s\n", kind)
	if v.Part != "" {
		fmt.Fprintf(w, "part:\t%s\n", text.OneLine(v.Part))
	}
	fmt.Fprintf(w, "reason:\t%s\n", v.Reason)
	if v.Git != nil {
		fmt.Fprintf(w, "git:\t%s rewrites history; in jj: %s\n", v.Git.Command, v.Git.JJ)
	}
	fmt.Fprintf(w, "gate:\t%s\n", gateStateText(ev, assumed))
	action := "would allow"
	switch {
	case ev.Decision.Sandbox:
		action = "would run it in the OS sandbox, the project read-only (" + sandbox.Detect().String() + ")"
	case ev.Decision.Warn:
		action = "would allow with a warning (gate.mode: warn)"
	case !ev.Decision.Allow:
		action = "would deny"
	}
	fmt.Fprintf(w, "hook:\t%s\n", action)
	if ev.Decision.Message != "" {
		fmt.Fprintf(w, "message:\t%s\n", ev.Decision.Message)
	}
	if ev.Decision.Command != "" {
		fmt.Fprintf(w, "runs:\t%s\n", ev.Decision.Command)
	}
	if ev.SandboxOff != "" {
		fmt.Fprintf(w, "sandbox:\toff (%s): parser-only\n", ev.SandboxOff)
	}
	return w.Flush()
}

func gateStateText(ev gate.Evaluation, assumed bool) string {
	switch {
	case ev.Mode == "off":
		return "off (gate.mode: off)"
	case ev.ConfigErr != nil:
		return "configuration invalid: " + text.OneLine(ev.ConfigErr.Error())
	case ev.State == nil:
		return "not consulted (the call does not modify)"
	case ev.StateErr != nil:
		return "unknown: " + text.OneLine(ev.StateErr.Error())
	case assumed:
		return "assumed locked (--locked)"
	case !ev.State.IsJJRepo:
		return "locked (not a jj repository)"
	case ev.State.Locked:
		return "locked (@ " + jj.ShortID(ev.State.ChangeID) + " has no description)"
	}
	title, _, _ := strings.Cut(ev.State.Description, "\n")
	return fmt.Sprintf("unlocked (@ %s: %s)", jj.ShortID(ev.State.ChangeID), title)
}

func writeGateJSON(a *app, ev gate.Evaluation) error {
	out := struct {
		gate.Evaluation
		Modifies  bool   `json:"modifies"`
		Action    string `json:"action"` // allow, warn, deny or sandbox
		StateErr  string `json:"state_error,omitempty"`
		ConfigErr string `json:"config_error,omitempty"`
	}{Evaluation: ev, Modifies: ev.Verdict.Modifies, Action: "allow"}
	switch {
	case ev.Decision.Sandbox:
		out.Action = "sandbox"
	case ev.Decision.Warn:
		out.Action = "warn"
	case !ev.Decision.Allow:
		out.Action = "deny"
	}
	if ev.StateErr != nil {
		out.StateErr = ev.StateErr.Error()
	}
	if ev.ConfigErr != nil {
		out.ConfigErr = ev.ConfigErr.Error()
	}
	enc := json.NewEncoder(a.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
