package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/shell"
	"mvdan.cc/sh/v3/syntax"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/gate"
)

// Installation scopes, as Claude Code names them.
const (
	ScopeProject = "project" // .mcp.json and .claude/settings.json, shared through the repo
	ScopeLocal   = "local"   // ~/.claude.json for this project, and .claude/settings.local.json
	ScopeUser    = "user"    // ~/.claude.json and ~/.claude/settings.json, for every project
)

// ServerName is the name planq's MCP server is registered under, so its
// tools are mcp__planq__*.
const ServerName = "planq"

// Hook is one Claude Code hook planq wires: the event, planq's subcommand
// for it, the matcher (empty: none) and the timeout in seconds. Tool hooks
// run on every tool call, and are served by the planq-hook binary when it
// is installed beside planq.
type Hook struct {
	Event, Subcommand, Matcher string
	Timeout                    int
	Tool                       bool
}

// HookBinary is the name of the minimal binary that serves the tool hooks
// (cmd/planq-hook), installed beside planq.
const HookBinary = "planq-hook"

// GatedTools is the tool matcher of the PreToolUse and PostToolUse hooks:
// every tool except those the gate always allows (gate.ReadOnlyTools), so
// Claude Code starts no planq process for a Read or a Grep. Claude Code reads
// a matcher with regex characters as an unanchored JavaScript regex; a tool it
// has never heard of still matches, and so is still gated.
var GatedTools = "^(?!(?:" + strings.Join(gate.ReadOnlyTools(), "|") + ")$)"

// Hooks are the hooks `planq mcp install` wires, in the order it writes them.
var Hooks = []Hook{
	{"SessionStart", "session-start", "", 30, false},
	{"PreToolUse", "pre-tool-use", GatedTools, 10, true},
	{"PostToolUse", "post-tool-use", GatedTools, 10, true},
	{"PreCompact", "pre-compact", "", 30, false},
	{"Stop", "stop", "", 30, false},
	{"SessionEnd", "session-end", "", 30, false},
}

// InstallOptions says what to install where.
type InstallOptions struct {
	Scope      string // project (default), local or user
	ProjectDir string // the code repo root (absolute); required for project and local scope
	Home       string // the user's home directory (~/.claude.json, ~/.claude/)
	Exe        string // absolute path of the planq binary the hooks and server run
	// HookExe is the absolute path of planq-hook, which then serves the tool
	// hooks (PreToolUse, PostToolUse); empty wires them to `planq hook …`.
	HookExe string
	// Claude is the Claude Code CLI to register the server with (`claude mcp
	// add-json`); empty means planq edits the MCP config file itself.
	Claude    string
	Uninstall bool   // remove planq's server and hooks instead
	DryRun    bool   // compute the edits, write nothing
	JJBin     string // jj executable; default "jj"
}

// FileEdit is one file the install changes (or would change).
type FileEdit struct {
	Path   string
	Before []byte // nil: the file did not exist
	After  []byte // nil: the file is removed
	Mode   fs.FileMode
}

// Changed reports whether the edit changes the file.
func (e FileEdit) Changed() bool {
	return !bytes.Equal(e.Before, e.After) || (e.Before == nil) != (e.After == nil)
}

// Diff returns the edit as a unified diff ("" when nothing changes).
func (e FileEdit) Diff() string {
	if !e.Changed() {
		return ""
	}
	return unifiedDiff(e.Path, e.Before, e.After)
}

// InstallResult is what Install did (or, with DryRun, would do).
type InstallResult struct {
	Scope string
	// Edits are the files touched, each with its content before and after;
	// only changed files are listed.
	Edits []FileEdit
	// ServerFile and SettingsFile are where the server and hooks live.
	ServerFile, SettingsFile string
	// Notes says how the server was registered and anything worth knowing.
	Notes []string
}

