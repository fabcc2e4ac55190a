package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/project"
	"github.com/planq-dev/planq/staterepo"
)

// stateFlags are the flags every state command shares.
type stateFlags struct {
	Repo string
	JSON bool
}

func (f *stateFlags) addRepo(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
}

func (f *stateFlags) addJSON(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.JSON, "json", false, "print JSON for scripts")
}

// openStore opens the state store of the code repo the flags name.
func (a *app) openStore(repo string) (*staterepo.Store, error) {
	dir, err := a.repoDir(repo)
	if err != nil {
		return nil, err
	}
	return staterepo.Open(staterepo.Options{Dir: dir, Getenv: a.Getenv, Warn: a.warn, Maintainer: a.Maintainer})
}

// warn prints a warning about a command that succeeded.
func (a *app) warn(msg string) { fmt.Fprintf(a.Stderr, "planq: warning: %s\n", msg) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newStateCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Manage the project's agent state repo (init, status, push, pull, remote, gc)",
		Long: `Manage the git repository that holds this project's agent memory.

Each project has one bare repo, $PLANQ_HOME/state-repos/<project>.git
(PLANQ_HOME defaults to ~/.planq). Its "global" branch holds what every agent
shares (plan.md, changelog.md, learnings.md, decisions.md, branches/); each
agent has a branch "agent-NAME", checked out at <code repo>/.planq/agent/,
which the code repo ignores.`,
	}
	cmd.AddCommand(newStateInitCmd(a), newStateStatusCmd(a), newStatePushCmd(a), newStatePullCmd(a), newStateRemoteCmd(a), newStateShareCmd(a), newStateGCCmd(a))
	return cmd
}

// stateInitOptions are `planq state init`'s flags.
type stateInitOptions struct {
	stateFlags
	Project string
}

func newStateInitCmd(a *app) *cobra.Command {
	o := &stateInitOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the project's state repo and record the project name",
		Long: `Create the project's state repo with its global branch, and write the project
name to .planq/config.yaml ("project:"). The name defaults to the one the repo
has: the state repo its .planq/agent links to, else the directory's name
(cleaned up to letters, digits, '.', '_' and '-') plus 8 hex digits of a hash
of the repo's path, so two repos with the same directory name never share a
state repo. --project NAME picks the name: give another repo's name to share
its state repo on purpose. Running it again changes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStateInit(cmd.Context(), a, o)
		},
	}
	o.addRepo(cmd)
	o.addJSON(cmd)
	cmd.Flags().StringVar(&o.Project, "project", "", "project name (default: the directory's name and a hash of its path)")
	return cmd
}

// runStateInit is `planq state init`.
func runStateInit(ctx context.Context, a *app, o *stateInitOptions) error {
	dir, err := a.repoDir(o.Repo)
	if err != nil {
		return err
	}
	root, err := staterepo.FindRoot(dir)
	if err != nil {
		return err
	}
	home, err := config.StateHome(a.Getenv)
	if err != nil {
		return err
	}
	if _, err := staterepo.ClaimProject(root, o.Project, home); err != nil {
		return err
	}
	s, err := staterepo.Open(staterepo.Options{Dir: root, Getenv: a.Getenv, Warn: a.warn, Maintainer: a.Maintainer})
	if err != nil {
		return err
	}
	created, err := s.Init(ctx)
	if err != nil {
		return err
	}
	if err := staterepo.EnsureIgnored(s.Root, false); err != nil {
		return err
	}
	others := project.InUseBy(s.Bare, project.MainRoot(s.Root))
	if o.JSON {
		return writeJSON(a.Stdout, map[string]any{"project": s.Project, "bare": s.Bare, "created": created, "shared_with": others})
	}
	switch {
	case created:
		fmt.Fprintf(a.Stdout, "Created state repo for project %s at %s\n", s.Project, s.Bare)
	case len(others) > 0:
		fmt.Fprintf(a.Stdout, "State repo for project %s already exists at %s, shared with %s\n", s.Project, s.Bare, strings.Join(others, ", "))
	default:
		fmt.Fprintf(a.Stdout, "State repo for project %s already exists at %s\n", s.Project, s.Bare)
	}
	return nil
}

func newStateStatusCmd(a *app) *cobra.Command {
	var f stateFlags
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the state repo, its agents, the worktree and the remote, and check it for damage",
		Long: `Show the state repo: the project, the current agent, this code repo's
worktree and its uncommitted changes, the agents with their last commit and how
they stand with the remote, and what the objects take on disk.

It also checks the repo the way 'git fsck' does, for at most a few seconds
(newest history first): damaged ref files and packed-refs lines, deleted or
damaged packs, loose objects that do not decompress or hash to their name,
objects a branch needs that are missing, and a worktree whose registration is
gone. Each problem is printed as "damaged:" with its fix — what the next write
or 'planq state gc' repairs by itself, or the commands to run — and status then
exits 1.

It also says whether the project's agent sessions travel with the state
remote ('planq state share sessions') and what the next push would share: the
session lineages with new transcript lines and how many bytes (secrets
redacted before they leave), or, while sharing is off, what it would share.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStateStatus(cmd.Context(), a, &f)
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	return cmd
}

