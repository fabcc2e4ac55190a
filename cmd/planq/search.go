package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/search"
	"github.com/planq-dev/planq/staterepo"
)

func newSearchCmd(a *app) *cobra.Command {
	var f stateFlags
	var kinds []string
	var scope string
	var limit int
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Find log entries, learnings, decisions, handoffs and branch context by relevance",
		Long: `Rank the state repo's documents for QUERY: every log entry, learning, decision
and handoff, branch context files, scratch, context and plan — of the current
agent, of global and of the other agents. Hits are printed best first with
their id, kind, date and a snippet.

--type filters by kind (log, learning, decision, handoff, branch, scratch,
context, or an entry type); repeat it for several. --scope is agent (the
current agent's branch), global, or all (the default).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			q := staterepo.SearchQuery{Query: strings.Join(args, " "), Scope: scope, Limit: limit}
			for _, k := range kinds {
				kind, err := search.ParseKind(k)
				if err != nil {
					return fmt.Errorf("--type: %w", err)
				}
				q.Kinds = append(q.Kinds, kind)
			}
			hits, probs, err := s.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			printProblems(a, probs) // on stderr, so stdout stays the JSON array
			if f.JSON {
				return writeJSON(a.Stdout, hits)
			}
			if len(hits) == 0 {
				fmt.Fprintf(a.Stdout, "Nothing matches %q.\n", q.Query)
				return nil
			}
			for _, h := range hits {
				date := ""
				if !h.Date.IsZero() {
					date = h.Date.Local().Format("2006-01-02")
				}
				fmt.Fprintf(a.Stdout, "%s  %-8s %-10s %s  %s\n", h.ID, h.Kind, date, h.Source, h.Title)
				if sn := strings.TrimSpace(h.Snippet); sn != "" && sn != h.Title {
					fmt.Fprintf(a.Stdout, "    %s\n", strings.ReplaceAll(sn, "\n", " "))
				}
			}
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().StringSliceVarP(&kinds, "type", "t", nil, "only these kinds (log, learning, decision, handoff, branch, scratch, context)")
	cmd.Flags().StringVar(&scope, "scope", "all", "agent, global or all")
	cmd.Flags().IntVarP(&limit, "limit", "n", 10, "at most this many hits (1-100)")
	return cmd
}
