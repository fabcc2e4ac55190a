package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/hooks/session"
)

// hookTimeout bounds one session hook call; the hosts' own timeouts for
// planq's hooks (set by planq mcp install) are longer, so planq always
// answers first.
const hookTimeout = 20 * time.Second

// hookDefs are the subcommands of `planq hook`, one per session event.
var hookDefs = []struct{ event, short string }{
	{session.EventSessionStart, "give the model the change, its summary, the gate and the agent state"},
	{session.EventPreToolUse, "the gate: deny file-modifying calls until the change is declared"},
	{session.EventPostToolUse, "record the files a call modified and the session's changes"},
	{session.EventPreCompact, "store the transcript so far and log the compaction"},
	{session.EventStop, "ask once for a living summary when the diff moved and the description lacks one"},
	{session.EventSessionEnd, "store the transcript and log the end of the session"},
	{session.EventWorktreeCreate, "make a jj workspace for a parallel agent and print its directory"},
	{session.EventWorktreeRemove, "forget a parallel agent's jj workspace; its change stays"},
}

// newHookCmd returns `planq hook`, the parent of the commands agent hosts
// run as hooks.
func newHookCmd(a *app) *cobra.Command {
	var host string
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Agent host hook handlers (wired by 'planq mcp install')",
		Long: `Agent hosts run these with the hook's input on stdin, in their own protocol
(--host). 'planq mcp install' wires them into each host's settings or plugin;
you do not run them by hand.

pre-tool-use fails closed: bad input, an internal error or a timeout deny the
call with the error as the reason (gate.on_error: allow in .planq/config.yaml
lets it through instead). worktree-create and worktree-remove exit 1 with one
line on stderr when they fail, so the host makes no worktree without a
workspace. The other hooks never block the user on an internal error: they
print one line on stderr and exit 0.`,
		Args: cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&host, "host", "", "the agent host whose protocol to speak: "+fmt.Sprint(hosts.Names())+" (default $PLANQ_HOST, else claude)")
	for _, d := range hookDefs {
		cmd.AddCommand(&cobra.Command{
			Use:   d.event,
			Short: d.event + " hook: " + d.short,
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ad, err := hosts.ForHook(host, a.Getenv)
				if err != nil {
					return err
				}
				if code := serveHook(cmd, a, ad.Protocol(), d.event); code != 0 {
					return exitError{code: code}
				}
				return nil
			},
		})
	}
	cmd.AddCommand(newHookSandboxCmd())
	return cmd
}

// newHookSandboxCmd returns `planq hook sandbox`, the entry point a
// rewritten shell command runs (the same as planq-hook sandbox).
func newHookSandboxCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sandbox --root DIR [--tool NAME]... [--shell SHELL] -- COMMAND",
		Short: "Run a locked shell command in the OS sandbox, the project read-only (the gate's rewrite runs it)",
		Long: `Run COMMAND (one argument) with SHELL (the host's shell), else the shell that
started this, in the same working directory and environment (TMPDIR set to a
private directory when the one it names holds the project or the home
directory), inside the OS sandbox: DIR, the project, is read-only, as are the
places programs load code from; temporary directories and build caches stay
writable (Landlock on Linux, Seatbelt on macOS). The pre-tool-use hook rewrites a locked shell call into
this; you do not run it by hand. When COMMAND fails on a refused write, one
line on stderr names the project as read-only and the --tool to call to
declare the change. Exit status: COMMAND's (128+N for signal N), or 126 when
it could not run (one line on stderr says why).`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
				return cmd.Help()
			}
			if code := sandbox.Main(args); code != 0 {
				return exitError{code: code}
			}
			return nil
		},
	}
}

// serveHook serves one event in proto's protocol and returns the exit status.
func serveHook(cmd *cobra.Command, a *app, proto session.Protocol, event string) int {
	switch event {
	case session.EventPreToolUse:
		return session.RunPreToolUseProcess(cmd.Context(), proto, a.Stdin, a.Stdout, a.Stderr, a.Getenv, a.Exit)
	case session.EventPostToolUse: // the same process as planq-hook's
		return session.RunPostToolUse(cmd.Context(), proto, a.Stdin, a.Stdout, a.Stderr, session.Env{Getenv: a.Getenv})
	}
	r := &hooks.Runner{Env: session.Env{Getenv: a.Getenv}, WireWorkspace: a.wireWorkspace}
	switch event {
	case session.EventWorktreeCreate, session.EventWorktreeRemove:
		return session.ServeStrict(cmd.Context(), proto, event, a.Stdin, a.Stdout, a.Stderr, a.Getenv, workspaceTimeout, r.Handle)
	}
	return session.Serve(cmd.Context(), proto, event, a.Stdin, a.Stdout, a.Stderr, a.Getenv, hookTimeout, r.Handle)
}

// workspaceTimeout bounds worktree-create and worktree-remove, which run
// several jj commands; Claude Code's timeouts for them (planq mcp install)
// are longer.
const workspaceTimeout = 90 * time.Second

// wireWorkspace wires the new jj workspace ws of the project at mainRoot
// for the hosts wired there, with this planq (hooks.Runner.WireWorkspace).
func (a *app) wireWorkspace(ctx context.Context, mainRoot, ws string) error {
	home, err := a.homeDir()
	if err != nil {
		return err
	}
	exe, err := a.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the planq binary's path: %w", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return err
	}
	o := a.wiringPlace(mainRoot, home)
	o.Exe, o.HookExe = exe, conffile.HookBinaryBeside(exe)
	return hosts.WireWorkspace(ctx, o, ws)
}
