package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/workflow"
)

// sessionOptions are the flags and argument of `planq start`, `continue`
// and `resume`.
type sessionOptions struct {
	Repo      string
	Agent     string
	AgentCmd  string
	Workspace string // start: a jj workspace of this name for the agent
	Arg       string // start: TASK; continue: DESCRIPTION; resume: CHANGE
}

func (o *sessionOptions) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	cmd.Flags().StringVar(&o.Agent, "agent", "", "agent host to launch: "+strings.Join(hosts.Names(), ", ")+" (default: claude; resume: the session's own)")
	cmd.Flags().StringVar(&o.AgentCmd, "agent-cmd", "", "command that runs the agent, split into words (no shell; default: the host's CLI). planq's arguments for the host (the task, or the resume arguments) go right after the host's CLI in it, after its subcommand for `codex exec` and `opencode run`, before your other words (at the end when no word is the host's CLI); \"none\" only prints what to run")
}

// agent returns the host to launch: --agent, else recorded (the host a
// resumed session ran in), else Claude Code.
func (o *sessionOptions) agent(recorded string) (hosts.Adapter, error) {
	name := o.Agent
	if name == "" {
		name = recorded
	}
	if name == "" {
		name = hosts.Default
	}
	return hosts.Lookup(name)
}

// workflowOptions are the session workflow's options for the repo o names.
func (a *app) workflowOptions(o *sessionOptions) (workflow.Options, error) {
	dir, err := a.repoDir(o.Repo)
	if err != nil {
		return workflow.Options{}, err
	}
	return workflow.Options{Dir: dir, Getenv: a.Getenv}, nil
}

// prepare resolves the repo and the host to launch (--agent, else recorded)
// before anything changes, so a bad flag changes nothing.
func (a *app) prepare(o *sessionOptions, recorded string) (workflow.Options, hosts.Adapter, error) {
	wo, err := a.workflowOptions(o)
	if err != nil {
		return wo, nil, err
	}
	ad, err := o.agent(recorded)
	return wo, ad, err
}

