package claude

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planq-dev/planq/hooks/conffile"
)

// Installation scopes, as Claude Code names them (conffile's):
//
//	project  .mcp.json and .claude/settings.json, shared through the repo
//	local    ~/.claude.json for this project, and .claude/settings.local.json
//	user     ~/.claude.json and ~/.claude/settings.json, for every project
const (
	ScopeProject = conffile.ScopeProject
	ScopeLocal   = conffile.ScopeLocal
	ScopeUser    = conffile.ScopeUser
)

// ServerName is the name planq's MCP server is registered under, so its
// tools are mcp__planq__*.
const ServerName = "planq"

// Hook is one Claude Code hook planq wires: the event, planq's subcommand
// for it, the matcher (empty: none) and the timeout in seconds. Tool hooks
// run on every tool call, and are served by the planq-hook binary when it
// is installed beside planq.
type Hook = conffile.Hook

// Hooks are the hooks `planq mcp install` wires, in the order it writes them.
var Hooks = []Hook{
	{Event: "SessionStart", Subcommand: "session-start", Timeout: 30},
	{Event: "PreToolUse", Subcommand: "pre-tool-use", Matcher: GatedTools, Timeout: 10, Tool: true},
	{Event: "PostToolUse", Subcommand: "post-tool-use", Matcher: AfterTools, Timeout: 10, Tool: true},
	{Event: "PreCompact", Subcommand: "pre-compact", Timeout: 30},
	{Event: "Stop", Subcommand: "stop", Timeout: 30},
	{Event: "SessionEnd", Subcommand: "session-end", Timeout: 30},
	{Event: "WorktreeCreate", Subcommand: "worktree-create", Timeout: 120},
	{Event: "WorktreeRemove", Subcommand: "worktree-remove", Timeout: 60},
}

// InstallOptions says what to install where (HostCLI: the claude CLI to
// register the server with, `claude mcp add-json`).
type InstallOptions conffile.Options

// InstallResult is what Install did (or, with DryRun, would do).
type InstallResult = conffile.Result

// Status is whether planq is wired into Claude Code in one scope.
type Status = conffile.Status

// Install registers planq's MCP server and hooks with Claude Code, or removes
// them with Uninstall. It merges with what the files already hold, keeps every
// other key and hook, and is idempotent: a second run changes nothing.
func Install(ctx context.Context, o InstallOptions) (InstallResult, error) {
	res := InstallResult{}
	if err := o.validate(); err != nil {
		return res, err
	}
	res.Scope = o.Scope
	serverFile, settingsFile := o.paths()
	res.Host, res.ServerFile, res.HooksFile = Host.Name, serverFile, settingsFile

	var serverEdit conffile.FileEdit
	if !o.SharedServer {
		var err error
		if serverEdit, err = o.serverEdit(serverFile); err != nil {
			return res, err
		}
	}
	settingsEdit, statusLine, err := o.settingsEdit(settingsFile)
	if err != nil {
		return res, err
	}
	if statusLine.warning != "" {
		res.Warnings = append(res.Warnings, statusLine.warning)
	}
	var ignoreEdit conffile.FileEdit // local scope: keep the hooks file out of jj's snapshots
	if o.Scope == ScopeLocal && !o.Uninstall {
		if ignoreEdit, err = o.localIgnoreEdit(ctx); err != nil {
			return res, err
		}
	}
	for _, e := range []conffile.FileEdit{serverEdit, settingsEdit, ignoreEdit} {
		if e.Path != "" && e.Changed() {
			res.Edits = append(res.Edits, e)
		}
	}
	if o.DryRun {
		return res, nil
	}
	if ignoreEdit.Path != "" && ignoreEdit.Changed() {
		// Before the settings file exists, so no jj snapshot ever takes it.
		if err := conffile.Apply(ignoreEdit); err != nil {
			return res, err
		}
		res.Notes = append(res.Notes, fmt.Sprintf("jj and git ignore %s (%s)", strings.TrimPrefix(LocalSettingsIgnore, "/"), ignoreEdit.Path))
	}

	if serverEdit.Changed() {
		registered := false
		if o.HostCLI != "" {
			err := o.registerWithClaude(ctx, serverFile)
			if err == nil {
				registered = true
				res.Notes = append(res.Notes, fmt.Sprintf("MCP server %q %s with `claude mcp` (%s scope)", ServerName, conffile.Options(o).Verb("removed", "registered"), o.Scope))
				// Report what claude actually wrote.
				after, _ := conffile.ReadOrNil(serverFile)
				res.Edits[0].After = after
			} else {
				res.Notes = append(res.Notes, fmt.Sprintf("`claude mcp` failed (%v); edited %s directly", err, serverFile))
			}
		}
		if !registered {
			if err := conffile.Apply(serverEdit); err != nil {
				return res, err
			}
			res.Notes = append(res.Notes, fmt.Sprintf("MCP server %q %s %s", ServerName, conffile.Options(o).Verb("removed from", "registered in"), serverFile))
		}
	}
	if settingsEdit.Changed() {
		if err := conffile.Apply(settingsEdit); err != nil {
			return res, err
		}
		res.Notes = append(res.Notes, fmt.Sprintf("hooks %s %s", conffile.Options(o).Verb("removed from", "wired in"), settingsFile))
		if statusLine.note != "" {
			res.Notes = append(res.Notes, statusLine.note)
		}
	}
	return res, nil
}

