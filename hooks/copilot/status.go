package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planq-dev/planq/hooks/conffile"
)

// Installed reports planq's wiring in every scope, for planq doctor, with
// findings: the folder trust Copilot needs before it reads a project's
// hooks and MCP servers, whether copilot -p loads the project's servers,
// hooks turned off in its settings, and that Copilot lets a tool call
// through when the gate's hook cannot run.
func (Adapter) Installed(where conffile.Options) []conffile.Status {
	projectDir := where.ProjectDir
	if real, err := filepath.EvalSymlinks(projectDir); err == nil {
		projectDir = real
	}
	scopes := []string{conffile.ScopeUser}
	if projectDir != "" {
		scope := conffile.ScopeProject
		o := conffile.Options{Scope: conffile.ScopeLocal, ProjectDir: projectDir, Home: where.Home, Getenv: where.Getenv}
		if excluded(o) {
			scope = conffile.ScopeLocal
		}
		scopes = []string{scope, conffile.ScopeUser}
	}
	var out []conffile.Status
	for _, scope := range scopes {
		o := conffile.Options{Scope: scope, ProjectDir: projectDir, Home: where.Home, Getenv: where.Getenv, JJBin: where.JJBin}
		f := paths(o)
		st := conffile.Status{Host: Host.Name, Scope: scope, ServerFile: f.Server, HooksFile: f.Hooks, Files: []string{f.Hooks, f.Server, f.Instructions}}
		st.Server, st.ServerExe = planqServer(f.Server)
		wired := planqHooks(f.Hooks)
		for _, h := range Hooks {
			if _, ok := wired[h.Event]; ok {
				st.Hooks = append(st.Hooks, eventOf(h.Event))
			} else {
				st.Missing = append(st.Missing, eventOf(h.Event))
			}
		}
		for _, h := range Hooks {
			if cmd, ok := wired[h.Event]; ok && h.Tool {
				if exe := conffile.CommandBinary(cmd); exe != "" && !slices.Contains(st.ToolHookExes, exe) {
					st.ToolHookExes = append(st.ToolHookExes, exe)
				}
			}
		}
		if cmd, ok := wired[EventPreToolUse]; ok {
			st.Gate = []string{cmd}
		}
		if st.Wired() {
			st.Findings = append(st.Findings, failOpen(st.Gate))
			st.Findings = append(st.Findings, hooksOff(o)...)
			if scope != conffile.ScopeUser {
				trusted, cfg := folderTrusted(o)
				st.Findings = append(st.Findings, trustFinding(projectDir, trusted, cfg), promptMCP(o, trusted))
			}
		}
		out = append(out, st)
	}
	return out
}

// eventOf is planq's name of Copilot's event (subagent-start for
// subagentStart, which planq's session-start serves).
func eventOf(copilotEvent string) string {
	if copilotEvent == EventSubagentStart {
		return "subagent-start"
	}
	return eventNames.Planq(copilotEvent)
}

// excluded reports whether the repo's info/exclude keeps the project
// files of local scope out of jj and git.
func excluded(o conffile.Options) bool {
	f := paths(o)
	e, err := o.LocalExclude(context.Background(), Host.Display, Host.Name, nil, f.Hooks, f.Server, f.Instructions)
	return err == nil && e.Path != "" && !e.Changed()
}

// planqServer reports whether the MCP config at path registers planq's
// server, and the command it runs.
func planqServer(path string) (bool, string) {
	_, doc, err := conffile.LoadJSON(path, 0o644)
	if err != nil {
		return false, ""
	}
	servers := object(doc, "mcpServers")
	if servers == nil {
		return false, ""
	}
	s := object(servers, ServerName)
	if s == nil {
		return false, ""
	}
	c, _ := s.Get("command")
	exe, _ := c.(string)
	return true, exe
}

// planqHooks returns, for each of planq's events wired in the hooks file
// at path, the command line of planq's handler.
func planqHooks(path string) map[string]string {
	out := map[string]string{}
	_, doc, err := conffile.LoadJSON(path, 0o644)
	if err != nil {
		return out
	}
	events := object(doc, "hooks")
	if events == nil {
		return out
	}
	for _, h := range Hooks {
		v, _ := events.Get(h.Event)
		list, _ := v.([]any)
		for _, hd := range list {
			if c := handlerCommand(hd); conffile.IsPlanqHook(c, h.Subcommand, Host.Name, "") {
				out[h.Event] = c
			}
		}
	}
	return out
}

