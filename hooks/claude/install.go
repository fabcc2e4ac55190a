package claude

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

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

// InstallOptions says what to install where.
type InstallOptions conffile.Options

// InstallResult is what Install did (or, with DryRun, would do).
type InstallResult = conffile.Result

// Status is whether planq is wired into Claude Code in one scope.
type Status = conffile.Status

// Install registers planq's MCP server and hooks with Claude Code, or removes
// them with Uninstall. It edits the files in place, keeping every other key,
// hook and byte, and is idempotent: a second run changes nothing. The server
// goes into ~/.claude.json directly, not through `claude mcp`, which rewrites
// the whole file and adds keys of its own. In local scope the settings file
// must not be one the repo tracks, and the repo's info/exclude keeps it out
// of jj and git; uninstalling takes that line out again.
func Install(ctx context.Context, o InstallOptions) (InstallResult, error) {
	res := InstallResult{}
	if err := o.validate(); err != nil {
		return res, err
	}
	co := conffile.Options(o)
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
	if err := co.RefuseTracked(ctx, Host.Name, settingsFile); err != nil {
		return res, err
	}
	ignoreEdit, err := co.LocalExclude(ctx, Host.Display, Host.Name, []string{legacyExcludeComment}, settingsFile)
	if err != nil {
		return res, err
	}
	settingsNote := fmt.Sprintf("hooks %s %s", co.Verb("removed from", "wired in"), settingsFile)
	if statusLine.note != "" {
		settingsNote += "; " + statusLine.note
	}
	err = co.Apply(&res,
		conffile.Step{Edit: ignoreEdit, Note: co.ExcludeNote(ignoreEdit)},
		conffile.Step{Edit: serverEdit, Note: fmt.Sprintf("MCP server %q %s %s", ServerName, co.Verb("removed from", "registered in"), serverFile)},
		conffile.Step{Edit: settingsEdit, Note: settingsNote})
	return res, err
}

// legacyExcludeComment is the comment older planqs wrote above Claude
// Code's line in info/exclude.
const legacyExcludeComment = "Claude Code's local settings, where `planq mcp install` wires planq's hooks"

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
		o.dropEmpty(doc, servers)
		if doc.Len() == 0 {
			e.After = nil // the file held only planq's server: planq made it
			return e, nil
		}
	} else if want := o.serverEntry(); !exists || !conffile.Same(cur, want) {
		servers.Set(ServerName, want)
	}
	if err := e.SetJSON(doc); err != nil {
		return e, err
	}
	return e, nil
}

// dropEmpty takes out of doc what installing made around planq's server
// once servers is empty: the servers object, and in local scope this
// project's entry when it holds nothing else (an entry Claude Code made
// keeps its mcpServers, empty, as Claude Code writes it) and the projects
// object when it is left empty.
func (o *InstallOptions) dropEmpty(doc, servers *conffile.Object) {
	if servers.Len() > 0 {
		return
	}
	if o.Scope != ScopeLocal {
		doc.Del("mcpServers")
		return
	}
	projects, _ := doc.Path("", false, "projects")
	entry, _ := doc.Path("", false, "projects", o.ProjectDir)
	if projects == nil || entry == nil {
		return
	}
	if entry.Len() == 1 {
		projects.Del(o.ProjectDir)
	}
	if projects.Len() == 0 {
		doc.Del("projects")
	}
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
	if err := e.SetJSON(doc); err != nil {
		return e, sl, err
	}
	if o.Uninstall && doc.Len() == 0 && !bytes.Equal(e.After, e.Before) {
		e.After = nil // the settings file held only planq's hooks: planq made it
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
	return conffile.LoadJSON(path, mode)
}
