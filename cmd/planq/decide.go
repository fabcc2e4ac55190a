package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/staterepo"
)

// decideOptions are `planq decide`'s flags and argument.
type decideOptions struct {
	stateFlags
	Decision string
	Over     []string
	Because  string
}

func newDecideCmd(a *app) *cobra.Command {
	o := &decideOptions{}
	cmd := &cobra.Command{
		Use:   "decide DECISION",
		Short: "Record a decision, what it was chosen over and why (what planq_decide records)",
		Long: `Record a decision in the current agent's decisions.md, as one commit on its
state branch: what was chosen, the alternatives it was chosen over (--over,
repeat it or separate with commas) and why (--because). It shows in the
context summary and search finds it; 'planq context promote' shares it on
global.

DECISION's first line is the decision; "-" reads it from stdin.`,
		Example: `  planq decide "Token bucket for rate limiting" --over "sliding window" --because "simpler, and bursts are fine"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := messageArg(a, args[0])
			if err != nil {
				return err
			}
			o.Decision = text
			return runDecide(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	cmd.Flags().StringSliceVar(&o.Over, "over", nil, "an alternative the decision was chosen over (repeatable)")
	cmd.Flags().StringVar(&o.Because, "because", "", "the rationale")
	return cmd
}

// runDecide is `planq decide`.
func runDecide(ctx context.Context, a *app, o *decideOptions) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	e, err := s.Decide(ctx, o.Decision, o.Over, o.Because)
	if err != nil {
		return err
	}
	return printRecorded(a, o.JSON, s, e, staterepo.DecisionsFile)
}