// failOpen is the finding on what Copilot does when the gate's hook cannot
// run. Seen with Copilot CLI 1.0.102: a hook command that fails (not
// found, crashing, exit 2) denies the call ("hook errored"), and a script
// without its execute bit gets one and runs; a hook that times out is
// skipped and the call runs (its docs), so the gate answers well within
// its 120 s.
func failOpen(gate []string) conffile.Finding {
	return conffile.FailOpen(Host.Name, gate, conffile.FailOpenWords{
		Ungated: "planq's PreToolUse hook is not wired, so Copilot CLI runs every tool call ungated",
		Open:    "Copilot CLI denies a tool call whose PreToolUse command fails, but skips one that times out",
		OK: "Copilot CLI denies a tool call whose PreToolUse command fails (planq's gate command says why, with exit 2) " +
			"and runs one whose hook times out; planq's gate answers well within its 120 s",
	})
}

// readLooseJSON reads a JSON object file that may start with // comment
// lines, as Copilot's config.json does.
func readLooseJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var keep [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte("//")) {
			keep = append(keep, l)
		}
	}
	return json.Unmarshal(bytes.Join(keep, []byte("\n")), v)
}

// folderTrusted reports whether Copilot trusts o's project: the project or
// a folder above it is in trustedFolders of $COPILOT_HOME/config.json,
// which it names.
func folderTrusted(o conffile.Options) (bool, string) {
	cfg := filepath.Join(home(o), "config.json")
	var c struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if readLooseJSON(cfg, &c) != nil {
		return false, cfg
	}
	for _, d := range c.TrustedFolders {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		rel, err := filepath.Rel(filepath.Clean(d), o.ProjectDir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true, cfg
		}
	}
	return false, cfg
}

// trustFinding says whether Copilot reads the project's hooks and MCP
// servers: only in a trusted folder (untrusted, it skips them silently).
func trustFinding(dir string, trusted bool, cfg string) conffile.Finding {
	f := conffile.Finding{Check: "trust", OK: trusted}
	if trusted {
		f.Detail = dir + " is a trusted folder (" + cfg + "), so Copilot CLI runs the project's hooks and MCP server"
		return f
	}
	f.Detail = dir + " is not a trusted folder (" + cfg + "), so Copilot CLI skips the project's hooks (the gate) and MCP server without a word"
	f.Fix = "start copilot in " + dir + " and choose to trust the folder (or add \"" + dir + "\" to trustedFolders in " + cfg + "); copilot -p needs --trust-folder for an untrusted one"
	return f
}

// promptMCP says whether copilot -p loads the project's MCP servers: in a
// trusted folder it does; in an untrusted one only with
// GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true.
func promptMCP(o conffile.Options, trusted bool) conffile.Finding {
	f := conffile.Finding{Check: "prompt-mcp", OK: true}
	switch {
	case trusted:
		f.Detail = "copilot -p loads the project's MCP servers (the folder is trusted)"
	case o.Env("GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP") == "true":
		f.Detail = "copilot -p loads the project's MCP servers in this untrusted folder (GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true), but not its hooks"
	default:
		f.OK = false
		f.Detail = "copilot -p skips the project's MCP servers (planq's tools) in an untrusted folder"
		f.Fix = "trust the folder (see copilot-trust), or run copilot -p with --trust-folder or GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true"
	}
	return f
}

// hooksOff reports disableAllHooks in Copilot's settings (the user's, and
// for a project the repo's .github/copilot/settings.json and
// settings.local.json), which turns planq's hooks, and so the gate, off.
func hooksOff(o conffile.Options) []conffile.Finding {
	files := []string{filepath.Join(home(o), "settings.json")}
	if o.Scope != conffile.ScopeUser {
		files = append(files, filepath.Join(o.ProjectDir, ".github", "copilot", "settings.json"), filepath.Join(o.ProjectDir, ".github", "copilot", "settings.local.json"))
	}
	for _, p := range files {
		var s struct {
			DisableAllHooks bool `json:"disableAllHooks"`
		}
		if readLooseJSON(p, &s) == nil && s.DisableAllHooks {
			return []conffile.Finding{{Check: "hooks-disabled", Detail: p + " sets disableAllHooks, so Copilot CLI runs no hook: the gate is off",
				Fix: "remove \"disableAllHooks\": true from " + p}}
		}
	}
	return nil
}

// object is the Object at key k of o, or nil (Child would create it).
func object(o *conffile.Object, k string) *conffile.Object {
	v, _ := o.Get(k)
	c, _ := v.(*conffile.Object)
	return c
}
