package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

type vaultOptions struct {
	Repo string
	JSON bool
}

// vaultCopy is one transcript `planq vault` copied from.
type vaultCopy struct {
	Root   string `json:"root"`
	Source string `json:"source"`
	Lines  int64  `json:"lines"`
	Bytes  int64  `json:"bytes"`
}

// vaultReport is what `planq vault` did.
type vaultReport struct {
	Copied []vaultCopy `json:"copied"`
	// Pending says a transcript has more to copy than one run copies (64
	// MiB each); the next run goes on.
	Pending bool `json:"pending,omitempty"`
}

func newVaultCmd(a *app) *cobra.Command {
	opts := &vaultOptions{}
	cmd := &cobra.Command{
		Use:   "vault",
		Short: "Copy into planq's store what this project's session transcripts hold that it lacks",
		Long: `planq keeps the transcript of every agent session in its store, the vault
(PLANQ_HOME/sessions/<project>/<root change>/transcript.jsonl), whatever the
host does with its own copy: the hooks append what is new at every turn's end
(stop), before a compaction and when the session ends, and each session start
appends what earlier sessions wrote after their last hook (a crash mid-turn).
So neither a crash nor the host's cleanup (Claude Code deletes transcripts
cleanupPeriodDays after their last change, 30 days by default) loses more than
the turn in flight. A session that never declared a change has no lineage,
and its transcript is not kept.

planq vault copies, now, every line the host transcripts of this project's
sessions (those recorded on this machine) hold and the store lacks, and says
what it copied. planq doctor warns when Claude Code's cleanup would delete
such lines.`,
		Example: `  planq vault
  planq vault --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runVault(cmd, a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "repository whose sessions to copy (default: current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print what was copied as JSON")
	return cmd
}

func runVault(cmd *cobra.Command, a *app, opts *vaultOptions) error {
	dir, err := a.repoDir(opts.Repo)
	if err != nil {
		return err
	}
	ts, err := projectStore(dir, a.Getenv)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	rep := vaultReport{Copied: []vaultCopy{}}
	lags, behindErr := ts.Behind()
	var errs []error
	if behindErr != nil {
		errs = append(errs, behindErr)
	}
	for _, l := range lags {
		res, err := ts.Copy(ctx, l.Root, l.Source, transcript.CopyOptions{})
		if err != nil {
			errs = append(errs, fmt.Errorf("copy %s: %w", l.Source, err))
			continue
		}
		rep.Pending = rep.Pending || res.Pending
		if res.Bytes > 0 {
			rep.Copied = append(rep.Copied, vaultCopy{Root: l.Root, Source: l.Source, Lines: res.Lines, Bytes: res.Bytes})
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		var lines int64
		for _, c := range rep.Copied {
			fmt.Fprintf(a.Stdout, "session %s: %d lines from %s\n", jj.ShortID(c.Root), c.Lines, c.Source)
			lines += c.Lines
		}
		switch {
		case len(rep.Copied) > 0:
			fmt.Fprintf(a.Stdout, "copied %d lines of %d transcripts into planq's store (%s)\n", lines, len(rep.Copied), ts.ProjectDir())
		case len(errs) == 0:
			fmt.Fprintf(a.Stdout, "planq's store (%s) holds every transcript of this project's sessions\n", ts.ProjectDir())
		}
		if rep.Pending {
			fmt.Fprintln(a.Stdout, "more to copy: run planq vault again")
		}
	}
	return errors.Join(errs...)
}

// projectStore opens the transcript store of the project at dir: the one
// the hooks write (transcript.ForRepo), with no need of its state repo.
func projectStore(dir string, getenv func(string) string) (*transcript.Store, error) {
	root, err := staterepo.FindRoot(dir)
	if err != nil {
		return nil, err
	}
	ts, _, err := transcript.ForRepo(root, getenv)
	return ts, err
}