// runStateStatus is `planq state status`.
func runStateStatus(ctx context.Context, a *app, o *stateFlags) error {
	s, err := a.openStore(o.Repo)
	if err != nil {
		return err
	}
	// What the next push would share is read from the transcript store, one
	// record per lineage (a thousand lineages: a few hundred ms under
	// load), while the state repo is read and checked.
	sessionsC := make(chan *sessionsStatus, 1)
	go func() { sessionsC <- a.sessionsStatus(s) }()
	st, err := s.Status(ctx)
	if err != nil {
		return err
	}
	if st.Initialized {
		health, err := s.Check(ctx, staterepo.CheckBudget)
		if err != nil {
			return err
		}
		st.Health = &health
		if !health.Complete {
			st.Notes = append(st.Notes, fmt.Sprintf("the integrity check stopped after %.0fs (%d objects checked, newest history first); `git -C %s fsck` checks everything", health.Seconds, health.Objects, s.Bare))
		}
	}
	// A damaged repo is a failure, whatever else status shows.
	var damaged error
	if st.Damaged() {
		damaged = exitError{code: 1}
	}
	sessions := <-sessionsC
	if o.JSON {
		if err := writeJSON(a.Stdout, struct {
			*staterepo.Status
			Sessions *sessionsStatus `json:"sessions"`
		}{&st, sessions}); err != nil {
			return err
		}
		return damaged
	}
	w := a.Stdout
	fmt.Fprintf(w, "project:  %s\nrepo:     %s\n", st.Project, st.Bare)
	fmt.Fprintf(w, "agent:    %s (from %s)\n", st.Agent, st.AgentSource)
	if st.CheckedOut != "" {
		fmt.Fprintf(w, "worktree: %s (agent %s", st.Worktree, st.CheckedOut)
		if len(st.Dirty) > 0 {
			fmt.Fprintf(w, ", uncommitted: %s", strings.Join(st.Dirty, ", "))
		} else {
			fmt.Fprint(w, ", clean")
		}
		fmt.Fprintln(w, ")")
	} else {
		fmt.Fprintf(w, "worktree: none at %s\n", st.Worktree)
	}
	if st.Remote != "" {
		fmt.Fprintf(w, "remote:   %s (global: %s)\n", st.Remote, st.GlobalRemote)
	}
	if o := st.Objects; o != nil {
		fmt.Fprintf(w, "objects:  %.1f MiB: %d loose, %d packs\n", float64(o.Bytes)/(1<<20), o.Loose, o.Packs)
	}
	sessions.print(a, st.Remote)
	if len(st.Agents) > 0 {
		fmt.Fprintln(w, "\nagents:")
		for _, ag := range st.Agents {
			where := ""
			if ag.CheckedOutAt != "" {
				where = "  [" + ag.CheckedOutAt + "]"
			}
			if ag.Remote != "" {
				where += "  remote: " + ag.Remote
			}
			fmt.Fprintf(w, "  %-20s %s  %s%s\n", ag.Name, ag.LastCommit.Local().Format("2006-01-02 15:04"), ag.LastMessage, where)
		}
	}
	for _, n := range st.Notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	if st.Health != nil {
		for _, d := range st.Health.Damage {
			fmt.Fprintf(w, "\ndamaged: %s\n  fix: %s\n", d.What, d.Fix)
		}
	}
	return damaged
}

