package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/conffile/unified"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/jj"
)

type mcpInstallOptions struct {
	Repo   string
	Hosts  string
	Scope  string
	DryRun bool
	Claude string
	// StatusLine also wires planq's status line (Claude Code).
	StatusLine bool
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
		Short: "Wire planq's MCP server, gate and session hooks into your agent hosts",
		Long: `Register planq's MCP server with each agent host and wire its gate and session
hooks through the host's own config, using the absolute path of this planq
binary. The tool hooks, which run on every tool call, use the planq-hook binary
beside planq when it is there (make install puts it there). Files are edited
in place: every server, hook, setting, comment and byte of yours is kept, and
running it twice changes nothing.

Hosts: --host names them (several, comma-separated: claude,opencode,codex,
gemini,copilot). Without it, planq wires every host it finds on this machine
(its CLI on PATH or its config in your home) and says which; when it finds
none, Claude Code.

Scopes (default: local):
  local    this repo only, in files jj and git ignore (the repo's info/exclude):
           the wiring is in no change, so it stays whatever change the agent is
           on and is never pushed. A file of the scope that the repo already
           tracks is refused (an info/exclude line does not untrack it): use
           project or user scope then.
  project  files in the repo, shared with the team once pushed; in a jj repo they
           are part of the working-copy change until you commit them on their own
  user     your own config, for every repo

Files (local | project | user):
  claude    ~/.claude.json + .claude/settings.local.json | .mcp.json +
            .claude/settings.json | ~/.claude.json + ~/.claude/settings.json
  opencode  .opencode/opencode.json + .opencode/plugin/planq.js | opencode.json +
            .opencode/plugin/planq.js | ~/.config/opencode/
  codex     .codex/config.toml (a marked planq block) + .codex/hooks.json, in both
            local and project scope | $CODEX_HOME/config.toml + hooks.json
  gemini    .gemini/settings.json, in both local and project scope |
            ~/.gemini/settings.json
  copilot   .github/hooks/planq.json + .github/mcp.json +
            .github/instructions/planq.instructions.md, in both local and project
            scope | ~/.copilot/mcp-config.json + $COPILOT_HOME/settings.json

Codex CLI, Gemini CLI and Copilot CLI run nothing of a project's wiring until
you trust the project (Codex: its hooks too); install says so, and planq doctor
prints how.

The gate fails closed: if the hook binary it runs is missing, not executable or
crashes, the host holds the tool call back (planq doctor's *-fail-open checks).

--statusline also sets Claude Code's statusLine, in the scope's settings file,
to planq's status line (the change, the gate, the summary and what is left,
under the prompt): the command planq-hook statusline, or planq statusline when
planq-hook is not beside planq. Later installs keep it pointing at this planq,
with or without the flag, and uninstall removes it. A status line of your own,
in any of the project's settings files, is never replaced: install says so,
with a command that shows both.

--dry-run prints the diff of every file it would touch and changes nothing.`,
		Example: `  planq mcp install
  planq mcp install --statusline
  planq mcp install --host opencode
  planq mcp install --host claude,opencode --scope project --dry-run
  planq mcp install --host codex --scope user`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCPInstall(cmd.Context(), a, opts, uninstall)
		},
	}
	if uninstall {
		cmd.Use = "uninstall"
		cmd.Short = "Remove planq's MCP server and hooks from your agent hosts' config"
		cmd.Long = `Remove planq's MCP server and hooks from the scope's files of each host (--host,
default: every host planq finds), leaving every other server, hook, setting and
byte as it was: after planq mcp install, uninstall gives every file back byte
for byte (a file planq made is removed, with a directory it made and left
empty, and so are the info/exclude lines local scope added). --dry-run prints
the diff instead.`
		cmd.Example = "  planq mcp uninstall --scope project\n  planq mcp uninstall --host opencode"
	}
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	cmd.Flags().StringVar(&opts.Hosts, "host", "", "agent hosts to wire, comma-separated: "+strings.Join(hosts.Names(), ", ")+" (default: those found on this machine)")
	cmd.Flags().StringVar(&opts.Scope, "scope", conffile.ScopeLocal, "where to install: local, project or user")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the diff of every file it would touch, change nothing")
	if !uninstall {
		cmd.Flags().BoolVar(&opts.StatusLine, "statusline", false, "also set Claude Code's statusLine to planq's (planq-hook statusline); a status line of your own is kept")
	}
	cmd.Flags().StringVar(&opts.Claude, "claude", "", "ignored: planq edits Claude Code's files itself; implies --host claude when --host is not given")
	_ = cmd.Flags().MarkDeprecated("claude", "planq edits ~/.claude.json in place itself (`claude mcp` rewrites the whole file and adds keys of its own); use --host claude")
	return cmd
}

// installHosts picks the hosts an install works on, and says why.
func (a *app) installHosts(opts *mcpInstallOptions, home string) ([]hosts.Adapter, string, error) {
	switch {
	case opts.Hosts != "":
		ads, err := hosts.Parse(opts.Hosts)
		return ads, "", err
	case opts.Claude != "":
		ad, err := hosts.Lookup("claude")
		return []hosts.Adapter{ad}, "", err
	}
	found := hosts.Detected(home, a.lookPath)
	if len(found) == 0 {
		ad, err := hosts.Lookup(hosts.Default)
		return []hosts.Adapter{ad}, fmt.Sprintf("found no agent host on this machine (looked for %s); wiring Claude Code, the default (--host names others)", strings.Join(hosts.Names(), ", ")), err
	}
	var names []string
	for _, ad := range found {
		names = append(names, ad.Host().Display)
	}
	return found, "found " + strings.Join(names, " and ") + " on this machine (--host picks)", nil
}

