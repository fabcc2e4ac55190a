package opencode

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/planq-dev/planq/hooks/conffile"
)

// ServerName is the name planq's MCP server is registered under, so its
// tools are planq_<tool>.
const ServerName = "planq"

// pluginMarker is the first line's start of planq's plugin, which status
// and uninstall recognise it by.
var pluginMarker = []byte("// planq's OpenCode plugin")

// configDir is OpenCode's user config directory.
func configDir(o conffile.Options) string {
	base := o.Env("XDG_CONFIG_HOME")
	if base == "" {
		base = filepath.Join(o.Home, ".config")
	}
	return filepath.Join(base, "opencode")
}

// paths returns the config file holding the MCP server and the plugin file
// of scope.
func paths(o conffile.Options) (server, plugin string) {
	switch o.Scope {
	case conffile.ScopeProject:
		return filepath.Join(o.ProjectDir, "opencode.json"), filepath.Join(o.ProjectDir, ".opencode", filepath.FromSlash(PluginFile))
	case conffile.ScopeLocal:
		d := filepath.Join(o.ProjectDir, ".opencode")
		return filepath.Join(d, "opencode.json"), filepath.Join(d, filepath.FromSlash(PluginFile))
	}
	d := configDir(o)
	return filepath.Join(d, "opencode.json"), filepath.Join(d, filepath.FromSlash(PluginFile))
}

// Install wires planq into OpenCode, or out of it with Uninstall: the MCP
// server in opencode.json (merged; every other key kept) and the plugin
// file, plus, in local scope, the repo's info/exclude lines that keep both
// out of jj's and git's view. It is idempotent.
func (Adapter) Install(ctx context.Context, o conffile.Options) (conffile.Result, error) {
	res := conffile.Result{Host: Host.Name, Scope: o.Scope}
	if err := o.Validate(); err != nil {
		return res, err
	}
	serverFile, pluginFile := paths(o)
	res.ServerFile, res.HooksFile = serverFile, pluginFile
	serverEdit, err := serverEdit(o, serverFile)
	if err != nil {
		return res, err
	}
	pluginEdit, err := pluginEdit(o, pluginFile)
	if err != nil {
		return res, err
	}
	if err := o.RefuseTracked(ctx, Host.Name, serverFile, pluginFile); err != nil {
		return res, err
	}
	ignoreEdit, err := o.LocalExclude(ctx, Host.Display, Host.Name, nil, serverFile, pluginFile)
	if err != nil {
		return res, err
	}
	err = o.Apply(&res,
		conffile.Step{Edit: ignoreEdit, Note: o.ExcludeNote(ignoreEdit)},
		conffile.Step{Edit: serverEdit, Note: fmt.Sprintf("MCP server %q %s %s", ServerName, o.Verb("removed from", "registered in"), serverFile)},
		conffile.Step{Edit: pluginEdit, Note: fmt.Sprintf("plugin %s %s", pluginFile, o.Verb("removed", "written (the gate and the session hooks)"))})
	if err != nil {
		return res, err
	}
	return res, nil
}

// serverEntry is the MCP server definition planq registers: OpenCode runs
// one command array, with PLANQ_HOST telling planq which host it serves.
func serverEntry(o conffile.Options) *conffile.Object {
	e := conffile.NewObject()
	e.Set("type", "local")
	e.Set("command", []any{o.Exe, "mcp", "serve"})
	env := conffile.NewObject()
	env.Set("PLANQ_HOST", Host.Name)
	e.Set("environment", env)
	e.Set("enabled", true)
	return e
}

func serverEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, doc, err := o.EditJSON(path)
	if err != nil || doc == nil {
		return e, err
	}
	servers, err := doc.Path(path, !o.Uninstall, "mcp")
	if err != nil || servers == nil {
		return e, err
	}
	if o.Uninstall {
		if !servers.Has(ServerName) {
			return e, nil
		}
		servers.Del(ServerName)
		if servers.Len() == 0 {
			doc.Del("mcp")
		}
		if rest := doc.Keys(); o.Scope != conffile.ScopeUser && (len(rest) == 0 || len(rest) == 1 && rest[0] == "$schema") {
			e.After = nil // the file held only planq: remove it
			return e, nil
		}
	} else {
		if e.Before == nil {
			doc.Set("$schema", "https://opencode.ai/config.json")
			doc.Del("mcp")
			doc.Set("mcp", servers)
		}
		if cur, _ := servers.Get(ServerName); !conffile.Same(cur, serverEntry(o)) {
			servers.Set(ServerName, serverEntry(o))
		}
	}
	if err := e.SetJSON(doc); err != nil {
		return e, err
	}
	return e, nil
}

func pluginEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, err := conffile.ReadEdit(path, 0o644)
	if err != nil {
		return e, err
	}
	if e.Before != nil && !bytes.HasPrefix(e.Before, pluginMarker) {
		return e, fmt.Errorf("%s is not planq's plugin; move it away, then rerun", path)
	}
	if o.Uninstall {
		e.After = nil
		return e, nil
	}
	if e.After, err = Render(o.Exe, o.HookExe); err != nil {
		return e, err
	}
	return e, nil
}
