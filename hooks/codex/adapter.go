// Package codex is planq's adapter for OpenAI's Codex CLI. Like every host
// package it keeps one role per file: the Adapter the host registry uses
// (adapter.go), the hook protocol (protocol.go: Claude Code's shape; Read
// decodes, Resolve reads the session's project and a subagent's thread
// from the rollout Codex names in transcript_path), which of its tools
// modify files (tools.go: GateTool), how its config.toml and hooks.json
// wire planq in (install.go: install, uninstall, dry run), the checks for
// planq doctor (status.go, with the trust Codex needs before it runs
// planq's hooks or reads a project's config, trust.go), and reading its
// rollout (transcript.go). Beyond those: the user's execpolicy rules a
// rewritten shell call must still meet (execpolicy.go). The session logic
// is the host-neutral core.
package codex

import (
	"path/filepath"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// Adapter is Codex CLI for the host registry (package hosts).
type Adapter struct{}

// Host names Codex CLI.
func (Adapter) Host() session.Host { return Host }

// Protocol is Codex's hook protocol.
func (Adapter) Protocol() session.Protocol { return Protocol{} }

// GateTool says what one of Codex's tools does, for the gate (the package's GateTool).
func (Adapter) GateTool(name string) gate.Tool { return GateTool(name) }

// Command is Codex's CLI.
func (Adapter) Command() string { return "codex" }

// Scopes are the install scopes, the default first:
//
//	local    .codex/config.toml and .codex/hooks.json, which jj and git
//	         ignore (the repo's info/exclude)
//	project  the same files, shared with the team once pushed
//	user     $CODEX_HOME/config.toml and hooks.json (~/.codex)
//
// Codex reads a project's .codex/ only when the user trusts the project.
func (Adapter) Scopes() []string {
	return []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser}
}

// Detect reports whether Codex is on this machine: its CLI on PATH, or its
// config directory in home.
func (a Adapter) Detect(home string, lookPath func(string) (string, error)) bool {
	return conffile.Installed(a.Command(), lookPath, filepath.Join(home, ".codex"))
}

// Subcommands are codex's subcommands after which Launch's arguments go in
// an agent command (`codex exec resume ID PROMPT`: resume is a subcommand
// of exec, and a prompt of the user's comes after it).
func (Adapter) Subcommands() []string { return []string{"exec"} }

// Launch returns the arguments after codex that start its TUI with prompt,
// or resume the session (thread) resume.
func (Adapter) Launch(prompt, resume string) []string {
	if resume != "" {
		return []string{"resume", resume}
	}
	return []string{prompt}
}