func newStateRemoteCmd(a *app) *cobra.Command {
	var f stateFlags
	var shareSessions string
	cmd := &cobra.Command{
		Use:   "remote [URL]",
		Short: "Show or set the state repo's remote (a URL or a local path)",
		Long: `Show the state remote, or set it to URL: an ssh or https URL, a file:// URL or
a local path (made absolute; 'planq state push' creates a bare repo there if
none exists). It is stored as state.remote in .planq/config.yaml, so commit
that file to share it with your team.

Setting a remote also settles, once, whether this project's agent sessions
travel with it ('planq state share sessions'): --share-sessions on|off says
so, else planq asks when it runs in a terminal, and otherwise leaves them on
this machine and says how to share them.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				if f.JSON {
					return writeJSON(a.Stdout, map[string]string{"remote": s.Config.State.Remote})
				}
				if s.Config.State.Remote == "" {
					fmt.Fprintln(a.Stdout, "No state remote; set one with `planq state remote URL`.")
					return nil
				}
				fmt.Fprintln(a.Stdout, s.Config.State.Remote)
				return nil
			}
			wd, err := a.Getwd()
			if err != nil {
				return err
			}
			u, err := s.SetRemote(args[0], wd)
			if err != nil {
				return err
			}
			if f.JSON {
				if shareSessions != "" {
					if err := a.askShareSessions(s, shareSessions); err != nil {
						return err
					}
				}
				return writeJSON(a.Stdout, map[string]string{"remote": u, "sessions": s.Config.State.Sessions})
			}
			fmt.Fprintf(a.Stdout, "State remote set to %s\n", u)
			return a.askShareSessions(s, shareSessions)
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().StringVar(&shareSessions, "share-sessions", "", "share this project's agent sessions with the remote: on or off (default: ask once, on a terminal)")
	return cmd
}

func newStatePushCmd(a *app) *cobra.Command {
	var f stateFlags
	cmd := &cobra.Command{
		Use:   "push",
		Short: "Push the state branches that are ahead of the remote, and the shared sessions",
		Long: `Push global and every agent branch that has commits the remote lacks. A
branch the remote has moved on is not pushed: run 'planq state pull' first
(it merges logs as the union of their entries), then push again.

When the project shares its sessions ('planq state share sessions on'), push
also shares what this machine's sessions recorded since the last push (new
transcript lines, secrets redacted, and the records) and sends the session
lineages that are ahead of the remote; only their new objects travel. A
lineage a teammate moved meanwhile is fetched and merged first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			res, err := s.Push(cmd.Context())
			var sess *sessionSync
			if !errors.Is(err, staterepo.ErrNoRemote) && !errors.Is(err, staterepo.ErrNotInitialized) {
				var serr error
				sess, serr = a.pushSessions(cmd.Context(), s)
				err = errors.Join(err, serr)
			}
			return printSync(a, f.JSON, res, sess, err)
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	return cmd
}

