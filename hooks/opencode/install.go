package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

// ServerName is the name planq's MCP server is registered under, so its
// tools are planq_<tool>.
const ServerName = "planq"

// pluginMarker is the first line's start of planq's plugin, which status
// and uninstall recognise it by.
var pluginMarker = []byte("// planq's OpenCode plugin")

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

// Installed reports planq's wiring in every scope, for planq doctor.
func (Adapter) Installed(where conffile.Options) []conffile.Status {
	projectDir := where.ProjectDir
	if real, err := filepath.EvalSymlinks(projectDir); err == nil {
		projectDir = real
	}
	// Local and project scope share the plugin file: it is local's when
	// the repo's info/exclude keeps it out of jj and git.
	pluginScope := conffile.ScopeProject
	if projectDir != "" && excluded(projectDir, "/"+filepath.ToSlash(filepath.Join(".opencode", PluginFile))) {
		pluginScope = conffile.ScopeLocal
	}
	var out []conffile.Status
	for _, scope := range []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser} {
		if scope != conffile.ScopeUser && projectDir == "" {
			continue
		}
		o := conffile.Options{Scope: scope, ProjectDir: projectDir, Home: where.Home, Getenv: where.Getenv}
		st := conffile.Status{Host: Host.Name, Scope: scope}
		st.ServerFile, st.HooksFile = paths(o)
		st.Files = []string{st.ServerFile, st.HooksFile}
		if _, doc, err := conffile.LoadJSON(st.ServerFile, 0o644); err == nil {
			if servers, err := doc.Path(st.ServerFile, false, "mcp"); err == nil && servers != nil {
				if v, ok := servers.Get(ServerName); ok {
					st.Server = true
					var entry struct {
						Command []string `json:"command"`
					}
					if json.Unmarshal(conffile.Encode(v), &entry) == nil && len(entry.Command) > 0 {
						st.ServerExe = entry.Command[0]
					}
				}
			}
		}
		st.Missing = append([]string(nil), session.Events...)
		if data, err := os.ReadFile(st.HooksFile); err == nil && bytes.HasPrefix(data, pluginMarker) && (scope == conffile.ScopeUser || scope == pluginScope) {
			st.Hooks, st.Missing = st.Missing, nil
			st.ToolHookExes = pluginBinaries(data)
		}
		if st.Wired() {
			st.Findings = append(st.Findings, failOpen(st.ToolHookExes, st.Hooks != nil))
		}
		out = append(out, st)
	}
	return out
}

// excluded reports whether the repo at dir keeps the file pattern names
// (anchored, as planq writes it) out of jj and git through info/exclude.
func excluded(dir, pattern string) bool {
	e, err := conffile.ExcludeEdit(context.Background(), dir, "", "", pattern)
	return err == nil && e.Path != "" && !e.Changed()
}

// failOpen is the finding on what OpenCode does when the gate cannot run:
// planq's plugin throws, which blocks the tool call, when the hook binary
// cannot start, fails, crashes, answers anything but a verdict or takes
// longer than 10 s (seen with OpenCode 1.18.33). It fails when the plugin
// is missing or the binary it runs is not an executable (every gated call
// is then held back).
func failOpen(exes []string, gated bool) conffile.Finding {
	f := conffile.Finding{Check: "fail-open", OK: gated && len(exes) > 0,
		Detail: "planq's plugin holds a tool call back when the gate hook cannot run, fails, crashes or takes over 10 s (it throws)"}
	if !gated {
		f.Detail = "planq's plugin is not there, so OpenCode runs every tool call ungated"
	}
	for _, exe := range exes {
		if !conffile.Executable(exe) {
			f.OK, f.Detail = false, exe+", which planq's plugin runs, is not an executable, so every gated tool call is held back until it is (the gate fails closed)"
		}
	}
	if !f.OK {
		f.Fix = "planq mcp install --host opencode   (re-run: points the plugin at this planq)"
	}
	return f
}

// pluginBinaries returns the binaries a plugin file runs for the tool
// hooks: planq-hook when it names one, else planq.
var constRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^const (PLANQ|HOOK) = ("(?:[^"\\]|\\.)*");`) })

func pluginBinaries(data []byte) []string {
	vals := map[string]string{}
	for _, m := range constRE().FindAllSubmatch(data, -1) {
		var s string
		if json.Unmarshal(m[2], &s) == nil {
			vals[string(m[1])] = s
		}
	}
	if vals["HOOK"] != "" {
		return []string{vals["HOOK"]}
	}
	if vals["PLANQ"] != "" {
		return []string{vals["PLANQ"]}
	}
	return nil
}
