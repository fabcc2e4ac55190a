package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo"
)

// learnOptions are `planq learn`'s flags and argument.
type learnOptions struct {
	stateFlags
	Insight string
	Context string
}

func newLearnCmd(a *app) *cobra.Command {
	o := &learnOptions{}
	cmd := &cobra.Command{
		Use:   "learn INSIGHT",
		Short: "Record a learning for the current agent (what planq_learn records)",
		Long: `Record a learning — something worth knowing next session, not a log of work —
in the current agent's learnings.md, as one commit on its state branch. It
shows in the context summary (planq context show, planq_context) and search
finds it; 'planq context promote' shares it on global.

INSIGHT is Markdown; "-" reads it from stdin. --context says what prompted it.`,
		Example: `  planq learn "jj op restore brings back the code, not the state files" --context "checkpoint restore bug"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := messageArg(a, args[0])
			if err != nil {
				return err
			}
			o.Insight = text
			return runLearn(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	cmd.Flags().StringVar(&o.Context, "context", "", "what prompted the learning")
	return cmd
}

// runLearn is `planq learn`.
func runLearn(ctx context.Context, a *app, o *learnOptions) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	e, err := s.Learn(ctx, o.Insight, o.Context)
	if err != nil {
		return err
	}
	return printRecorded(a, o.JSON, s, e, staterepo.LearningsFile)
}

// messageArg returns the text of a message argument: arg itself, or stdin
// when it is "-".
func messageArg(a *app, arg string) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	data, err := io.ReadAll(io.LimitReader(a.Stdin, changelog.MaxBodySize+1))
	if err != nil {
		return "", fmt.Errorf("read the text from stdin: %w", err)
	}
	return string(data), nil
}

// printRecorded reports an entry the CLI recorded: its id, kind and
// branch, or the entry as JSON.
func printRecorded(a *app, asJSON bool, s *staterepo.Store, e changelog.Entry, file string) error {
	if asJSON {
		return writeJSON(a.Stdout, e)
	}
	fmt.Fprintf(a.Stdout, "%s: %s recorded in %s on %s\n", e.ID, e.Type, file, s.Branch())
	return nil
}
