package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/workflow"
)

// agentsOptions are `planq agents`' flags.
type agentsOptions struct {
	Repo string
	JSON bool
}

func newAgentsCmd(a *app) *cobra.Command {
	o := &agentsOptions{}
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the repo's parallel agents: every jj workspace, its change, gate and summary",
		Long: `List every jj workspace of the repo, the main working copy first: its name,
directory, working-copy change, gate state (declared or locked), the first
line of its living summary, its diff stat, its conflicts, and when its change
last moved. What a workspace holds is shown as of its last snapshot (the
last jj command run in it).

Parallel agents get workspaces from Claude Code's worktrees (claude
--worktree NAME, EnterWorktree, subagents with worktree isolation, through
planq's worktree hooks) and from 'planq start -w NAME'.`,
		Example: `  planq agents
  planq agents --json
  planq agents remove fix-pager`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAgents(cmd.Context(), a, o)
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	cmd.AddCommand(newAgentsRemoveCmd(a))
	return cmd
}

func runAgents(ctx context.Context, a *app, o *agentsOptions) error {
	dir, err := a.repoDir(o.Repo)
	if err != nil {
		return err
	}
	list, err := workflow.Agents(ctx, workflow.Options{Dir: dir})
	if err != nil {
		return err
	}
	if o.JSON {
		if list == nil {
			list = []workflow.AgentStatus{}
		}
		return writeJSON(a.Stdout, list)
	}
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCHANGE\tGATE\tSUMMARY\tDIFF\tCONFLICTS\tACTIVE\tPATH")
	for _, ag := range list {
		gate := "locked"
		if ag.Declared {
			gate = "declared"
		}
		summary := ag.Summary
		if summary == "" {
			summary = "(no description)"
		}
		conflicts := "-"
		if len(ag.Conflicts) > 0 {
			conflicts = strings.Join(ag.Conflicts, ",")
		}
		name := ag.Name
		if ag.Main {
			name += " (main)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, jj.ShortID(ag.Change), gate, cut(summary, 50),
			jj.ParseStat(ag.DiffStat), conflicts, text.Ago(time.Now(), ag.Updated), ag.Path)
	}
	return tw.Flush()
}

// agentsRemoveOptions are `planq agents remove`'s flags.
type agentsRemoveOptions struct {
	Repo string
	Name string
}

func newAgentsRemoveCmd(a *app) *cobra.Command {
	o := &agentsRemoveOptions{}
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Forget a parallel agent's workspace; its change stays in the graph",
		Long: `Forget the jj workspace NAME. Its working copy is snapshotted first, so every
edit in it, described or not, stays in its change, which stays in the graph
(jj log shows it; fold it in with jj squash, or push it). The directory goes
when planq made it (under .planq/workspaces/) and jj has everything in it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runAgentsRemove(cmd.Context(), a, o)
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	return cmd
}

func runAgentsRemove(ctx context.Context, a *app, o *agentsRemoveOptions) error {
	dir, err := a.repoDir(o.Repo)
	if err != nil {
		return err
	}
	r, err := workflow.RemoveAgent(ctx, workflow.Options{Dir: dir, Getenv: a.Getenv}, o.Name)
	if err != nil {
		return err
	}
	title := r.Change.Title()
	if title == "" {
		title = "(no description)"
	}
	fmt.Fprintf(a.Stdout, "Forgot workspace %s. Its change %s stays: %s (jj log -r %s)\n", r.Name, jj.ShortID(r.Change.ChangeID), title, jj.ShortID(r.Change.ChangeID))
	if r.KeptDir {
		fmt.Fprintf(a.Stdout, "Its directory stays (%s).\n", r.Why)
	}
	return nil
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
