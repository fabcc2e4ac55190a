package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks"
)

// defaultAgent is the agent command start, continue and resume launch.
const defaultAgent = "claude"

type sessionOptions struct {
	Repo     string
	AgentCmd string
}

func (o *sessionOptions) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	cmd.Flags().StringVar(&o.AgentCmd, "agent-cmd", defaultAgent, "agent command to launch, split into words (no shell); \"none\" only prints what to run")
}

func (a *app) workflowOptions(o *sessionOptions) (hooks.WorkflowOptions, error) {
	dir, err := a.repoDir(o.Repo)
	if err != nil {
		return hooks.WorkflowOptions{}, err
	}
	return hooks.WorkflowOptions{Dir: dir, Getenv: a.Getenv}, nil
}

func newStartCmd(a *app) *cobra.Command {
	o := &sessionOptions{}
	cmd := &cobra.Command{
		Use:   "start TASK",
		Short: "Declare a change for TASK (as jj_init does) and launch Claude Code in it",
		Long: `Create the change the agent works in, described by TASK, as jj_init does:
fetch, then jj new on trunk() (or @ when there is no trunk). Undescribed work
in the working copy is carried into the change (described in place, or rebased
onto trunk() first), never dropped; work left behind is named with the command
that brings it along. The change is recorded as the root of a new session
lineage, and the agent (Claude Code by default) is launched with TASK as its
first prompt.`,
		Example: `  planq start "Add rate limiting to the API"
  planq start "Fix the flaky test" --agent-cmd "claude --model opus"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			wo, err := a.workflowOptions(o)
			if err != nil {
				return err
			}
			st, err := hooks.Start(cmd.Context(), wo, args[0])
			if err != nil {
				return err
			}
			a.sayStarted(st, fmt.Sprintf("Started change %s: %s", short12(st.Change.ChangeID), st.Task))
			return a.launch(cmd.Context(), o.AgentCmd, st.Repo, []string{args[0]})
		},
	}
	o.flags(cmd)
	return cmd
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
			wo, err := a.workflowOptions(o)
			if err != nil {
				return err
			}
			desc := ""
			if len(args) == 1 {
				desc = args[0]
			}
			st, err := hooks.Continue(cmd.Context(), wo, desc)
			if err != nil {
				return err
			}
			a.sayStarted(st, fmt.Sprintf("Checkpointed: new change %s in the session of %s (%s)", short12(st.Change.ChangeID), short12(st.Root), st.Task))
			prompt := "Continue the task: " + st.Task + ". The parent change's description, in your context, is the handoff from the previous session."
			return a.launch(cmd.Context(), o.AgentCmd, st.Repo, []string{prompt})
		},
	}
	o.flags(cmd)
	return cmd
}

func newResumeCmd(a *app) *cobra.Command {
	o := &sessionOptions{}
	cmd := &cobra.Command{
		Use:   "resume CHANGE",
		Short: "Make CHANGE the working copy and resume its Claude Code session",
		Long: `Find the Claude Code session recorded for CHANGE, make CHANGE the working
copy (jj edit) and run claude --resume with that session. A change that was
pushed (immutable, on trunk) cannot be edited: the session goes on in a new
change on top of it, in the same lineage (its "Session:" trailer names the
root). A change squashed away resumes in its lineage's root; a lineage whose
root was abandoned is not resumable.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			wo, err := a.workflowOptions(o)
			if err != nil {
				return err
			}
			st, err := hooks.Resume(cmd.Context(), wo, args[0])
			if err != nil {
				return err
			}
			a.sayStarted(st, fmt.Sprintf("Working copy is now %s (%s); resuming Claude Code session %s", short12(st.Change.ChangeID), st.Change.Title(), st.SessionID))
			return a.launch(cmd.Context(), o.AgentCmd, st.Repo, []string{"--resume", st.SessionID})
		},
	}
	o.flags(cmd)
	return cmd
}

func (a *app) sayStarted(st hooks.Started, line string) {
	if st.Warning != "" {
		fmt.Fprintf(a.Stderr, "planq: warning: %s\n", st.Warning)
	}
	for _, n := range st.Notes {
		fmt.Fprintf(a.Stderr, "planq: note: %s\n", n)
	}
	fmt.Fprintf(a.Stderr, "planq: %s\n", line)
}

// launch runs the agent command with args in dir, attached to planq's
// streams, and returns its exit status. When the agent is not installed (or
// agentCmd is "none") it prints what to run instead.
func (a *app) launch(ctx context.Context, agentCmd, dir string, args []string) error {
	a.warnUnwired(dir)
	argv := splitWords(agentCmd)
	if agentCmd == "none" || len(argv) == 0 {
		fmt.Fprintf(a.Stdout, "Run in %s:\n  %s\n", dir, shellLine(append(splitWords(defaultAgent), args...)))
		return nil
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(a.Stdout, "planq: %s is not installed or not on PATH. When it is, run in %s:\n  %s\n", argv[0], dir, shellLine(append(argv, args...)))
		return nil
	}
	cmd := exec.CommandContext(ctx, path, append(argv[1:], args...)...)
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

// splitWords splits an agent command into words, honouring quotes.
func splitWords(s string) []string { return hooks.ShellFields(s) }

// shellLine renders argv as a command line a user can paste.
func shellLine(argv []string) string {
	out := make([]string, len(argv))
	for i, w := range argv {
		out[i] = hooks.ShellQuote(w)
	}
	return strings.Join(out, " ")
}

// warnUnwired warns when Claude Code would start in dir without planq's
// server or hooks (so without the gate), with the fix doctor gives.
func (a *app) warnUnwired(dir string) {
	home, _ := a.homeDir()
	for _, c := range wiringChecks(hooks.Installed(dir, home)) {
		if !c.OK {
			fmt.Fprintf(a.Stderr, "planq: warning: %s, so the agent runs without planq's gate; fix: %s\n", c.Detail, c.Fix)
		}
	}
}
