// Package copilot is planq's adapter for GitHub Copilot CLI. Like every
// host package it keeps one role per file: the Adapter the host registry
// uses (adapter.go), the hook protocol (protocol.go: the VS Code-compatible
// payloads Copilot sends hooks wired by PascalCase event names, Claude
// Code's shape), which of its tools modify files (tools.go: GateTool), how
// .github/hooks/planq.json, .github/mcp.json and planq's instructions file
// wire planq in (install.go: install, uninstall, dry run), the checks for
// planq doctor (status.go: the folder trust Copilot needs and the risk that
// a gate which cannot run lets every call through), and where Copilot
// keeps a session's events (transcript.go). Beyond those: the permission
// rules a rewritten shell call must still meet (rules.go). Copilot ignores
// a session-start hook's output, so the main session's context comes from
// planq's instructions (call jj_status and planq_context first); a
// subagent's comes from subagentStart. The session logic is the
// host-neutral core.
package copilot

import (
	"path/filepath"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// Adapter is Copilot CLI for the host registry (package hosts).
type Adapter struct{}

// Host names Copilot CLI.
func (Adapter) Host() session.Host { return Host }

// Protocol is Copilot CLI's hook protocol.
func (Adapter) Protocol() session.Protocol { return Protocol{} }

// GateTool says what one of Copilot's tools does, for the gate (the package's GateTool).
func (Adapter) GateTool(name string) gate.Tool { return GateTool(name) }

// Command is Copilot's CLI.
func (Adapter) Command() string { return "copilot" }

// Scopes are the install scopes, the default first:
//
//	local    .github/hooks/planq.json, .github/mcp.json and
//	         .github/instructions/planq.instructions.md, which jj and git
//	         ignore (the repo's info/exclude)
//	project  the same files, shared with the team once pushed
//	user     $COPILOT_HOME (~/.copilot): settings.json's hooks,
//	         mcp-config.json and copilot-instructions.md
//
// Copilot reads a project's hooks and MCP servers only in a folder the
// user trusts.
func (Adapter) Scopes() []string {
	return []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser}
}

// Detect reports whether Copilot CLI is on this machine: its CLI on PATH,
// or its directory in home.
func (a Adapter) Detect(home string, lookPath func(string) (string, error)) bool {
	return conffile.Installed(a.Command(), lookPath, filepath.Join(home, ".copilot"))
}

// Launch returns the arguments after copilot that start an interactive
// session running prompt (-i), or resume the session resume.
func (Adapter) Launch(prompt, resume string) []string {
	if resume != "" {
		return []string{"--resume=" + resume}
	}
	if prompt == "" {
		return nil
	}
	return []string{"-i", prompt}
}
