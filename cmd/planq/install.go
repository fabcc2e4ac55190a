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
  local    (default) ~/.claude.json for this repo only, and
           .claude/settings.local.json, which planq makes jj and git ignore
           (in the repo's info/exclude): the wiring is in no change, so it
           stays whatever change the agent is on
  project  .mcp.json and .claude/settings.json in the repo, shared with the
           team once pushed; in a jj repo they are part of the working-copy
           change until you commit them on their own
  user     ~/.claude.json and ~/.claude/settings.json, for every repo

The server is registered with 'claude mcp add-json' when claude is on PATH,
else planq edits the file itself. --dry-run prints the diff of every file it
would touch and changes nothing.`,
		Example: `  planq mcp install
  planq mcp install --scope project --dry-run`,
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
	cmd.Flags().StringVar(&opts.Scope, "scope", hooks.ScopeLocal, "where to install: local, project or user")
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
	home, err := a.homeDir()
	if err != nil {
		return err
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
		// Claude Code keys a project by its real path (macOS's /tmp is
		// /private/tmp), so local scope must too.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
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
			msg += " Claude Code asks once to approve the planq server from .mcp.json."
			if _, ok := jj.FindRoot(o.ProjectDir); ok {
				msg += "\nIn this jj repo the two files are now part of the working-copy change: jj_init and planq start carry them into the change the agent declares. To share them on their own, commit them as a change of their own and push it:\n  jj commit -m \"Wire planq into Claude Code\" .mcp.json .claude/settings.json && jj bookmark set main -r @- && jj git push"
			} else {
				msg += " Commit .mcp.json and .claude/settings.json to share it."
			}
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

// homeDir is where Claude Code keeps ~/.claude.json and ~/.claude/: $HOME,
// else the platform's home (%USERPROFILE% on Windows, where HOME is often
// unset).
func (a *app) homeDir() (string, error) {
	if h := a.Getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("the home directory is unknown (set HOME): %w", err)
	}
	return h, nil
}