func runMCPInstall(ctx context.Context, a *app, opts *mcpInstallOptions, uninstall bool) error {
	switch opts.Scope {
	case conffile.ScopeProject, conffile.ScopeLocal, conffile.ScopeUser:
	default:
		return fmt.Errorf("unknown --scope %q: use local, project or user", opts.Scope)
	}
	home, err := a.homeDir()
	if err != nil {
		return err
	}
	ads, why, err := a.installHosts(opts, home)
	if err != nil {
		return err
	}
	if why != "" {
		fmt.Fprintf(a.Stderr, "planq: %s\n", why)
	}
	o := conffile.Options{Scope: opts.Scope, DryRun: opts.DryRun, Uninstall: uninstall, Home: home, Getenv: a.Getenv, StatusLine: opts.StatusLine}
	if opts.StatusLine && !slices.ContainsFunc(ads, func(ad hosts.Adapter) bool { return ad.Host().Name == "claude" }) {
		fmt.Fprintf(a.Stderr, "planq: note: --statusline is for Claude Code, which is not among the hosts wired here\n")
	}
	if o.Scope != conffile.ScopeUser || opts.Repo != "" {
		dir, err := a.repoDir(opts.Repo)
		if err != nil {
			return err
		}
		if root, ok := jj.FindRoot(dir); ok {
			dir = root
		} else if o.Scope != conffile.ScopeUser {
			fmt.Fprintf(a.Stderr, "planq: note: %s is not a jj repo yet; the agent can run jj_git_init, or you can run `jj git init --colocate`\n", dir)
		}
		// Hosts key a project by its real path (macOS's /tmp is
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
		o.HookExe = conffile.HookBinaryBeside(exe)
		if o.HookExe == "" {
			fmt.Fprintf(a.Stderr, "planq: note: no %s beside %s, so the tool hooks run `planq hook …`, which starts several times slower; `make install` installs both\n", conffile.HookBinary, exe)
		}
	}
	var errs []error
	for _, ad := range ads {
		if err := a.installOne(ctx, ad, o); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ad.Host().Display, err))
		}
	}
	return errors.Join(errs...)
}

// installOne wires (or unwires) one host and reports what it did.
func (a *app) installOne(ctx context.Context, ad hosts.Adapter, o conffile.Options) error {
	h := ad.Host()
	if !slices.Contains(ad.Scopes(), o.Scope) {
		return fmt.Errorf("%s has no %s scope; use %s", h.Display, o.Scope, strings.Join(ad.Scopes(), ", "))
	}
	res, err := ad.Install(ctx, o)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(a.Stderr, "planq: %s: %s\n", h.Display, w)
	}
	what := "installed"
	if o.Uninstall {
		what = "not installed"
	}
	if o.DryRun {
		if !res.Changed() {
			fmt.Fprintf(a.Stdout, "planq is already %s in %s (%s scope); nothing would change\n", what, h.Display, o.Scope)
			return nil
		}
		for _, e := range res.Edits {
			fmt.Fprint(a.Stdout, unified.Edit(e))
		}
		return nil
	}
	if !res.Changed() {
		fmt.Fprintf(a.Stdout, "planq is already %s in %s (%s scope: %s, %s); nothing changed\n", what, h.Display, o.Scope, res.ServerFile, res.HooksFile)
		return nil
	}
	for _, n := range res.Notes {
		fmt.Fprintf(a.Stdout, "planq: %s: %s\n", h.Display, n)
	}
	if o.Uninstall {
		return nil
	}
	msg := fmt.Sprintf("Start (or restart) %s in %s to load planq.", h.Display, dirOrHome(o))
	if o.Scope == conffile.ScopeProject {
		files := []string{rel(o.ProjectDir, res.ServerFile), rel(o.ProjectDir, res.HooksFile)}
		if h.Name == "claude" {
			msg += " Claude Code asks once to approve the planq server from .mcp.json."
		}
		if _, ok := jj.FindRoot(o.ProjectDir); ok {
			msg += fmt.Sprintf("\nIn this jj repo the files are now part of the working-copy change: jj_init and planq start carry them into the change the agent declares. To share them on their own, commit them as a change of their own and push it:\n  jj commit -m \"Wire planq into %s\" %s && jj bookmark set main -r @- && jj git push", h.Display, strings.Join(files, " "))
		} else {
			msg += fmt.Sprintf(" Commit %s to share it.", strings.Join(files, " and "))
		}
	}
	fmt.Fprintln(a.Stdout, msg)
	return nil
}

func rel(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func dirOrHome(o conffile.Options) string {
	if o.ProjectDir != "" {
		return o.ProjectDir
	}
	return "any project"
}

// homeDir is where hosts keep their user config: $HOME, else the
// platform's home (%USERPROFILE% on Windows, where HOME is often unset).
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
