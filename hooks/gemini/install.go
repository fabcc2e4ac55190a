package gemini

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// ServerName is the name planq's MCP server is registered under, so its
// tools are mcp_planq_<tool>.
const ServerName = "planq"

// Hook is one Gemini CLI hook planq wires: Gemini CLI's event, planq's
// event, the tool matcher (empty: none) and the timeout in milliseconds.
// Tool hooks run on every tool call, and are served by the planq-hook
// binary when it is installed beside planq.
type Hook = conffile.Hook

// Hooks are the hooks `planq mcp install --host gemini` wires, in the order
// it writes them. The tool hooks answer well within their timeouts
// (session.PreToolUseDeadline); a hook that times out counts as failed,
// which Gemini CLI lets through.
var Hooks = []Hook{
	{Event: EventSessionStart, Subcommand: session.EventSessionStart, Timeout: 30000},
	{Event: EventBeforeTool, Subcommand: session.EventPreToolUse, Matcher: GatedTools, Timeout: 10000, Tool: true},
	{Event: EventAfterTool, Subcommand: session.EventPostToolUse, Matcher: GatedTools, Timeout: 10000, Tool: true},
	{Event: EventPreCompress, Subcommand: session.EventPreCompact, Timeout: 30000},
	{Event: EventAfterAgent, Subcommand: session.EventStop, Timeout: 30000},
	{Event: EventSessionEnd, Subcommand: session.EventSessionEnd, Timeout: 30000},
}

// userDir is Gemini CLI's user directory: $GEMINI_CLI_HOME/.gemini, else
// ~/.gemini.
func userDir(o conffile.Options) string {
	home := o.Env("GEMINI_CLI_HOME")
	if home == "" {
		home = o.Home
	}
	return filepath.Join(home, ".gemini")
}

// settingsPath is the settings file of o's scope.
func settingsPath(o conffile.Options) string {
	if o.Scope == conffile.ScopeUser {
		return filepath.Join(userDir(o), "settings.json")
	}
	return filepath.Join(o.ProjectDir, ".gemini", "settings.json")
}

// Install wires planq into Gemini CLI, or out of it with Uninstall: the MCP
// server (mcpServers.planq) and the hooks in the scope's settings.json,
// merged with everything else the file holds, plus, in local scope, the
// repo's info/exclude line that keeps the file out of jj's and git's view.
// It is idempotent.
func (Adapter) Install(ctx context.Context, o conffile.Options) (conffile.Result, error) {
	res := conffile.Result{Host: Host.Name, Scope: o.Scope}
	if err := o.Validate(); err != nil {
		return res, err
	}
	path := settingsPath(o)
	res.ServerFile, res.HooksFile = path, path
	edit, err := settingsEdit(o, path)
	if err != nil {
		return res, err
	}
	if err := o.RefuseTracked(ctx, Host.Name, path); err != nil {
		return res, err
	}
	ignoreEdit, err := o.LocalExclude(ctx, Host.Display, Host.Name, nil, path)
	if err != nil {
		return res, err
	}
	err = o.Apply(&res,
		conffile.Step{Edit: ignoreEdit, Note: o.ExcludeNote(ignoreEdit)},
		conffile.Step{Edit: edit, Note: fmt.Sprintf("MCP server %q and hooks %s %s", ServerName, o.Verb("removed from", "wired in"), path)})
	if err != nil || o.DryRun {
		return res, err
	}
	if !o.Uninstall && o.Scope != conffile.ScopeUser {
		if f, ok := trustFinding(o, o.ProjectDir); ok {
			res.Advise(conffile.Status{Scope: o.Scope, Findings: []conffile.Finding{f}})
		}
	}
	return res, nil
}

// serverEntry is the MCP server definition planq registers; PLANQ_HOST
// tells planq which host it serves.
func serverEntry(o conffile.Options) *conffile.Object {
	e := conffile.NewObject()
	e.Set("command", o.Exe)
	e.Set("args", []any{"mcp", "serve"})
	env := conffile.NewObject()
	env.Set("PLANQ_HOST", Host.Name)
	e.Set("env", env)
	return e
}

// settingsEdit merges planq's server and hooks into (or out of) the
// settings file at path, keeping every other key.
func settingsEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, doc, err := o.EditJSON(path)
	if err != nil || doc == nil {
		return e, err
	}
	hadServers, hadHooks := doc.Has("mcpServers"), doc.Has("hooks")
	servers, err := doc.Path(path, !o.Uninstall, "mcpServers")
	if err != nil {
		return e, err
	}
	if servers != nil {
		if o.Uninstall {
			servers.Del(ServerName)
		} else if cur, _ := servers.Get(ServerName); !conffile.Same(cur, serverEntry(o)) {
			servers.Set(ServerName, serverEntry(o))
		}
		if servers.Len() == 0 && (o.Uninstall || !hadServers) {
			doc.Del("mcpServers")
		}
	}
	hooksObj, ok := doc.Child("hooks")
	if !ok {
		return e, fmt.Errorf("%s: \"hooks\" is not an object; fix the file by hand", path)
	}
	for _, h := range Hooks {
		if err := conffile.MergeHook(hooksObj, h.Spec(hookEntry(o, h), Host.Name, ""), o.Uninstall, path); err != nil {
			return e, err
		}
	}
	if hooksObj.Len() == 0 && (o.Uninstall || !hadHooks) {
		doc.Del("hooks")
	}
	if err := e.SetJSON(doc); err != nil {
		return e, err
	}
	if o.Uninstall && doc.Len() == 0 && !bytes.Equal(e.After, e.Before) {
		e.After = nil // the file held only planq's wiring: planq made it
	}
	return e, nil
}

// hookEntry is planq's hook configuration for h.
func hookEntry(o conffile.Options, h Hook) *conffile.Object {
	e := conffile.NewObject()
	e.Set("name", "planq-"+h.Subcommand)
	e.Set("type", "command")
	e.Set("command", conffile.HookLine(o, h.Subcommand, Host.Name, h.Tool))
	e.Set("timeout", conffile.Int(h.Timeout))
	return e
}
