// Package gemini is planq's adapter for Google's Gemini CLI. Like every
// host package it keeps one role per file: the Adapter the host registry
// uses (adapter.go), the hook protocol, the JSON a hook reads on stdin and
// answers with under Gemini CLI's own event names (protocol.go), which of
// its tools modify files and where their paths are (tools.go: GateTool),
// how its settings.json files wire planq in (install.go: install,
// uninstall, dry run), and the checks for planq doctor with folder trust
// (status.go). Beyond those: the user's policy rules a rewritten shell call
// must still meet (policy.go) and the command substitution Gemini CLI
// refuses (substitution.go). The session logic itself is the host-neutral
// core (package session and package hooks).
package gemini

import (
	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// Adapter is Gemini CLI for the host registry (package hosts).
type Adapter struct{}

// Host names Gemini CLI.
func (Adapter) Host() session.Host { return Host }

// Protocol is Gemini CLI's hook protocol.
func (Adapter) Protocol() session.Protocol { return Protocol{} }

// GateTool says what one of Gemini CLI's tools does, for the gate (the package's GateTool).
func (Adapter) GateTool(name string) gate.Tool { return GateTool(name) }

// Command is Gemini CLI's CLI.
func (Adapter) Command() string { return "gemini" }

// Scopes are the install scopes, the default first:
//
//	local    .gemini/settings.json, which jj and git ignore (the repo's info/exclude)
//	project  .gemini/settings.json, shared through the repo
//	user     ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini), for every project
//
// Gemini CLI reads one settings file per project, so local and project
// scope are the same file; local scope keeps it out of the repo.
func (Adapter) Scopes() []string {
	return []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser}
}

// Detect reports whether Gemini CLI is on this machine: its CLI on PATH, or
// its user directory.
func (a Adapter) Detect(home string, lookPath func(string) (string, error)) bool {
	return conffile.Installed(a.Command(), lookPath, userDir(conffile.Options{Home: home}))
}

// Launch returns the arguments after gemini that start an interactive
// session with prompt, or resume session resume (a session id, which
// gemini --resume takes as well as "latest" or an index).
func (Adapter) Launch(prompt, resume string) []string {
	if resume != "" {
		return []string{"--resume", resume}
	}
	return []string{"--prompt-interactive=" + prompt}
}