// Changed reports whether anything was (or would be) changed.
func (r InstallResult) Changed() bool { return len(r.Edits) > 0 }

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
	res.ServerFile, res.SettingsFile = serverFile, settingsFile

	serverEdit, err := o.serverEdit(serverFile)
	if err != nil {
		return res, err
	}
	settingsEdit, err := o.settingsEdit(settingsFile)
	if err != nil {
		return res, err
	}
	var ignoreEdit FileEdit // local scope: keep the hooks file out of jj's snapshots
	if o.Scope == ScopeLocal && !o.Uninstall {
		if ignoreEdit, err = o.localIgnoreEdit(ctx); err != nil {
			return res, err
		}
	}
	for _, e := range []FileEdit{serverEdit, settingsEdit, ignoreEdit} {
		if e.Path != "" && e.Changed() {
			res.Edits = append(res.Edits, e)
		}
	}
	if o.DryRun {
		return res, nil
	}
	if ignoreEdit.Path != "" && ignoreEdit.Changed() {
		// Before the settings file exists, so no jj snapshot ever takes it.
		if err := applyEdit(ignoreEdit); err != nil {
			return res, err
		}
		res.Notes = append(res.Notes, fmt.Sprintf("jj and git ignore %s (%s)", strings.TrimPrefix(LocalSettingsIgnore, "/"), ignoreEdit.Path))
	}

	if serverEdit.Changed() {
		registered := false
		if o.Claude != "" {
			err := o.registerWithClaude(ctx, serverFile)
			if err == nil {
				registered = true
				res.Notes = append(res.Notes, fmt.Sprintf("MCP server %q %s with `claude mcp` (%s scope)", ServerName, verb(o.Uninstall, "removed", "registered"), o.Scope))
				// Report what claude actually wrote.
				after, _ := readFileOrNil(serverFile)
				res.Edits[0].After = after
			} else {
				res.Notes = append(res.Notes, fmt.Sprintf("`claude mcp` failed (%v); edited %s directly", err, serverFile))
			}
		}
		if !registered {
			if err := applyEdit(serverEdit); err != nil {
				return res, err
			}
			res.Notes = append(res.Notes, fmt.Sprintf("MCP server %q %s %s", ServerName, verb(o.Uninstall, "removed from", "registered in"), serverFile))
		}
	}
	if settingsEdit.Changed() {
		if err := applyEdit(settingsEdit); err != nil {
			return res, err
		}
		res.Notes = append(res.Notes, fmt.Sprintf("hooks %s %s", verb(o.Uninstall, "removed from", "wired in"), settingsFile))
	}
	return res, nil
}

func verb(uninstall bool, un, in string) string {
	if uninstall {
		return un
	}
	return in
}

func (o *InstallOptions) validate() error {
	if o.Scope == "" {
		o.Scope = ScopeProject
	}
	switch o.Scope {
	case ScopeProject, ScopeLocal, ScopeUser:
	default:
		return fmt.Errorf("unknown scope %q: use project, local or user", o.Scope)
	}
	if o.Home == "" || !filepath.IsAbs(o.Home) {
		return fmt.Errorf("home directory %q must be an absolute path", o.Home)
	}
	if o.Scope != ScopeUser && (o.ProjectDir == "" || !filepath.IsAbs(o.ProjectDir)) {
		return fmt.Errorf("project directory %q must be an absolute path", o.ProjectDir)
	}
	if !o.Uninstall && (o.Exe == "" || !filepath.IsAbs(o.Exe)) {
		return fmt.Errorf("planq binary path %q must be absolute", o.Exe)
	}
	if o.HookExe != "" && !filepath.IsAbs(o.HookExe) {
		return fmt.Errorf("planq-hook binary path %q must be absolute", o.HookExe)
	}
	return nil
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
func (o *InstallOptions) serverEntry() *object {
	e := newObject()
	e.set("type", "stdio")
	e.set("command", o.Exe)
	e.set("args", []any{"mcp", "serve"})
	return e
}

// serversObject returns the mcpServers object inside doc, creating the
// path to it when create is set; it returns nil when it is absent and create
// is not set.
func (o *InstallOptions) serversObject(doc *object, path string, create bool) (*object, error) {
	lookup := func(parent *object, key string) (*object, error) {
		v, exists := parent.get(key)
		if !exists || v == nil {
			if !create {
				return nil, nil
			}
			c := newObject()
			parent.set(key, c)
			return c, nil
		}
		c, ok := v.(*object)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not an object; fix the file by hand", path, key)
		}
		return c, nil
	}
	parent := doc
	if o.Scope == ScopeLocal {
		projects, err := lookup(doc, "projects")
		if err != nil || projects == nil {
			return nil, err
		}
		if parent, err = lookup(projects, o.ProjectDir); err != nil || parent == nil {
			return nil, err
		}
	}
	return lookup(parent, "mcpServers")
}

