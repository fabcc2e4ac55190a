package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/metrics"
)

// statsOptions are `planq stats`' flags and what it depends on.
type statsOptions struct {
	Repo  string
	Since string
	JSON  bool

	Dir    func(flag string) (string, error) // the code repo the flag names
	Getenv func(string) string
	Now    func() time.Time
	Out    io.Writer
}

func newStatsCmd(a *app) *cobra.Command {
	o := &statsOptions{Dir: a.repoDir, Getenv: a.Getenv, Now: time.Now, Out: a.Stdout}
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show the local metrics: gate verdicts and escapes, time to declare, tool calls, memory use, empty searches",
		Long: `Show what planq recorded about its own use in this project, to tell which parts
earn their keep: the gate's verdicts by tool and by the class of rule that
decided, gate escapes (files that changed in the working copy while the gate
was locked, found when the change was declared; zero is the good number),
the time from a session's start to its change being declared, calls
per planq MCP tool (and errors), how many learnings and decisions were shown to
the agent (session start, planq_context, planq_search) and later cited, and
searches that found nothing.

The metrics stay on this machine and are never sent anywhere. They live in
$PLANQ_HOME/metrics/<project>/, one JSON Lines file per UTC day;
'planq state gc' prunes them by age (--metrics-older-than, default 90d).

A surfaced entry counts as cited when a text the agent later wrote through a
planq tool (jj_describe, jj_new, jj_init, planq_log, planq_learn, planq_decide,
planq_handoff, …) names its id (pq-…) or its title (titles of 12 characters or
more; case and spacing ignored).

--since takes a duration back from now (7d, 24h, 90m) or a date (YYYY-MM-DD).`,
		Example: `  planq stats
  planq stats --since 7d
  planq stats --since 2025-03-01 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStats(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	cmd.Flags().StringVar(&o.Since, "since", "", "only records since this long ago (7d, 24h) or this date (YYYY-MM-DD)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the summary as JSON")
	return cmd
}

func runStats(ctx context.Context, o *statsOptions) error {
	var since time.Time
	if o.Since != "" {
		t, err := metrics.ParseSince(o.Since, o.Now())
		if err != nil {
			return fmt.Errorf("--since: %w", err)
		}
		since = t
	}
	repo, err := o.Dir(o.Repo)
	if err != nil {
		return err
	}
	dir, err := metrics.DirFor(repo, o.Getenv)
	if err != nil {
		return fmt.Errorf("cannot locate the metrics of %s: %w", repo, err)
	}
	sum, err := metrics.Summarize(ctx, dir, since)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.Out, sum)
	}
	return printStats(o.Out, dir, sum)
}

// printStats writes the summary as aligned tables.
func printStats(w io.Writer, dir string, s metrics.Summary) error {
	const stamp = "2006-01-02 15:04"
	if s.Records == 0 {
		when := "yet"
		if !s.Since.IsZero() {
			when = "since " + s.Since.Local().Format(stamp)
		}
		_, err := fmt.Fprintf(w, "No metrics recorded %s (%s). They stay on this machine.\n", when, dir)
		return err
	}
	fmt.Fprintf(w, "Local metrics, %s to %s: %d records (%s; never sent anywhere).\n",
		s.Since.Local().Format(stamp), s.Until.Local().Format(stamp), s.Records, dir)
	if s.Skipped > 0 {
		fmt.Fprintf(w, "%d damaged lines skipped.\n", s.Skipped)
	}
	table := func(title, head string, rows [][]string) {
		fmt.Fprintf(w, "\n%s\n", title)
		if len(rows) == 0 {
			fmt.Fprintln(w, "  (none)")
			return
		}
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  "+head)
		for _, r := range rows {
			fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
		}
		tw.Flush()
	}
	var rows [][]string
	for _, g := range s.Gate {
		rows = append(rows, []string{g.Tool, g.Rule, g.Verdict, strconv.Itoa(g.Count)})
	}
	table("Gate verdicts (by tool and the rule that decided)", "TOOL\tRULE\tVERDICT\tCOUNT", rows)

	e := s.Escapes
	fmt.Fprintf(w, "\nGate escapes (files changed while the gate was locked, found when the change was declared)\n")
	if e.Checks == 0 {
		fmt.Fprintln(w, "  (no declaration checked)")
	} else {
		found := "none found a file changed while locked"
		if e.Found > 0 {
			found = fmt.Sprintf("%d found %d %s changed while locked", e.Found, e.Files, plural(e.Files, "file", "files"))
		}
		fmt.Fprintf(w, "  %d %s checked: %s\n", e.Checks, plural(e.Checks, "declaration", "declarations"), found)
		rows = nil
		for _, r := range e.Recent {
			names := strings.Join(r.Files, ", ")
			if r.Count > len(r.Files) {
				names += fmt.Sprintf(" and %d more", r.Count-len(r.Files))
			}
			rows = append(rows, []string{r.Time.Local().Format(stamp), r.Tool, names})
		}
		if len(rows) > 0 {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  WHEN\tDECLARED BY\tFILES")
			for _, r := range rows {
				fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
			}
			tw.Flush()
		}
	}

	rows = nil
	if d := s.Declare; d.Count > 0 || d.Undeclared > 0 {
		rows = append(rows, []string{strconv.Itoa(d.Count), short(d.P50), short(d.P90), short(d.Max), strconv.Itoa(d.Undeclared)})
	}
	table("Time from session start to the change being declared", "SESSIONS\tP50\tP90\tMAX\tNOT DECLARED", rows)

	rows = nil
	for _, t := range s.Tools {
		rows = append(rows, []string{t.Tool, strconv.Itoa(t.Calls), strconv.Itoa(t.Errors)})
	}
	table("planq tool calls", "TOOL\tCALLS\tERRORS", rows)

	rows = nil
	for _, m := range s.Memory {
		rows = append(rows, []string{m.Kind, m.Where, strconv.Itoa(m.Surfaced), strconv.Itoa(m.Cited)})
	}
	table("Learnings and decisions surfaced, and later cited", "KIND\tWHERE\tSURFACED\tCITED", rows)

	rows = nil
	for _, q := range s.EmptySearches {
		rows = append(rows, []string{strconv.Quote(q.Query), strconv.Itoa(q.Count), q.Last.Local().Format(stamp)})
	}
	table("Searches that found nothing", "QUERY\tCOUNT\tLAST", rows)
	return nil
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// short renders a duration to the second.
func short(d time.Duration) string { return d.Round(time.Second).String() }