func newStartCmd(a *app) *cobra.Command {
	o := &sessionOptions{}
	cmd := &cobra.Command{
		Use:   "start TASK",
		Short: "Declare a change for TASK (as jj_init does) and launch the agent in it",
		Long: `Create the change the agent works in, described by TASK, as jj_init does:
fetch, then jj new on trunk() (or @ when there is no trunk). Undescribed work
in the working copy is carried into the change (described in place, or rebased
onto trunk() first), never dropped; work left behind is named with the command
that brings it along. The change is recorded as the root of a new session
lineage, and the agent (Claude Code by default; --agent opencode, codex, gemini
or copilot for another host) is launched with TASK as its first prompt.

With -w NAME the agent gets a jj workspace of its own (.planq/workspaces/NAME,
on trunk()), wired like the main working copy, so several agents can work on
the repo at once without seeing each other's edits: the change is declared
there, and the agent starts there (Claude Code as 'claude --worktree NAME',
through planq's worktree hook). 'planq agents' lists the workspaces.`,
		Example: `  planq start "Add rate limiting to the API"
  planq start -w pager "Fix the off-by-one in the pager"
  planq start "Fix the flaky test" --agent opencode
  planq start "Fix the flaky test" --agent-cmd "claude --model opus"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Arg = args[0]
			return runStart(cmd.Context(), a, o)
		},
	}
	o.flags(cmd)
	cmd.Flags().StringVarP(&o.Workspace, "workspace", "w", "", "start the agent in a jj workspace of its own named NAME (made when missing)")
	return cmd
}

// runStart is `planq start TASK`.
func runStart(ctx context.Context, a *app, o *sessionOptions) error {
	wo, ad, err := a.prepare(o, "")
	if err != nil {
		return err
	}
	if o.Workspace != "" {
		return a.startInWorkspace(ctx, o, wo, ad, o.Arg)
	}
	st, err := workflow.Start(ctx, wo, o.Arg)
	if err != nil {
		return err
	}
	a.sayStarted(st, fmt.Sprintf("Started change %s: %s", jj.ShortID(st.Change.ChangeID), st.Task))
	return a.launch(ctx, ad, o.AgentCmd, st.Repo, ad.Launch(o.Arg, ""))
}

// startInWorkspace is `planq start -w NAME TASK`: the workspace (made, or
// found), the change declared in it, the agent launched there.
func (a *app) startInWorkspace(ctx context.Context, o *sessionOptions, wo workflow.Options, ad hosts.Adapter, task string) error {
	ws, err := workflow.CreateWorkspace(ctx, wo, workflow.NewWorkspace{Name: o.Workspace, Base: session.BaseFresh, Host: ad.Host(), Wire: a.wireWorkspace})
	if err != nil {
		return err
	}
	if ws.Existed {
		fmt.Fprintf(a.Stderr, "planq: workspace %s is there already (%s); starting in it\n", ws.Name, ws.Path)
	} else {
		fmt.Fprintf(a.Stderr, "planq: made workspace %s at %s\n", ws.Name, ws.Path)
	}
	wo.Dir = ws.Path
	st, err := workflow.Start(ctx, wo, task)
	if err != nil {
		return err
	}
	a.sayStarted(st, fmt.Sprintf("Started change %s in workspace %s: %s", jj.ShortID(st.Change.ChangeID), ws.Name, st.Task))
	if wl, ok := ad.(hosts.WorktreeLauncher); ok {
		main, err := jj.MainRoot(ws.Path)
		if err != nil {
			return err
		}
		return a.launch(ctx, ad, o.AgentCmd, main, wl.LaunchWorktree(ws.Name, task))
	}
	return a.launch(ctx, ad, o.AgentCmd, ws.Path, ad.Launch(task, ""))
}

func newContinueCmd(a *app) *cobra.Command {
	o := &sessionOptions{}
	cmd := &cobra.Command{
		Use:   "continue [DESCRIPTION]",
		Short: "Checkpoint (jj new, lineage kept) and launch a fresh agent session on top",
		Long: `When the context is full, continue on a new change: planq runs jj new on @
(linking the new change to the session lineage), and launches a fresh agent
session there. Its SessionStart context carries the parent's description, the
handoff; the full transcript stays reachable with query_ancestor.
DESCRIPTION defaults to "Continue: <task>".`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Arg = args[0]
			}
			return runContinue(cmd.Context(), a, o)
		},
	}
	o.flags(cmd)
	return cmd
}

// runContinue is `planq continue [DESCRIPTION]`.
func runContinue(ctx context.Context, a *app, o *sessionOptions) error {
	wo, ad, err := a.prepare(o, "")
	if err != nil {
		return err
	}
	st, err := workflow.Continue(ctx, wo, o.Arg)
	if err != nil {
		return err
	}
	a.sayStarted(st, fmt.Sprintf("Checkpointed: new change %s in the session of %s (%s)", jj.ShortID(st.Change.ChangeID), jj.ShortID(st.Root), st.Task))
	prompt := "Continue the task: " + st.Task + ". The parent change's description, in your context, is the handoff from the previous session."
	return a.launch(ctx, ad, o.AgentCmd, st.Repo, ad.Launch(prompt, ""))
}

func newResumeCmd(a *app) *cobra.Command {
	o := &sessionOptions{}
	cmd := &cobra.Command{
		Use:   "resume CHANGE",
		Short: "Make CHANGE the working copy and resume its agent session",
		Long: `Find the agent session recorded for CHANGE, make CHANGE the working copy
(jj edit) and resume that session in the host it ran in (claude --resume ID,
opencode --session ID). A change that was
pushed (immutable, on trunk) cannot be edited: the session goes on in a new
change on top of it, in the same lineage (its "Session:" trailer names the
root). A change squashed away resumes in its lineage's root; a lineage whose
root was abandoned is not resumable.

A teammate's session comes along too: after 'jj git fetch', a change they
pushed finds its lineage in this machine's session store (pulled with 'planq
state pull'), else planq fetches that one lineage from the state remote now.
When Claude Code's own file of the session is missing here (it ran on another
machine, or Claude Code's cleanup deleted it) or lacks turns a teammate added,
planq writes it from the stored transcript, with the session's workspace moved
to this checkout, and Claude Code resumes the whole conversation. Sessions of
other hosts resume from their own files.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Arg = args[0]
			return runResume(cmd.Context(), a, o)
		},
	}
	o.flags(cmd)
	return cmd
}

