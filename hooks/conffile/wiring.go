package conffile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Installation scopes. Each host adapter says which it supports and what
// files each one means for it.
const (
	ScopeProject = "project" // files in the repo, shared with the team once pushed
	ScopeLocal   = "local"   // this repo only, in files jj and git ignore
	ScopeUser    = "user"    // the user's own config, for every repo
)

// Options says how to wire planq into one host: where, with which binaries.
type Options struct {
	Scope      string // ScopeProject, ScopeLocal or ScopeUser
	ProjectDir string // the code repo root (absolute); required for project and local scope
	Home       string // the user's home directory
	// Getenv reads the environment the host runs with, for the variables
	// that move its config ($XDG_CONFIG_HOME, $CODEX_HOME); nil reads none.
	Getenv func(string) string
	Exe    string // absolute path of the planq binary the hooks and server run
	// HookExe is the absolute path of planq-hook, which then serves the tool
	// hooks (pre-tool-use, post-tool-use); empty wires them to `planq hook …`.
	HookExe string
	// SharedServer says the MCP server reaches ProjectDir from an enclosing
	// directory's registration already (a jj workspace nested in a wired
	// project), so only the rest is wired; a host whose server config is
	// per directory writes it anyway.
	SharedServer bool
	Uninstall    bool   // remove planq's wiring instead
	DryRun       bool   // compute the edits, write nothing
	JJBin        string // jj executable; default "jj"

	// StatusLine also wires planq's status line where the host has one
	// (Claude Code's statusLine); a status line of the user's own is kept.
	StatusLine bool
}

// Env returns the environment variable key as Getenv reads it, or "".
func (o Options) Env(key string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(key)
}