func (o *InstallOptions) serverEdit(path string) (FileEdit, error) {
	e, doc, err := loadJSON(path)
	if err != nil {
		return e, err
	}
	servers, err := o.serversObject(doc, path, !o.Uninstall)
	if err != nil || servers == nil {
		return e, err
	}
	cur, exists := servers.get(ServerName)
	if o.Uninstall {
		if !exists {
			return e, nil
		}
		servers.del(ServerName)
		if o.Scope == ScopeProject && len(servers.keys) == 0 && len(doc.keys) == 1 {
			e.After = nil // .mcp.json held only planq: remove it
			return e, nil
		}
	} else if want := o.serverEntry(); !exists || !bytes.Equal(encodeJSON(cur), encodeJSON(want)) {
		servers.set(ServerName, want)
	}
	e.After = render(doc, e.Before)
	return e, nil
}

// hadKey reports whether the original document had the nested key path.
func (o *InstallOptions) hadKey(before []byte, path ...string) bool {
	if before == nil {
		return false
	}
	doc, err := parseJSON(before)
	if err != nil {
		return false
	}
	cur := doc
	for i, k := range path {
		v, ok := cur.get(k)
		if !ok {
			return false
		}
		if i == len(path)-1 {
			return true
		}
		if cur, ok = v.(*object); !ok {
			return false
		}
	}
	return true
}

func (o *InstallOptions) settingsEdit(path string) (FileEdit, error) {
	e, doc, err := loadJSON(path)
	if err != nil {
		return e, err
	}
	if o.Uninstall && e.Before == nil {
		return e, nil
	}
	hadHooks := o.hadKey(e.Before, "hooks")
	hooksObj, ok := doc.child("hooks")
	if !ok {
		return e, fmt.Errorf("%s: \"hooks\" is not an object; fix the file by hand", path)
	}
	for _, h := range Hooks {
		if err := o.mergeHook(hooksObj, h, path); err != nil {
			return e, err
		}
	}
	if len(hooksObj.keys) == 0 && (o.Uninstall || !hadHooks) {
		doc.del("hooks")
	}
	e.After = render(doc, e.Before)
	if o.Uninstall && len(doc.keys) == 0 && o.Scope != ScopeUser && !bytes.Equal(e.After, e.Before) {
		e.After = nil // the settings file held only planq's hooks: remove it
	}
	return e, nil
}

// mergeHook makes hooksObj[h.Event] hold exactly one planq hook for h (none
// with Uninstall), leaving every other hook where it is. An outdated planq
// hook (another binary path, another timeout) is updated in place.
func (o *InstallOptions) mergeHook(hooksObj *object, h Hook, path string) error {
	v, exists := hooksObj.get(h.Event)
	groups, ok := v.([]any)
	if exists && !ok {
		return fmt.Errorf("%s: hooks.%s is not a list; fix the file by hand", path, h.Event)
	}
	want := o.hookEntry(h)
	found := false
	var out []any
	for _, g := range groups {
		group, ok := g.(*object)
		if !ok {
			out = append(out, g)
			continue
		}
		hv, _ := group.get("hooks")
		list, ok := hv.([]any)
		if !ok {
			out = append(out, g)
			continue
		}
		var kept []any
		for _, item := range list {
			entry, ok := item.(*object)
			cmd, _ := entryCommand(entry)
			if !ok || !isPlanqHook(cmd, h.Subcommand, o.Exe) {
				kept = append(kept, item)
				continue
			}
			if !o.Uninstall && !found && matcherOK(group, h) {
				found = true
				kept = append(kept, want) // in place, updated if outdated
			}
		}
		if len(kept) == 0 {
			continue // the group held only planq's hook
		}
		group.set("hooks", kept)
		out = append(out, group)
	}
	if !o.Uninstall && !found {
		g := newObject()
		if h.Matcher != "" {
			g.set("matcher", h.Matcher)
		}
		g.set("hooks", []any{want})
		out = append(out, g)
	}
	if len(out) == 0 {
		hooksObj.del(h.Event)
		return nil
	}
	hooksObj.set(h.Event, out)
	return nil
}

