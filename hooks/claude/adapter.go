// Package claude is planq's adapter for Claude Code. Like every host
// package it keeps one role per file: the Adapter the host registry uses
// (adapter.go), the hook protocol, the JSON a hook reads on stdin and
// answers with, and what Resolve reads beside it (protocol.go), which tools
// modify files and where their paths are (tools.go: GateTool), how its
// settings files wire planq in (install.go: install, uninstall, dry run;
// statusline.go for the status line and the status JSON it reads), the
// checks for planq doctor (status.go), and where Claude Code keeps a
// session's transcript and its subagents' (transcript.go). Beyond those:
// the permission rules a rewritten Bash call must still meet
// (permissions.go, cliargs.go), what its session cleanup deletes
// (cleanup.go) and the pre-tool-use process (pretooluse.go). The session
// logic itself is the host-neutral core (package session and package
// hooks). It links nothing heavier than the core's light half, so the
// planq-hook binary serves Claude Code's tool hooks fast.
package claude

import (
	"context"
	"path/filepath"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// Adapter is Claude Code for the host registry (package hosts).
type Adapter struct{}

// Host names Claude Code.
func (Adapter) Host() session.Host { return Host }

// Protocol is Claude Code's hook protocol.
func (Adapter) Protocol() session.Protocol { return Protocol{} }

// GateTool says what one of Claude Code's tools does, for the gate (the package's GateTool).
func (Adapter) GateTool(name string) gate.Tool { return GateTool(name) }

// Command is Claude Code's CLI.
func (Adapter) Command() string { return "claude" }

// Scopes are the install scopes Claude Code has, the default first.
func (Adapter) Scopes() []string { return []string{ScopeLocal, ScopeProject, ScopeUser} }

// Detect reports whether Claude Code is on this machine: its CLI on PATH,
// or its config in home.
func (a Adapter) Detect(home string, lookPath func(string) (string, error)) bool {
	return conffile.Installed(a.Command(), lookPath, filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude"))
}

// Install wires planq into Claude Code (Install).
func (Adapter) Install(ctx context.Context, o conffile.Options) (conffile.Result, error) {
	return Install(ctx, InstallOptions(o))
}

// Installed reports planq's wiring in every scope (Installed).
func (Adapter) Installed(where conffile.Options) []conffile.Status {
	return Installed(where.ProjectDir, where.Home)
}

// Launch returns the arguments after the claude command that start a
// session with prompt, or resume session resume.
func (Adapter) Launch(prompt, resume string) []string {
	if resume != "" {
		return []string{"--resume", resume}
	}
	return []string{prompt}
}

// LaunchWorktree returns the arguments after the claude command that start
// a session with prompt in the workspace called name: Claude Code's own
// --worktree, whose WorktreeCreate hook (planq's) finds the workspace.
func (Adapter) LaunchWorktree(name, prompt string) []string {
	return []string{"--worktree", name, prompt}
}
