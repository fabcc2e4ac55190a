package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/staterepo"
)

func newContextCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Show the current agent's context summary, or promote it to global",
	}
	cmd.AddCommand(newContextShowCmd(a))
	return cmd
}

func newContextShowCmd(a *app) *cobra.Command {
	var f stateFlags
	var o staterepo.ContextOptions
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show what an agent sees at session start: scratch, recent log, learnings, decisions, handoff",
		Long: `Show the current agent's context summary, the same one planq_context returns
and the session-start hook injects: the agent and branch, a pending handoff,
scratch.md, the code branch's context (branches/<branch>.md), context.md, and
the newest log entries, decisions and learnings (the agent's and global's),
newest first, cut to fit --budget bytes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			sum, err := s.Context(cmd.Context(), o)
			if err != nil {
				return err
			}
			if f.JSON {
				return writeJSON(a.Stdout, sum)
			}
			_, err = fmt.Fprint(a.Stdout, sum.Markdown())
			return err
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().IntVarP(&o.LogEntries, "number", "n", 10, "newest log entries to show")
	cmd.Flags().IntVar(&o.Budget, "budget", 12<<10, "size limit of the summary in bytes")
	cmd.Flags().StringVar(&o.CodeBranch, "branch", "", "code branch or bookmark whose context to show (default: detected)")
	return cmd
}
