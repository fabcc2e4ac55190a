// Package hosts is the registry of the agent hosts planq plugs into: one
// adapter per host (hooks/claude, hooks/opencode, hooks/codex,
// hooks/gemini, hooks/copilot; All lists them), each with its hook
// protocol, its tool table, its config files and its CLI, behind one
// interface (Adapter) the CLI and the planq-hook binary use. It also holds
// what spans the hosts: which host a hook speaks for (ForHook), the
// command that launches a host's session (AgentArgv), wiring a parallel
// agent's workspace for every host wired in its project (WireWorkspace),
// and the rule that keeps local-scope wiring out of the user's changes
// (leak.go: LocalWiring, FindLeaks, StackLeaks).
package hosts

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/codex"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/copilot"
	"github.com/planq-dev/planq/hooks/gemini"
	"github.com/planq-dev/planq/hooks/opencode"
	"github.com/planq-dev/planq/hooks/session"
)

// Adapter is one agent host.
type Adapter interface {
	// Host names the host for the session core.
	Host() session.Host
	// Protocol is the host's hook protocol.
	Protocol() session.Protocol
	// GateTool says what the host's tool name does, for the gate.
	GateTool(name string) gate.Tool
	// Command is the host's CLI, as a user runs it.
	Command() string
	// Scopes are the install scopes the host has, the default first.
	Scopes() []string
	// Detect reports whether the host is installed on this machine.
	Detect(home string, lookPath func(string) (string, error)) bool
	// Install wires planq in (or out, with Uninstall), keeping everything
	// else in the host's files; a second run changes nothing.
	Install(ctx context.Context, o conffile.Options) (conffile.Result, error)
	// Installed reports planq's wiring in each scope, for planq doctor:
	// where gives the project, the home and the config home (its Scope is
	// not read).
	Installed(where conffile.Options) []conffile.Status
	// Launch returns the arguments after Command that start a session with
	// prompt, or resume the session resume.
	Launch(prompt, resume string) []string
}

// wiredIn reports whether the workspace ws has ad's wiring of its own
// already: the project's files, committed with project scope, in its
// checkout. It needs no local wiring then (and a tracked file would refuse
// it).
func wiredIn(ad Adapter, o conffile.Options, ws string) bool {
	wo := o
	wo.ProjectDir = ws
	for _, st := range ad.Installed(wo) {
		if st.Scope != conffile.ScopeUser && st.Wired() {
			return true
		}
	}
	return false
}

// Subcommander is a host whose CLI has subcommands that take Launch's
// arguments after them (`codex exec`, `opencode run`).
type Subcommander interface {
	Subcommands() []string
}

// AgentArgv returns the command that launches ad's session: agentCmd's
// words with args, the host's launch arguments (Launch's), right after the
// word that runs the host's CLI (its base name is ad.Command()) and, when
// the next word is one of the host's subcommands, after that; the rest of
// agentCmd's words follow. So `codex exec --json 'Go on'` resumes as
// `codex exec resume ID --json 'Go on'` (Codex wants resume ID before a
// prompt), `npx claude --model opus` starts as `npx claude TASK --model
// opus`. A command that names no host CLI gets args at its end.
func AgentArgv(ad Adapter, agentCmd []string, args []string) []string {
	at := len(agentCmd)
	for i, w := range agentCmd {
		base := w[strings.LastIndexAny(w, `/\`)+1:]
		if base == ad.Command() || base == ad.Command()+".exe" || base == ad.Command()+".cmd" {
			at = i + 1
			if sc, ok := ad.(Subcommander); ok && at < len(agentCmd) && slices.Contains(sc.Subcommands(), agentCmd[at]) {
				at++
			}
			break
		}
	}
	return slices.Concat(agentCmd[:at], args, agentCmd[at:])
}

// WorktreeLauncher is a host that makes its own worktrees through planq's
// worktree hooks (Claude Code's --worktree), so a session in a workspace is
// started from the main working copy by the workspace's name.
type WorktreeLauncher interface {
	// LaunchWorktree returns the arguments after Command that start a
	// session with prompt in the workspace called name.
	LaunchWorktree(name, prompt string) []string
}

// Default is the host planq assumes when none is named: Claude Code.
const Default = "claude"

// EnvHost names the host a hook process speaks for when its command line
// does not (--host): the MCP server registrations of some hosts set it.
const EnvHost = "PLANQ_HOST"

// ForHook returns the host whose protocol a hook process speaks: the one
// its --host flag names (flag), else $PLANQ_HOST, else Default. An empty
// flag counts as not given.
func ForHook(flag string, getenv func(string) string) (Adapter, error) {
	name := flag
	if name == "" && getenv != nil {
		name = getenv(EnvHost)
	}
	if name == "" {
		name = Default
	}
	return Lookup(name)
}

// All returns every adapter, in the order planq documents them.
func All() []Adapter {
	return []Adapter{claude.Adapter{}, opencode.Adapter{}, codex.Adapter{}, gemini.Adapter{}, copilot.Adapter{}}
}

// Names returns the names of all hosts.
func Names() []string {
	var out []string
	for _, a := range All() {
		out = append(out, a.Host().Name)
	}
	return out
}

// Lookup returns the adapter named name.
func Lookup(name string) (Adapter, error) {
	for _, a := range All() {
		if a.Host().Name == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("unknown host %q: planq knows %s", name, strings.Join(Names(), ", "))
}

// Parse returns the adapters a comma-separated list names, each once.
func Parse(list string) ([]Adapter, error) {
	var out []Adapter
	var seen []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(seen, n) {
			continue
		}
		a, err := Lookup(n)
		if err != nil {
			return nil, err
		}
		seen = append(seen, n)
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no host named: use one or more of %s", strings.Join(Names(), ", "))
	}
	return out, nil
}

// Detected returns the hosts installed on this machine.
func Detected(home string, lookPath func(string) (string, error)) []Adapter {
	var out []Adapter
	for _, a := range All() {
		if a.Detect(home, lookPath) {
			out = append(out, a)
		}
	}
	return out
}

// WireWorkspace gives the jj workspace ws, nested in the project o.ProjectDir,
// planq's wiring for every host wired in that project (local or project
// scope), its status line included: local scope in ws, the server left to
// the project's registration where it reaches ws. A host whose wiring ws's
// checkout holds already (project scope, committed) is left as it is.
// Without it, a host would run a parallel agent there with no gate: hooks
// are read from the workspace's own files. o's Exe and HookExe say which
// planq runs the hooks.
func WireWorkspace(ctx context.Context, o conffile.Options, ws string) error {
	for _, ad := range All() {
		wired, statusLine := false, false
		for _, st := range ad.Installed(o) {
			wired = wired || st.Scope != conffile.ScopeUser && st.Wired()
			statusLine = statusLine || st.Scope != conffile.ScopeUser && st.StatusLine
		}
		if !wired || wiredIn(ad, o, ws) {
			continue
		}
		wo := o
		wo.Scope, wo.ProjectDir, wo.SharedServer = conffile.ScopeLocal, ws, true
		wo.StatusLine = statusLine // the agent there sees planq's status line too
		if _, err := ad.Install(ctx, wo); err != nil {
			return fmt.Errorf("%s: %w", ad.Host().Display, err)
		}
	}
	return nil
}