// Validate checks that o names a known scope and absolute paths for what
// the scope needs.
func (o Options) Validate() error {
	switch o.Scope {
	case ScopeProject, ScopeLocal, ScopeUser:
	default:
		return fmt.Errorf("unknown scope %q: use local, project or user", o.Scope)
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

// Verb picks the word for what the install did: un when it uninstalled,
// else in.
func (o Options) Verb(un, in string) string {
	if o.Uninstall {
		return un
	}
	return in
}

// Result is what an install did (or, with DryRun, would do).
type Result struct {
	Host  string // the adapter's name
	Scope string
	// Edits are the files touched, each with its content before and after;
	// only changed files are listed.
	Edits []FileEdit
	// ServerFile and HooksFile are where the MCP server and the hooks live.
	ServerFile, HooksFile string
	// Notes says how the server was registered and anything worth knowing.
	Notes []string
	// Warnings are what the user must hear whether or not anything changed,
	// in a dry run too: what planq left alone for them to do by hand.
	Warnings []string
}

// Changed reports whether anything was (or would be) changed.
func (r Result) Changed() bool { return len(r.Edits) > 0 }

// Status is whether planq is wired into one host in one scope, for planq
// doctor.
type Status struct {
	Host       string
	Scope      string
	ServerFile string
	Server     bool   // the MCP server is registered
	ServerExe  string // the command it runs
	HooksFile  string
	Hooks      []string // events with a planq hook
	Missing    []string // events without one
	// ToolHookExes are the binaries the tool hooks run (planq or planq-hook).
	ToolHookExes []string
	// Gate are the command lines of planq's gate (pre-tool-use) hook
	// here, for the hosts that run one through a shell.
	Gate []string
	// Files are the files this scope's wiring is written to, whether or
	// not they exist (ServerFile and HooksFile, and any other).
	Files []string
	// StatusLine says planq's status line is wired in this scope (Claude
	// Code's statusLine).
	StatusLine bool
	// Findings are what else doctor should say about this wiring: a trust
	// the host still needs before it reads the files, a risk in how it runs
	// them.
	Findings []Finding
}

// Finding is one thing doctor says about a host's wiring beyond whether it
// is there.
type Finding struct {
	Check  string // the check's name after the host's prefix: "trust", "fail-open"
	OK     bool   // false: the host will not use planq's wiring until Fix is done
	Detail string // what is the case, in one line
	Fix    string // what to run or change, when something should be
}

// FailOpen is doctor's "fail-open" finding: what the host does with a tool
// call when planq's gate (its command lines gate) cannot run, and whether
// this wiring holds the call back then. It fails when the gate is not
// wired, when a command lacks the fail-closed tail the host needs (an
// older install: the host would let calls through), and when the binary a
// command runs is not an executable (every gated call is then held back
// until it is); the fix is to install again. w's words are the host's.
func FailOpen(host string, gate []string, w FailOpenWords) Finding {
	f := Finding{Check: "fail-open", OK: len(gate) > 0, Detail: w.OK}
	if !f.OK {
		f.Detail = w.Ungated
	}
	for _, cmd := range gate {
		exe := CommandBinary(cmd)
		switch {
		case !FailsClosed(cmd):
			f.OK, f.Detail = false, w.Open+"; planq's gate command here is an older one, which does not turn its failure into a denial"
		case !Executable(exe):
			f.OK, f.Detail = false, exe+", which planq's gate runs, is not an executable, so every gated tool call is held back until it is (the gate fails closed)"
		}
	}
	if !f.OK {
		f.Fix = "planq mcp install --host " + host + "   (re-run: points the hooks at this planq; its gate command fails closed)"
	}
	return f
}

// FailOpenWords are what a host's fail-open finding says.
type FailOpenWords struct {
	Ungated string // the PreToolUse hook is not wired
	Open    string // what the host does with a call whose hook command fails
	OK      string // what the host does, and why planq's wiring holds
}

// Advise adds to r's notes what each finding of r's scope in sts that is
// not OK says, with its fix: what planq doctor would say of the wiring
// just written.
func (r *Result) Advise(sts ...Status) {
	for _, st := range sts {
		if st.Scope != r.Scope {
			continue
		}
		for _, f := range st.Findings {
			if !f.OK {
				r.Notes = append(r.Notes, f.Detail+"; "+f.Fix)
			}
		}
	}
}

// Wired reports whether the scope holds planq's server or any of its hooks.
func (s Status) Wired() bool { return s.Server || len(s.Hooks) > 0 }

// HookBinary is the name of the minimal binary that serves the tool hooks
// (cmd/planq-hook), installed beside planq.
const HookBinary = "planq-hook"

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

// Executable reports whether path is a file this platform can run (on
// Windows, any regular file).
func Executable(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0
}

// LocalExclude is the edit that keeps a host's local-scope files out of jj
// and git (ExcludeEdit, under a comment naming the host), and, when
// uninstalling, the edit that takes those lines out again
// (ExcludeRemoval); outside local scope it is no edit. legacy are older
// comments of planq's for the same lines.
func (o Options) LocalExclude(ctx context.Context, display, name string, legacy []string, files ...string) (FileEdit, error) {
	if o.Scope != ScopeLocal {
		return FileEdit{}, nil
	}
	var patterns []string
	for _, f := range files {
		rel, err := filepath.Rel(o.ProjectDir, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			return FileEdit{}, fmt.Errorf("%s is not in the project %s", f, o.ProjectDir)
		}
		patterns = append(patterns, "/"+filepath.ToSlash(rel))
	}
	comment := fmt.Sprintf("%s's local planq wiring, written by `planq mcp install --host %s`", display, name)
	if o.Uninstall {
		return ExcludeRemoval(ctx, o.ProjectDir, o.JJBin, append([]string{comment}, legacy...), patterns...)
	}
	return ExcludeEdit(ctx, o.ProjectDir, o.JJBin, comment, patterns...)
}

// Step is one file an install edits and what to say once it is done.
type Step struct {
	Edit FileEdit
	Note string
}

// Apply records the steps that change something in res and (unless
// DryRun) applies them, noting each; it stops at the first failure. The
// exclude step (LocalExclude's) goes first when installing, so no jj
// snapshot ever takes planq's files in, and last when uninstalling, once
// they are gone. A file removed takes with it the directories it leaves
// empty, up to the project (the home, in user scope).
func (o Options) Apply(res *Result, exclude Step, steps ...Step) error {
	steps = append([]Step{exclude}, steps...)
	if o.Uninstall {
		steps = append(steps[1:], exclude)
	}
	root := o.ProjectDir
	if o.Scope == ScopeUser {
		root = o.Home
	}
	var todo []Step
	for _, s := range steps {
		if s.Edit.Path != "" && s.Edit.Changed() {
			if s.Edit.PruneUpTo == "" {
				s.Edit.PruneUpTo = root
			}
			res.Edits = append(res.Edits, s.Edit)
			todo = append(todo, s)
		}
	}
	if o.DryRun {
		return nil
	}
	for _, s := range todo {
		if err := Apply(s.Edit); err != nil {
			return err
		}
		if s.Note != "" {
			res.Notes = append(res.Notes, s.Note)
		}
	}
	return nil
}

// ExcludeNote is what an install says after applying a LocalExclude edit.
func (o Options) ExcludeNote(e FileEdit) string {
	if o.Uninstall {
		return "planq's lines taken out of " + e.Path
	}
	return "jj and git ignore the local wiring (" + e.Path + ")"
}

// Installed reports whether a host is on this machine: its CLI command on
// PATH (lookPath), or one of its config paths.
func Installed(command string, lookPath func(string) (string, error), paths ...string) bool {
	if _, err := lookPath(command); err == nil {
		return true
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}
