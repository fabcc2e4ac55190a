package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/changelog"
)

func newLogCmd(a *app) *cobra.Command {
	var f stateFlags
	var all bool
	var n int
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Show the current agent's changelog, or every agent's with --all",
		Long: `Show the current agent's changelog.md entries, newest first (the last 20
unless -n says otherwise; -n 0 shows all). With --all, show the session
changelog aggregated across every agent branch: a table of agents with their
status and last activity, and the newest entries.

Add an entry with 'planq log add MESSAGE'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			if all {
				sum, probs, err := s.Aggregate(cmd.Context())
				if err != nil {
					return err
				}
				if f.JSON {
					return writeJSON(a.Stdout, map[string]any{"summary": sum, "problems": probs})
				}
				fmt.Fprint(a.Stdout, sum.Markdown())
				printProblems(a, probs)
				return nil
			}
			if n < 0 {
				return fmt.Errorf("-n %d: give a count of 0 (all) or more", n)
			}
			es, probs, err := s.LogEntries(cmd.Context(), n)
			if err != nil {
				return err
			}
			if f.JSON {
				if es == nil {
					es = []changelog.Entry{}
				}
				printProblems(a, probs) // on stderr, so stdout stays the JSON array
				return writeJSON(a.Stdout, es)
			}
			if len(es) == 0 {
				fmt.Fprintf(a.Stdout, "No entries yet for agent %s; add one with `planq log add MESSAGE`.\n", s.Agent)
				printProblems(a, probs)
				return nil
			}
			for _, e := range es {
				printEntry(a.Stdout, e)
			}
			printProblems(a, probs)
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "aggregate every agent's changelog")
	cmd.Flags().IntVarP(&n, "number", "n", 20, "show the newest N entries (0: all)")
	cmd.AddCommand(newLogAddCmd(a))
	return cmd
}

func newLogAddCmd(a *app) *cobra.Command {
	var f stateFlags
	var typ, status string
	cmd := &cobra.Command{
		Use:   "add MESSAGE",
		Short: "Append an entry to the current agent's changelog (one commit)",
		Long: `Append an entry to the current agent's changelog.md and commit it on the
agent's branch. MESSAGE is Markdown; its first line is the title. Give "-" to
read it from stdin.

--type is one of start, plan, implement (default), handoff, end.
--status is one of pending, in_progress, completed, blocked.
Learnings and decisions have their own files: use 'planq learn' and 'planq
decide' (planq_learn and planq_decide for a model), and 'planq handoff' for a
handoff with next steps.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			msg, err := messageArg(a, args[0])
			if err != nil {
				return err
			}
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			e, err := s.Log(cmd.Context(), msg, changelog.Type(typ), changelog.Status(status))
			if err != nil {
				return err
			}
			if f.JSON {
				return writeJSON(a.Stdout, e)
			}
			fmt.Fprintf(a.Stdout, "%s logged on %s\n", e.ID, s.Branch())
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().StringVarP(&typ, "type", "t", "implement", "entry type: start, plan, implement, handoff, end")
	cmd.Flags().StringVarP(&status, "status", "s", "", "status: pending, in_progress, completed, blocked")
	return cmd
}

// printEntry writes one entry as a short human line plus its body.
func printEntry(w io.Writer, e changelog.Entry) {
	label := string(e.Type)
	if e.Status != "" {
		label += "/" + string(e.Status)
	}
	title := changelog.QuickTitle(e.Body)
	if e.Type == changelog.TypeDecision && e.Decision != "" {
		title = e.Decision
	}
	fmt.Fprintf(w, "%s  %s  %-22s %s\n", e.ID, e.Timestamp.Local().Format("2006-01-02 15:04"), label, title)
	_, rest, _ := strings.Cut(strings.TrimSpace(e.Body), "\n")
	if rest = strings.TrimSpace(rest); rest != "" {
		for _, l := range strings.Split(rest, "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	for _, st := range e.NextSteps {
		fmt.Fprintf(w, "    - next: %s\n", st)
	}
}

// printProblems reports malformed entries (and worktree files not shown)
// on stderr, each with its file and line.
func printProblems(a *app, probs []changelog.Problem) {
	for _, p := range probs {
		if p.Line > 0 {
			fmt.Fprintf(a.Stderr, "planq: warning: %s (entry skipped; fix it by hand)\n", p.Error())
		} else {
			fmt.Fprintf(a.Stderr, "planq: warning: %s\n", p.Error())
		}
	}
}
