package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/jj"
)

type mcpInstallOptions struct {
	Repo   string
	Scope  string
	DryRun bool
	Claude string
}

func newMCPInstallCmd(a *app) *cobra.Command {
	return newMCPInstallLikeCmd(a, false)
}

func newMCPUninstallCmd(a *app) *cobra.Command {
	return newMCPInstallLikeCmd(a, true)
}

func newMCPInstallLikeCmd(a *app, uninstall bool) *cobra.Command {
	opts := &mcpInstallOptions{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Wire planq's MCP server and hooks into Claude Code",
		Long: `Register planq's MCP server with Claude Code and wire its hooks (SessionStart,
PreToolUse, PostToolUse, PreCompact, Stop, SessionEnd), using the absolute path
of this planq binary. The tool hooks (PreToolUse, PostToolUse), which run on
every tool call, are wired to the planq-hook binary beside planq when it is
there (make install puts it there), else to 'planq hook …'. Existing servers
and hooks are kept; running it twice changes nothing.

Scopes:
  project  .mcp.json and .claude/settings.json in the repo (shared with the team)
  local    ~/.claude.json for this repo only, and .claude/settings.local.json
  user     ~/.claude.json and ~/.claude/settings.json, for every repo

The server is registered with 'claude mcp add-json' when claude is on PATH,
else planq edits the file itself. --dry-run prints the diff of every file it
would touch and changes nothing.`,
		Example: `  planq mcp install
  planq mcp install --scope user --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCPInstall(cmd, a, opts, uninstall)
		},
	}
	if uninstall {
		cmd.Use = "uninstall"
		cmd.Short = "Remove planq's MCP server and hooks from Claude Code's settings"
		cmd.Long = `Remove planq's MCP server and hooks from the scope's files, leaving every
other server and hook as it was. --dry-run prints the diff instead.`
		cmd.Example = "  planq mcp uninstall --scope project"
	}
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	cmd.Flags().StringVar(&opts.Scope, "scope", hooks.ScopeProject, "where to install: project, local or user")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the diff of every file it would touch, change nothing")
	cmd.Flags().StringVar(&opts.Claude, "claude", "", `Claude Code CLI to register the server with (default: claude on PATH; "none": edit the files directly)`)
	return cmd
}

func runMCPInstall(cmd *cobra.Command, a *app, opts *mcpInstallOptions, uninstall bool) error {
	o := hooks.InstallOptions{Scope: opts.Scope, DryRun: opts.DryRun, Uninstall: uninstall}
	switch o.Scope {
	case hooks.ScopeProject, hooks.ScopeLocal, hooks.ScopeUser:
	default:
		return fmt.Errorf("unknown --scope %q: use project, local or user", o.Scope)
	}
	home := a.Getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("the home directory is unknown (set HOME): %w", err)
		}
		home = h
	}
	o.Home = home
	if o.Scope != hooks.ScopeUser || opts.Repo != "" {
		dir, err := a.repoDir(opts.Repo)
		if err != nil {
			return err
		}
		if root, ok := jj.FindRoot(dir); ok {
			dir = root
		} else if o.Scope != hooks.ScopeUser {
			fmt.Fprintf(a.Stderr, "planq: note: %s is not a jj repo yet; the agent can run jj_git_init, or you can run `jj git init --colocate`\n", dir)
		}
		o.ProjectDir = dir
	}
	if !uninstall {
		exe, err := a.Executable()
		if err != nil {
			return fmt.Errorf("cannot find the planq binary's path: %w", err)
		}
		if !filepath.IsAbs(exe) {
			if exe, err = filepath.Abs(exe); err != nil {
				return err
			}
		}
		o.Exe = exe
		o.HookExe = hooks.HookBinaryBeside(exe)
		if o.HookExe == "" {
			fmt.Fprintf(a.Stderr, "planq: note: no %s beside %s, so the tool hooks run `planq hook …`, which starts several times slower; `make install` installs both\n", hooks.HookBinary, exe)
		}
	}
	switch opts.Claude {
	case "none":
	case "":
		if p, err := exec.LookPath("claude"); err == nil {
			o.Claude = p
		}
	default:
		o.Claude = opts.Claude
	}

	res, err := hooks.Install(cmd.Context(), o)
	if err != nil {
		return err
	}
	what := "installed"
	if uninstall {
		what = "not installed"
	}
	if opts.DryRun {
		if !res.Changed() {
			fmt.Fprintf(a.Stdout, "planq is already %s in %s scope; nothing would change\n", what, o.Scope)
			return nil
		}
		for _, e := range res.Edits {
			fmt.Fprint(a.Stdout, e.Diff())
		}
		return nil
	}
	if !res.Changed() {
		fmt.Fprintf(a.Stdout, "planq is already %s in %s scope (%s, %s); nothing changed\n", what, o.Scope, res.ServerFile, res.SettingsFile)
		return nil
	}
	for _, n := range res.Notes {
		fmt.Fprintf(a.Stdout, "planq: %s\n", n)
	}
	if !uninstall {
		msg := "Start (or restart) Claude Code in " + dirOrHome(o) + " to load planq."
		if o.Scope == hooks.ScopeProject {
			msg += " Claude Code asks once to approve the planq server from .mcp.json; commit .mcp.json and .claude/settings.json to share it."
		}
		fmt.Fprintln(a.Stdout, msg)
	}
	return nil
}

func dirOrHome(o hooks.InstallOptions) string {
	if o.ProjectDir != "" {
		return o.ProjectDir
	}
	return "any project"
}
