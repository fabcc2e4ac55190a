package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/staterepo"
)

// handoffOptions are `planq handoff`'s flags and argument.
type handoffOptions struct {
	stateFlags
	Summary   string
	NextSteps []string
	To        string
}

func newHandoffCmd(a *app) *cobra.Command {
	o := &handoffOptions{}
	cmd := &cobra.Command{
		Use:   "handoff SUMMARY",
		Short: "Leave a handoff for the next session or another agent (what planq_handoff records)",
		Long: `Leave a handoff — where things stand and what to do next — in the current
agent's changelog.md, as one commit on its state branch. The next session of
the agent (or, with --to, the named agent) sees it at the top of its context
summary until it logs work. A handoff to another agent is also written to
global, so that agent sees it without a promotion.

SUMMARY is Markdown; "-" reads it from stdin. --next adds a next step
(repeatable).`,
		Example: `  planq handoff "Auth is done; the API tests are left" --next "write the API tests" --to reviewer`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := messageArg(a, args[0])
			if err != nil {
				return err
			}
			o.Summary = text
			return runHandoff(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	cmd.Flags().StringArrayVar(&o.NextSteps, "next", nil, "a next step (repeatable)")
	cmd.Flags().StringVar(&o.To, "to", "", "the agent meant to continue (default: whoever continues this one)")
	return cmd
}

// runHandoff is `planq handoff`.
func runHandoff(ctx context.Context, a *app, o *handoffOptions) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	e, err := s.Handoff(ctx, o.Summary, o.NextSteps, o.To)
	if err != nil {
		return err
	}
	return printRecorded(a, o.JSON, s, e, staterepo.ChangelogFile)
}