func newStatePullCmd(a *app) *cobra.Command {
	var f stateFlags
	var prefer, sessions string
	cmd := &cobra.Command{
		Use:   "pull",
		Short: "Fetch the remote's state branches and sessions and bring the local ones up to date",
		Long: `Fetch the remote's branches and update the local ones: new branches are
created, branches behind are fast-forwarded, and diverged branches are merged.
Logs, learnings and decisions merge as the union of their entries; another
file changed on both sides stops that branch's pull unless --prefer local or
--prefer remote says which side wins. The .planq/agent/ worktree is updated
with its branch (files and index); if it has uncommitted edits to files the
pull changes, that branch is left alone and the message says what to do.

Pull also fetches the session lineages teammates shared that are new or have
moved (only their new objects), and adds their transcript lines and records
to this machine's session store, where query_ancestor, planq resume and planq
ui read them. With --sessions none it leaves them: query_ancestor and planq
resume then fetch the one lineage they need when they first need it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			if sessions != "all" && sessions != "none" {
				return fmt.Errorf("--sessions %q: say all or none", sessions)
			}
			res, err := s.Pull(cmd.Context(), prefer)
			var sess *sessionSync
			if sessions == "all" && !errors.Is(err, staterepo.ErrNoRemote) {
				var serr error
				sess, serr = a.pullSessions(cmd.Context(), s)
				err = errors.Join(err, serr)
			}
			return printSync(a, f.JSON, res, sess, err)
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().StringVar(&prefer, "prefer", "", "which side wins for non-log files changed on both sides: local or remote")
	cmd.Flags().StringVar(&sessions, "sessions", "all", "session lineages to fetch: all, or none (fetched when first asked for)")
	return cmd
}

// printSync prints push/pull results, then returns err.
func printSync(a *app, asJSON bool, res []staterepo.SyncResult, sess *sessionSync, err error) error {
	if asJSON {
		out := map[string]any{"branches": res}
		if sess != nil {
			out["sessions"] = sess
		}
		if err != nil {
			out["error"] = err.Error()
		}
		if werr := writeJSON(a.Stdout, out); werr != nil {
			return werr
		}
		if err != nil {
			return exitError{code: 1}
		}
		return nil
	}
	for _, r := range res {
		line := fmt.Sprintf("%-24s %s", r.Branch, r.Action)
		if r.Detail != "" && r.Action != staterepo.SyncRefused {
			line += ": " + strings.ReplaceAll(r.Detail, "\n", "; ")
		}
		fmt.Fprintln(a.Stdout, line)
		if r.Action == staterepo.SyncRefused {
			fmt.Fprintf(a.Stderr, "planq: %s: %s\n", r.Branch, r.Detail)
		}
	}
	lines := sess.lines()
	for _, l := range lines {
		fmt.Fprintln(a.Stdout, l)
	}
	if len(res) == 0 && len(lines) == 0 && err == nil {
		fmt.Fprintln(a.Stdout, "Nothing to do.")
	}
	return err
}

func newStateGCCmd(a *app) *cobra.Command {
	var f stateFlags
	var dryRun, auto bool
	var metricsAge string
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove finished agents' branches and pack the state repo",
		Long: `Remove the branches of agents that are done with: the agent's worktree was
removed ('planq remove NAME'), and every entry of its changelog, learnings and
decisions and its branch context files are in global ('planq context
promote'). Such a branch is deleted when nothing else is on it; when it still
holds content that exists nowhere else (scratch, context, checkpoints, notes,
artifacts), it is archived under refs/planq/archive/agent-NAME/<time>, which
gc keeps, and the output names the files and the command that brings the
branch back. Every other agent branch is kept and the reason is printed.
--dry-run only reports.

Then the repo is packed: every reachable object into one pack with deltas
(git repack), objects nothing refers to kept apart for two weeks, then
dropped, and temporary files killed processes left behind removed. Writers
are never blocked: packing does not take the write lock, and a crash at any
point loses nothing (the new pack is complete on disk before anything is
deleted). Needs git 2.37 or newer.

Writes run the incremental kind of this on their own, in the background, when
about $PLANQ_GC_AUTO loose objects (default 2048; 0 turns it off) have piled
up. --auto runs that incremental step now, in the foreground.

It also prunes the project's local metrics ('planq stats'): the day files
under $PLANQ_HOME/metrics/<project>/ whose records are all older than
--metrics-older-than (default 90d; a duration such as 30d or a date,
YYYY-MM-DD). --dry-run lists them instead; --auto leaves them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if auto && dryRun {
				return fmt.Errorf("--auto and --dry-run do not go together; --dry-run reports which branches gc would delete")
			}
			cutoff, err := metrics.ParseSince(metricsAge, time.Now())
			if err != nil {
				return fmt.Errorf("--metrics-older-than: %w", err)
			}
			s, err := a.openStore(f.Repo)
			if err != nil {
				return err
			}
			var res []staterepo.GCResult
			if !auto && !dryRun {
				// What the next write would repair (a damaged
				// packed-refs, a branch to restore from its reflog)
				// is repaired before packing, which git refuses
				// otherwise.
				if err := s.Recover(cmd.Context()); err != nil {
					return err
				}
			}
			if !auto {
				if res, err = s.GC(cmd.Context(), dryRun); err != nil {
					return err
				}
			}
			var pack *staterepo.MaintainResult
			if !dryRun {
				p, err := s.Maintain(cmd.Context(), !auto)
				if err != nil {
					return err
				}
				pack = &p
			}
			var pruned *metricsPrune
			if !auto {
				if pruned, err = a.pruneMetrics(s.Root, cutoff, dryRun); err != nil {
					return err
				}
			}
			if f.JSON {
				if res == nil {
					res = []staterepo.GCResult{}
				}
				return writeJSON(a.Stdout, map[string]any{"branches": res, "pack": pack, "metrics": pruned})
			}
			if !auto && len(res) == 0 {
				fmt.Fprintln(a.Stdout, "No agent branches.")
			}
			for _, r := range res {
				verb := "kept    "
				switch {
				case r.Archived != "":
					verb = "archived"
				case r.Deleted:
					verb = "deleted "
				}
				fmt.Fprintf(a.Stdout, "%s %-24s %s\n", verb, r.Branch, r.Reason)
			}
			switch {
			case pack == nil:
			case pack.Skipped != "":
				fmt.Fprintf(a.Stdout, "Packing skipped: %s.\n", pack.Skipped)
			default:
				for _, q := range pack.Quarantined {
					fmt.Fprintf(a.Stdout, "Moved the damaged object %s aside; a pack holds a good copy.\n", q)
				}
				fmt.Fprintf(a.Stdout, "Packed %d loose objects (%s): %d packs, %.1f MiB of objects, %d temporary files removed, in %.1fs.\n",
					pack.LooseBefore-pack.LooseAfter, pack.Mode, pack.PacksAfter, float64(pack.Bytes)/(1<<20), pack.TmpRemoved, pack.Seconds)
			}
			if pruned != nil {
				fmt.Fprintln(a.Stdout, pruned.sentence())
			}
			return nil
		},
	}
	f.addRepo(cmd)
	f.addJSON(cmd)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "report what would be deleted, delete nothing")
	cmd.Flags().BoolVar(&auto, "auto", false, "only the incremental packing writes start on their own, now")
	cmd.Flags().StringVar(&metricsAge, "metrics-older-than", "90d", "prune local metrics older than this (30d) or this date (YYYY-MM-DD)")
	return cmd
}