func (o *InstallOptions) validate() error {
	if o.Scope == "" {
		o.Scope = ScopeProject
	}
	return conffile.Options(*o).Validate()
}

// paths returns the MCP server config file and the hooks settings file.
func (o *InstallOptions) paths() (server, settings string) {
	switch o.Scope {
	case ScopeProject:
		return filepath.Join(o.ProjectDir, ".mcp.json"), filepath.Join(o.ProjectDir, ".claude", "settings.json")
	case ScopeLocal:
		return filepath.Join(o.Home, ".claude.json"), filepath.Join(o.ProjectDir, ".claude", "settings.local.json")
	default:
		return filepath.Join(o.Home, ".claude.json"), filepath.Join(o.Home, ".claude", "settings.json")
	}
}

// serverEntry is the MCP server definition planq registers.
func (o *InstallOptions) serverEntry() *conffile.Object {
	e := conffile.NewObject()
	e.Set("type", "stdio")
	e.Set("command", o.Exe)
	e.Set("args", []any{"mcp", "serve"})
	return e
}

// serversObject returns the mcpServers object inside doc, creating the
// path to it when create is set; it returns nil when it is absent and create
// is not set.
func (o *InstallOptions) serversObject(doc *conffile.Object, path string, create bool) (*conffile.Object, error) {
	if o.Scope == ScopeLocal {
		return doc.Path(path, create, "projects", o.ProjectDir, "mcpServers")
	}
	return doc.Path(path, create, "mcpServers")
}

func (o *InstallOptions) serverEdit(path string) (conffile.FileEdit, error) {
	e, doc, err := loadJSON(path)
	if err != nil {
		return e, err
	}
	servers, err := o.serversObject(doc, path, !o.Uninstall)
	if err != nil || servers == nil {
		return e, err
	}
	cur, exists := servers.Get(ServerName)
	if o.Uninstall {
		if !exists {
			return e, nil
		}
		servers.Del(ServerName)
		if o.Scope == ScopeProject && servers.Len() == 0 && doc.Len() == 1 {
			e.After = nil // .mcp.json held only planq: remove it
			return e, nil
		}
	} else if want := o.serverEntry(); !exists || !bytes.Equal(conffile.Encode(cur), conffile.Encode(want)) {
		servers.Set(ServerName, want)
	}
	e.After = conffile.Render(doc, e.Before)
	return e, nil
}

// hadKey reports whether the original document had the nested key path.
func (o *InstallOptions) hadKey(before []byte, path ...string) bool {
	if before == nil {
		return false
	}
	doc, err := conffile.Parse(before)
	if err != nil {
		return false
	}
	cur := doc
	for i, k := range path {
		v, ok := cur.Get(k)
		if !ok {
			return false
		}
		if i == len(path)-1 {
			return true
		}
		if cur, ok = v.(*conffile.Object); !ok {
			return false
		}
	}
	return true
}

func (o *InstallOptions) settingsEdit(path string) (conffile.FileEdit, statusLineResult, error) {
	var sl statusLineResult
	e, doc, err := loadJSON(path)
	if err != nil {
		return e, sl, err
	}
	if o.Uninstall && e.Before == nil {
		return e, sl, nil
	}
	hadHooks := o.hadKey(e.Before, "hooks")
	hooksObj, ok := doc.Child("hooks")
	if !ok {
		return e, sl, fmt.Errorf("%s: \"hooks\" is not an object; fix the file by hand", path)
	}
	for _, h := range Hooks {
		spec := h.Spec(h.Entry(conffile.Options(*o), ""), "", o.Exe)
		if err := conffile.MergeHook(hooksObj, spec, o.Uninstall, path); err != nil {
			return e, sl, err
		}
	}
	if hooksObj.Len() == 0 && (o.Uninstall || !hadHooks) {
		doc.Del("hooks")
	}
	sl = o.statusLineEdit(doc, path)
	e.After = conffile.Render(doc, e.Before)
	if o.Uninstall && doc.Len() == 0 && o.Scope != ScopeUser && !bytes.Equal(e.After, e.Before) {
		e.After = nil // the settings file held only planq's hooks: remove it
	}
	return e, sl, nil
}

