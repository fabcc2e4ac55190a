package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/staterepo"
)

func newCreateCmd(a *app) *cobra.Command {
	var f stateFlags
	var gitignore bool
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create an agent: branch agent-NAME checked out at .planq/agent/",
		Long: `Create an agent's state branch, agent-NAME, and check it out as a git worktree
at <code repo>/.planq/agent/ with scratch.md, context.md, changelog.md,
learnings.md, decisions.md, artifacts/, notes/ and checkpoints/.

NAME is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.
An existing name is refused. When the worktree holds another agent, it is
switched to the new one if it has no uncommitted changes. The code repo ignores
.planq/agent/ through its info/exclude, in the git directory behind it (or
.gitignore with --gitignore, and in a jj repo that no git directory backs).
The worktree's agent becomes the current agent unless PLANQ_AGENT or "agent:"
in .planq/config.yaml names another.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			res, err := s.Create(cmd.Context(), args[0], gitignore)
			if err != nil {
				return err
			}
			if f.JSON {
				return writeJSON(a.Stdout, res)
			}
			fmt.Fprintf(a.Stdout, "Created agent %s (branch %s) at %s\n", res.Agent, res.Branch, res.Worktree)
			if res.Switched != "" {
				fmt.Fprintf(a.Stdout, "The worktree held agent %s before; its branch is kept.\n", res.Switched)
			}
			if s.AgentSource != staterepo.SourceWorktree && s.AgentSource != staterepo.SourceDefault && s.Agent != res.Agent {
				fmt.Fprintf(a.Stderr, "planq: note: the current agent is still %s (from %s); writes go there until you change it\n", s.Agent, s.AgentSource)
			}
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().BoolVar(&gitignore, "gitignore", false, "ignore .planq/agent/ in .gitignore instead of .git/info/exclude")
	return cmd
}

func newRemoveCmd(a *app) *cobra.Command {
	var f stateFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove agent NAME's worktree from this code repo; its branch stays",
		Long: `Remove the .planq/agent/ worktree of agent NAME from this code repo, and git's
record of it. The branch agent-NAME and its history stay in the state repo:
promote what is worth keeping (planq context promote), then 'planq state gc'
deletes branches of removed agents whose entries are all in global.
A worktree with uncommitted changes is kept unless --force is given.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			if err := s.Remove(cmd.Context(), args[0], force); err != nil {
				return err
			}
			if f.JSON {
				return writeJSON(a.Stdout, map[string]any{"removed": args[0], "worktree": s.Worktree})
			}
			fmt.Fprintf(a.Stdout, "Removed %s (agent %s); branch agent-%s is kept until `planq state gc`\n", s.Worktree, args[0], args[0])
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().BoolVar(&force, "force", false, "remove even with uncommitted changes (they are lost)")
	return cmd
}
