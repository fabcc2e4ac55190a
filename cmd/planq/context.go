package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/staterepo"
)

func newContextCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Show the current agent's context summary, or promote it to global",
	}
	cmd.AddCommand(newContextShowCmd(a), newContextPromoteCmd(a), newContextBranchCmd(a))
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

func newContextPromoteCmd(a *app) *cobra.Command {
	var f stateFlags
	cmd := &cobra.Command{
		Use:   "promote",
		Short: "Merge the current agent's log, learnings, decisions and handoffs into global",
		Long: `Merge the current agent's changelog (log entries and handoffs), learnings and
decisions into the global branch as the union of their entries: what global
lacks is appended, nothing is duplicated, and append-only files never get
conflict markers. The agent's branch context files (branches/*.md) replace
global's. Running it again adds nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			res, err := s.Promote(cmd.Context())
			if err != nil {
				return err
			}
			if f.JSON {
				return writeJSON(a.Stdout, res)
			}
			for _, p := range res.Problems {
				fmt.Fprintf(a.Stderr, "planq: warning: not promoted, malformed: %s\n", p)
			}
			if res.UpToDate {
				fmt.Fprintf(a.Stdout, "Global already has everything of agent %s.\n", s.Agent)
				return nil
			}
			var parts []string
			for _, file := range []string{staterepo.ChangelogFile, staterepo.LearningsFile, staterepo.DecisionsFile} {
				if n := res.Added[file]; n > 0 {
					parts = append(parts, fmt.Sprintf("%d from %s", n, file))
				}
			}
			if len(res.Branches) > 0 {
				parts = append(parts, fmt.Sprintf("%d branch context files", len(res.Branches)))
			}
			fmt.Fprintf(a.Stdout, "Promoted agent %s to global: %s\n", s.Agent, strings.Join(parts, ", "))
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	return cmd
}

func newContextBranchCmd(a *app) *cobra.Command {
	var f stateFlags
	var branch string
	cmd := &cobra.Command{
		Use:   "branch [TEXT|-]",
		Short: "Show or set the context file of the current code branch or bookmark",
		Long: `Show the context of a code branch or jj bookmark (branches/<branch>.md, from the
agent's branch, else global's), or set it on the agent's branch to TEXT ("-"
reads stdin; an empty TEXT deletes it). The context summary shows it whenever
the code repo is on that branch. The branch defaults to the current one: git's
HEAD branch, else the nearest jj bookmark on @ or its ancestors.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			if branch == "" {
				branch = staterepo.CodeBranch(cmd.Context(), s.Root, false)
			}
			if branch == "" {
				return fmt.Errorf("no current branch or bookmark found; pass --branch NAME")
			}
			if len(args) == 0 {
				sum, err := s.Context(cmd.Context(), staterepo.ContextOptions{CodeBranch: branch, Budget: 64 << 10})
				if err != nil {
					return err
				}
				if f.JSON {
					return writeJSON(a.Stdout, map[string]string{"branch": branch, "context": sum.BranchContext, "source": sum.BranchSource})
				}
				if sum.BranchContext == "" {
					fmt.Fprintf(a.Stdout, "No context for branch %s; set it with `planq context branch TEXT`.\n", branch)
					return nil
				}
				fmt.Fprintln(a.Stdout, sum.BranchContext)
				return nil
			}
			text := args[0]
			if text == "-" {
				data, err := io.ReadAll(io.LimitReader(a.Stdin, staterepo.MaxScratchSize+1))
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				text = string(data)
			}
			p, err := s.SetBranchContext(cmd.Context(), branch, text)
			if err != nil {
				return err
			}
			if f.JSON {
				return writeJSON(a.Stdout, map[string]string{"branch": branch, "file": p})
			}
			fmt.Fprintf(a.Stdout, "Wrote %s on %s\n", p, s.Branch())
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().StringVar(&branch, "branch", "", "code branch or bookmark (default: the current one)")
	return cmd
}