// HookCommand is the shell command line of planq's hook subcommand.
func HookCommand(exe, sub string) string {
	return conffile.HookLine(conffile.Options{Exe: exe}, sub, "", false)
}

// loadJSON reads one of Claude Code's JSON files for editing; a new
// ~/.claude.json is private (0600), as Claude Code makes it.
func loadJSON(path string) (conffile.FileEdit, *conffile.Object, error) {
	mode := os.FileMode(0o644)
	if filepath.Base(path) == ".claude.json" {
		mode = 0o600
	}
	e, doc, err := conffile.LoadJSON(path, mode)
	e.PruneDir = filepath.Base(filepath.Dir(path)) == ".claude"
	return e, doc, err
}

// registerWithClaude adds (or removes) the server through the Claude Code CLI
// and checks the result landed in path.
func (o *InstallOptions) registerWithClaude(ctx context.Context, path string) error {
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, o.HostCLI, args...)
		cmd.Dir = o.ProjectDir
		if cmd.Dir == "" {
			cmd.Dir = o.Home
		}
		cmd.Env = append(os.Environ(), "HOME="+o.Home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("claude %s: %v: %s", strings.Join(args[:2], " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	_, doc, err := loadJSON(path)
	if err != nil {
		return err
	}
	servers, err := o.serversObject(doc, path, false)
	if err != nil {
		return err
	}
	if servers != nil && servers.Has(ServerName) {
		if err := run("mcp", "remove", "--scope", o.Scope, ServerName); err != nil {
			return err
		}
	}
	if o.Uninstall {
		return nil
	}
	if err := run("mcp", "add-json", "--scope", o.Scope, ServerName, string(conffile.EncodeCompact(o.serverEntry()))); err != nil {
		return err
	}
	_, doc, err = loadJSON(path)
	if err != nil {
		return err
	}
	servers, err = o.serversObject(doc, path, false)
	if err != nil || servers == nil {
		return fmt.Errorf("claude mcp add-json did not write the expected entry to %s", path)
	}
	got, _ := servers.Get(ServerName)
	if got == nil || !bytes.Equal(conffile.Encode(got), conffile.Encode(o.serverEntry())) {
		return fmt.Errorf("claude mcp add-json did not write the expected entry to %s", path)
	}
	return nil
}

// Installed reports, for every scope, whether planq's server and hooks are
// wired (for `planq doctor`). exe may be empty.
func Installed(projectDir, home string) []Status {
	if real, err := filepath.EvalSymlinks(projectDir); err == nil {
		projectDir = real // as Claude Code keys its projects, and install writes them
	}
	var out []Status
	for _, scope := range []string{ScopeProject, ScopeLocal, ScopeUser} {
		o := InstallOptions{Scope: scope, ProjectDir: projectDir, Home: home}
		if scope != ScopeUser && projectDir == "" {
			continue
		}
		st := Status{Host: Host.Name, Scope: scope}
		st.ServerFile, st.HooksFile = o.paths()
		if _, doc, err := loadJSON(st.ServerFile); err == nil {
			if servers, err := o.serversObject(doc, st.ServerFile, false); err == nil && servers != nil {
				if v, ok := servers.Get(ServerName); ok {
					st.Server = true
					if e, ok := v.(*conffile.Object); ok {
						st.ServerExe = conffile.EntryCommand(e)
					}
				}
			}
		}
		if _, doc, err := loadJSON(st.HooksFile); err == nil {
			_, _, st.StatusLine = statusLineIn(doc, "")
			hooksObj, _ := doc.Child("hooks")
			for _, h := range Hooks {
				if exe, ok := planqHookExe(hooksObj, h); ok {
					st.Hooks = append(st.Hooks, h.Event)
					if h.Tool && !slices.Contains(st.ToolHookExes, exe) {
						st.ToolHookExes = append(st.ToolHookExes, exe)
					}
				} else {
					st.Missing = append(st.Missing, h.Event)
				}
			}
		}
		out = append(out, st)
	}
	if len(out) > 0 {
		out[0].Findings = append(out[0].Findings, statusLineFinding(projectDir, home))
	}
	return out
}

// planqHookExe finds planq's hook for h and returns the binary it runs.
func planqHookExe(hooksObj *conffile.Object, h Hook) (string, bool) {
	for _, e := range conffile.Entries(hooksObj, h.Event) {
		if cmd := conffile.EntryCommand(e); conffile.IsPlanqHook(cmd, h.Subcommand, "", "") {
			return conffile.CommandBinary(cmd), true
		}
	}
	return "", false
}
