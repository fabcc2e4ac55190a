package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/internal/version"
)

// app holds what commands depend on, so tests can run them in-process with
// their own streams, environment and working directory.
type app struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	// Executable is the absolute path of the planq binary, for wiring hooks.
	Executable func() (string, error)
	// Maintainer is the planq binary state writes start to maintain the
	// state repo in the background (`planq state gc --auto`); empty (tests
	// running commands in-process) maintains in the foreground.
	Maintainer string
	// Exit ends the process; nil (tests running commands in-process) never
	// does. The pre-tool-use hook ends its process with the answer it gave
	// at its deadline (session.RunPreToolUseProcess).
	Exit func(int)
}

func newApp() *app {
	exe := func() (string, error) {
		p, err := os.Executable()
		if err != nil {
			return "", err
		}
		return filepath.EvalSymlinks(p)
	}
	maintainer, _ := exe()
	return &app{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Exit: os.Exit,
		Getenv: os.Getenv, Getwd: os.Getwd,
		Executable: exe,
		Maintainer: maintainer,
	}
}

// exitError carries a process exit code without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// run executes the CLI and returns the process exit code. Errors are printed
// as one line on stderr, never with a stack trace.
func run(ctx context.Context, a *app, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(a.Stderr, "planq: internal error: %v (please report it)\n", r)
			code = 70
		}
		// The gate fails closed: Claude Code lets a tool call through when
		// its PreToolUse hook exits with any status but 0 or 2, so every
		// other failure of `planq hook pre-tool-use` becomes 2, which blocks.
		if len(args) >= 2 && args[0] == "hook" && args[1] == "pre-tool-use" && code != 0 && code != 2 {
			fmt.Fprintf(a.Stderr, "planq hook pre-tool-use: blocked: the hook failed (exit %d)\n", code)
			code = 2
		}
	}()
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	msg := strings.TrimSpace(err.Error())
	if strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown shorthand flag") {
		msg += "; see 'planq --help'"
	}
	fmt.Fprintf(a.Stderr, "planq: %s\n", msg)
	return 1
}

// hostList names every agent host planq plugs into, for prose: "Claude
// Code, OpenCode, … and Copilot CLI".
func hostList() string {
	var names []string
	for _, ad := range hosts.All() {
		names = append(names, ad.Host().Display)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "planq",
		Short: "Keep an AI coding agent's work in the jj change graph, and its memory in git",
		Long: `planq makes the Jujutsu (jj) change graph the record of an AI coding agent's work,
in ` + hostList() + `.

The agent declares its change before it edits (jj new -m "what I am about to do"),
keeps the change description current, checkpoints with jj new, and can read what
an earlier change did. Agent memory lives in a git repo outside the code repo.

Start here:
  planq doctor              check jj, the repo and each agent host's wiring
  planq mcp install         wire the MCP server and hooks into the agent hosts
                            found on this machine (--host names them)
  planq mcp serve           run the stdio MCP server (the agent host starts it)
  planq start TASK          declare a change for TASK and launch the agent in it`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
	}
	root.SetVersionTemplate("planq {{.Version}}\n")
	root.CompletionOptions.HiddenDefaultCmd = true
	root.AddCommand(
		newVersionCmd(a),
		newDoctorCmd(a),
		newMCPCmd(a),
		newStateCmd(a),
		newCreateCmd(a),
		newRemoveCmd(a),
		newLogCmd(a),
		newLearnCmd(a),
		newDecideCmd(a),
		newHandoffCmd(a),
		newContextCmd(a),
		newCheckpointCmd(a),
		newSearchCmd(a),
		newGateCmd(a),
		newHookCmd(a),
		newStartCmd(a),
		newContinueCmd(a),
		newResumeCmd(a),
		newAgentsCmd(a),
		newStatsCmd(a),
		newStatuslineCmd(a),
		newUICmd(a),
		newVaultCmd(a),
	)
	return root
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print planq's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.Stdout, "planq %s\n", version.String())
			return err
		},
	}
}

// repoDir returns the directory planq works in: --repo when given, else
// CLAUDE_PROJECT_DIR when set, else the working directory.
func (a *app) repoDir(flag string) (string, error) {
	dir := flag
	if dir == "" {
		dir = a.Getenv("CLAUDE_PROJECT_DIR")
	}
	if dir == "" {
		wd, err := a.Getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("repo directory %s: %w", abs, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return "", fmt.Errorf("repo directory %s is not a directory", abs)
	}
	return abs, nil
}

// lookPath finds a command on the app's PATH; a name with a directory in
// it is taken as it is.
func (a *app) lookPath(name string) (string, error) {
	if strings.ContainsAny(name, `/\`) {
		return exec.LookPath(name)
	}
	for _, dir := range filepath.SplitList(a.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if p, err := exec.LookPath(p); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