// metricsPrune is what gc did to the local metrics.
type metricsPrune struct {
	Dir    string    `json:"dir"`
	Before time.Time `json:"before"`
	DryRun bool      `json:"dry_run"`
	Files  []string  `json:"files"` // the day files pruned (with --dry-run: that would be)
}

// pruneMetrics prunes (or with dryRun lists) the day files of root's
// project's metrics older than before.
func (a *app) pruneMetrics(root string, before time.Time, dryRun bool) (*metricsPrune, error) {
	dir, err := metrics.DirFor(root, a.Getenv)
	if err != nil {
		return nil, fmt.Errorf("cannot locate the local metrics: %w", err)
	}
	p := &metricsPrune{Dir: dir, Before: before, DryRun: dryRun}
	var files []string
	if dryRun {
		files, err = metrics.OldFiles(dir, before)
	} else {
		files, err = metrics.Prune(dir, before)
	}
	for _, f := range files {
		p.Files = append(p.Files, filepath.Base(f))
	}
	if p.Files == nil {
		p.Files = []string{}
	}
	return p, err
}

// sentence says what gc did to the metrics, in one line.
func (p *metricsPrune) sentence() string {
	when := p.Before.Local().Format("2006-01-02 15:04")
	switch {
	case len(p.Files) == 0:
		return fmt.Sprintf("No local metrics older than %s to prune (%s).", when, p.Dir)
	case p.DryRun:
		return fmt.Sprintf("Would prune %d local metrics day files older than %s from %s: %s.", len(p.Files), when, p.Dir, strings.Join(p.Files, ", "))
	}
	return fmt.Sprintf("Pruned %d local metrics day files older than %s from %s: %s.", len(p.Files), when, p.Dir, strings.Join(p.Files, ", "))
}