// runResume is `planq resume CHANGE`: the host is the session's own unless
// --agent names another (which is refused, as it cannot resume it).
func runResume(ctx context.Context, a *app, o *sessionOptions) error {
	wo, err := a.workflowOptions(o)
	if err != nil {
		return err
	}
	if o.Agent != "" {
		if _, err := o.agent(""); err != nil {
			return err
		}
	}
	st, err := workflow.Resume(ctx, wo, o.Arg)
	if err != nil {
		return err
	}
	ad, err := o.agent(st.Host)
	if err != nil {
		return err
	}
	if ad.Host().Name != st.Host {
		return fmt.Errorf("the session of %s ran in %s, so %s cannot resume it; run planq resume %s (without --agent), or planq continue --agent %s for a fresh session on top", jj.ShortID(st.Change.ChangeID), hostDisplay(st.Host), ad.Host().Display, o.Arg, ad.Host().Name)
	}
	a.sayStarted(st, fmt.Sprintf("Working copy is now %s (%s); resuming %s session %s", jj.ShortID(st.Change.ChangeID), st.Change.Title(), ad.Host().Display, st.SessionID))
	return a.launch(ctx, ad, o.AgentCmd, st.Repo, ad.Launch("", st.SessionID))
}

func (a *app) sayStarted(st workflow.Started, line string) {
	if st.Warning != "" {
		fmt.Fprintf(a.Stderr, "planq: warning: %s\n", st.Warning)
	}
	for _, n := range st.Notes {
		fmt.Fprintf(a.Stderr, "planq: note: %s\n", n)
	}
	fmt.Fprintf(a.Stderr, "planq: %s\n", line)
}

// launch runs the host's agent command (agentCmd, else the host's CLI)
// with args in dir, attached to planq's streams, and returns its exit
// status. When the agent is not installed (or agentCmd is "none") it prints
// what to run instead.
func (a *app) launch(ctx context.Context, ad hosts.Adapter, agentCmd, dir string, args []string) error {
	a.warnUnwired(ad, dir)
	argv := conffile.Fields(agentCmd)
	if agentCmd == "" {
		argv = []string{ad.Command()}
	}
	if agentCmd == "none" || len(argv) == 0 {
		fmt.Fprintf(a.Stdout, "Run in %s:\n  %s\n", dir, conffile.Line(append([]string{ad.Command()}, args...)...))
		return nil
	}
	argv = hosts.AgentArgv(ad, argv, args)
	path, err := a.lookPath(argv[0])
	if err != nil {
		fmt.Fprintf(a.Stdout, "planq: %s is not installed or not on PATH. When it is, run in %s:\n  %s\n", argv[0], dir, conffile.Line(argv...))
		return nil
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.Stdin, a.Stdout, a.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return exitError{code: ee.ExitCode()}
		}
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	return nil
}

// hostDisplay is the display name of the host named name.
func hostDisplay(name string) string {
	if ad, err := hosts.Lookup(name); err == nil {
		return ad.Host().Display
	}
	return name
}

// warnUnwired warns when the host would start in dir without planq's
// server or hooks (so without the gate), with the fix doctor gives.
func (a *app) warnUnwired(ad hosts.Adapter, dir string) {
	home, _ := a.homeDir()
	for _, c := range wiringChecks(ad, ad.Installed(a.wiringPlace(dir, home))) {
		if !c.OK {
			fmt.Fprintf(a.Stderr, "planq: warning: %s, so the agent runs without planq's gate; fix: %s\n", c.Detail, c.Fix)
		}
	}
}
