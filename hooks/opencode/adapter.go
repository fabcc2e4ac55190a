// Package opencode is planq's adapter for OpenCode. Like every host
// package it keeps one role per file: the Adapter the host registry uses
// (adapter.go), the JSON the plugin sends and the replies it understands,
// and what Resolve keeps beside them (protocol.go), which of OpenCode's
// tools modify files (tools.go: GateTool), how opencode.json and the plugin
// file wire planq in (install.go: install, uninstall, dry run), the checks
// for planq doctor (status.go), and planq's mirror of a session's
// transcript, which OpenCode does not keep as a file (transcript.go; the
// lines themselves are transcript.AppendOpenCode's). Beyond those: the
// plugin shim that carries OpenCode's events to `planq hook <event> --host
// opencode` (plugin.js, embedded by plugin.go) and when a rewritten bash
// call would meet the user's permission rules (permission.go). NOTES.md
// records the facts checked against the real OpenCode. The session logic is
// the host-neutral core.
package opencode

import (
	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// Adapter is OpenCode for the host registry (package hosts).
type Adapter struct{}

// Host names OpenCode.
func (Adapter) Host() session.Host { return Host }

// Protocol is the protocol of planq's OpenCode plugin.
func (Adapter) Protocol() session.Protocol { return Protocol{} }

// GateTool says what one of OpenCode's tools does, for the gate (the package's GateTool).
func (Adapter) GateTool(name string) gate.Tool { return GateTool(name) }

// Command is OpenCode's CLI.
func (Adapter) Command() string { return "opencode" }

// Subcommands are opencode's subcommands after which Launch's arguments go
// in an agent command (`opencode run --session ID …`).
func (Adapter) Subcommands() []string { return []string{"run"} }

// Scopes are the install scopes, the default first:
//
//	local    .opencode/opencode.json and .opencode/plugin/planq.js, which
//	         jj and git ignore (the repo's info/exclude)
//	project  opencode.json and .opencode/plugin/planq.js, shared
//	user     ~/.config/opencode/opencode.json and plugin/planq.js
func (Adapter) Scopes() []string {
	return []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser}
}

// Detect reports whether OpenCode is on this machine: its CLI on PATH, or
// its user config.
func (a Adapter) Detect(home string, lookPath func(string) (string, error)) bool {
	return conffile.Installed(a.Command(), lookPath, configDir(conffile.Options{Home: home}))
}

// Launch returns the arguments after opencode that start its TUI with
// prompt, or on session resume.
func (Adapter) Launch(prompt, resume string) []string {
	if resume != "" {
		return []string{"--session", resume}
	}
	return []string{"--prompt", prompt}
}