// matcherOK reports whether a group's matcher lets planq's hook see what it must.
func matcherOK(group *object, h Hook) bool {
	m, _ := group.get("matcher")
	s, _ := m.(string)
	if h.Matcher == "" {
		return s == "" || s == "*"
	}
	return s == h.Matcher
}

func (o *InstallOptions) hookEntry(h Hook) *object {
	e := newObject()
	e.set("type", "command")
	if h.Tool && o.HookExe != "" {
		e.set("command", shellQuote(o.HookExe)+" "+h.Subcommand)
	} else {
		e.set("command", HookCommand(o.Exe, h.Subcommand))
	}
	e.set("timeout", jsonInt(h.Timeout))
	return e
}

func entryCommand(entry *object) (string, bool) {
	if entry == nil {
		return "", false
	}
	v, _ := entry.get("command")
	s, ok := v.(string)
	return s, ok
}

// HookCommand is the shell command line of planq's hook subcommand.
func HookCommand(exe, sub string) string {
	return shellQuote(exe) + " hook " + sub
}

// isPlanqHook reports whether a hook command line runs planq's hook sub:
// "<binary> hook <sub>" where the binary is exe or named planq* (planq,
// planq.test, planq-dev), wherever it lives, or "<planq-hook> <sub>".
func isPlanqHook(cmd, sub, exe string) bool {
	f := shellFields(cmd)
	if len(f) == 0 {
		return false
	}
	// Either separator: a settings file may come from another platform.
	base := f[0][strings.LastIndexAny(f[0], `/\`)+1:]
	if len(f) == 2 && f[1] == sub && strings.HasPrefix(base, HookBinary) {
		return true
	}
	if len(f) != 3 || f[1] != "hook" || f[2] != sub {
		return false
	}
	return strings.HasPrefix(base, "planq") || f[0] == exe || (exe != "" && base == filepath.Base(exe))
}

// HookBinaryBeside returns the planq-hook binary installed beside the
// planq binary exe, or "" when there is none.
func HookBinaryBeside(exe string) string {
	name := HookBinary
	if ext := filepath.Ext(exe); strings.EqualFold(ext, ".exe") {
		name += ext
	}
	p := filepath.Join(filepath.Dir(exe), name)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && (st.Mode().Perm()&0o111 != 0 || strings.EqualFold(filepath.Ext(p), ".exe")) {
		return p
	}
	return ""
}

// ShellQuote quotes s for a POSIX shell when it needs quoting, with
// mvdan.cc/sh's syntax.Quote: the shell Claude Code runs hook commands with
// (sh; Git Bash on Windows, so C:\ paths with spaces work too).
func ShellQuote(s string) string { return shellQuote(s) }

// ShellFields splits a command line into words the way a POSIX shell would
// (quotes and escapes removed, with mvdan.cc/sh), without running one:
// $NAME is kept as written, not expanded. It returns nil for a line that is
// not valid shell syntax.
func ShellFields(s string) []string { return shellFields(s) }

func shellQuote(s string) string {
	q, err := syntax.Quote(s, syntax.LangPOSIX)
	if err != nil {
		// Control characters: POSIX has no escapes for them, but single
		// quotes keep every byte but the quote itself.
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}

func shellFields(s string) []string {
	f, err := shell.Fields(s, func(name string) string { return "$" + name })
	if err != nil {
		return nil
	}
	return f
}

func jsonInt(n int) any { return jsonNumber(fmt.Sprint(n)) }

// loadJSON reads path (missing: nil Before, empty document).
func loadJSON(path string) (FileEdit, *object, error) {
	e := FileEdit{Path: path, Mode: 0o644}
	data, err := readFileOrNil(path)
	if err != nil {
		return e, nil, err
	}
	e.Before = data
	if info, err := os.Stat(path); err == nil {
		e.Mode = info.Mode().Perm()
	} else if filepath.Base(path) == ".claude.json" {
		e.Mode = 0o600
	}
	doc, err := parseJSON(data)
	if err != nil {
		return e, nil, fmt.Errorf("%s is not valid JSON (%v); fix or move it, then rerun", path, err)
	}
	e.After = data
	return e, doc, nil
}

func readFileOrNil(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// render encodes doc, ending with a newline when the original did (or was
// new). When doc says the same as before, before is returned byte for byte,
// whatever its formatting.
func render(doc *object, before []byte) []byte {
	if before != nil {
		if orig, err := parseJSON(before); err == nil && bytes.Equal(encodeJSON(orig), encodeJSON(doc)) {
			return before
		}
	}
	out := encodeJSONIndent(doc, detectIndent(before))
	if before == nil || bytes.HasSuffix(before, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

func applyEdit(e FileEdit) error {
	if !e.Changed() {
		return nil
	}
	if e.After == nil {
		if err := os.Remove(e.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", e.Path, err)
		}
		if dir := filepath.Dir(e.Path); filepath.Base(dir) == ".claude" {
			_ = os.Remove(dir) // only succeeds when planq's file was all it held
		}
		return nil
	}
	if err := config.WriteFileAtomic(e.Path, e.After, e.Mode); err != nil {
		return fmt.Errorf("write %s: %w", e.Path, err)
	}
	return nil
}

// registerWithClaude adds (or removes) the server through the Claude Code CLI
// and checks the result landed in path.
func (o *InstallOptions) registerWithClaude(ctx context.Context, path string) error {
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, o.Claude, args...)
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
	if servers != nil && servers.vals[ServerName] != nil {
		if err := run("mcp", "remove", "--scope", o.Scope, ServerName); err != nil {
			return err
		}
	}
	if o.Uninstall {
		return nil
	}
	if err := run("mcp", "add-json", "--scope", o.Scope, ServerName, string(encodeJSONCompact(o.serverEntry()))); err != nil {
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
	got, _ := servers.get(ServerName)
	if got == nil || !bytes.Equal(encodeJSON(got), encodeJSON(o.serverEntry())) {
		return fmt.Errorf("claude mcp add-json did not write the expected entry to %s", path)
	}
	return nil
}

func encodeJSONCompact(v any) []byte {
	var b bytes.Buffer
	_ = jsonCompact(&b, encodeJSON(v))
	return b.Bytes()
}

// Status is whether planq is wired into Claude Code in one scope.
type Status struct {
	Scope        string
	ServerFile   string
	Server       bool   // the MCP server is registered
	ServerExe    string // the command it runs
	SettingsFile string
	Hooks        []string // events with a planq hook
	Missing      []string // events without one
	// ToolHookExes are the binaries the tool hooks run (planq or planq-hook).
	ToolHookExes []string
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
		st := Status{Scope: scope}
		st.ServerFile, st.SettingsFile = o.paths()
		if _, doc, err := loadJSON(st.ServerFile); err == nil {
			if servers, err := o.serversObject(doc, st.ServerFile, false); err == nil && servers != nil {
				if v, ok := servers.get(ServerName); ok {
					st.Server = true
					if e, ok := v.(*object); ok {
						st.ServerExe, _ = entryCommand(e)
					}
				}
			}
		}
		if _, doc, err := loadJSON(st.SettingsFile); err == nil {
			hooksObj, _ := doc.child("hooks")
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
	return out
}

func hasPlanqHook(hooksObj *object, h Hook) bool {
	_, ok := planqHookExe(hooksObj, h)
	return ok
}

// planqHookExe finds planq's hook for h and returns the binary it runs.
func planqHookExe(hooksObj *object, h Hook) (string, bool) {
	if hooksObj == nil {
		return "", false
	}
	v, _ := hooksObj.get(h.Event)
	groups, _ := v.([]any)
	for _, g := range groups {
		group, _ := g.(*object)
		if group == nil {
			continue
		}
		hv, _ := group.get("hooks")
		list, _ := hv.([]any)
		for _, item := range list {
			e, _ := item.(*object)
			cmd, _ := entryCommand(e)
			if isPlanqHook(cmd, h.Subcommand, "") {
				if f := shellFields(cmd); len(f) > 0 {
					return f[0], true
				}
			}
		}
	}
	return "", false
}
