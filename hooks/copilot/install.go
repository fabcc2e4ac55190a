package copilot

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/conffile"
)

// ServerName is the name planq's MCP server is registered under, so the
// model sees its tools as planq-<tool>.
const ServerName = "planq"

// Hook is one Copilot hook planq wires: the event, planq's subcommand, no
// matcher (Copilot's hooks have none), the timeout in seconds, and whether
// it is a tool hook (served by planq-hook when installed).
type Hook = conffile.Hook

// Hooks are the hooks install wires, in order. subagentStart runs planq's
// session-start for a subagent, whose answer Copilot prepends to the
// subagent's prompt. Copilot runs a hook that times out as if it were not
// there, which for the gate means the call runs: PreToolUse gets two
// minutes, far more than the gate takes.
var Hooks = []Hook{
	{Event: EventSessionStart, Subcommand: "session-start", Timeout: 60},
	{Event: EventSubagentStart, Subcommand: "session-start", Timeout: 60},
	{Event: EventPreToolUse, Subcommand: "pre-tool-use", Timeout: 120, Tool: true},
	{Event: EventPostToolUse, Subcommand: "post-tool-use", Timeout: 60, Tool: true},
	{Event: EventPreCompact, Subcommand: "pre-compact", Timeout: 60},
	{Event: EventStop, Subcommand: "stop", Timeout: 60},
	{Event: EventSessionEnd, Subcommand: "session-end", Timeout: 60},
}

// Markers around planq's block in an instructions file.
const (
	blockBegin = "<!-- >>> planq (managed by planq mcp install; edits here are replaced) >>> -->"
	blockEnd   = "<!-- <<< planq <<< -->"
)

// instructionsFront is the front matter of planq's own instructions file
// in a project (.github/instructions/planq.instructions.md): for every file.
const instructionsFront = "---\napplyTo: \"**\"\n---\n"

// home is Copilot's user directory: $COPILOT_HOME, else ~/.copilot.
func home(o conffile.Options) string {
	if d := o.Env("COPILOT_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(o.Home, ".copilot")
}

// files are the files of one scope: where the hooks, the MCP server and
// planq's instructions live.
type files struct {
	Hooks, Server, Instructions string
}

// paths returns o's scope's files: for user scope, the hooks key of
// $COPILOT_HOME/settings.json, mcp-config.json and copilot-instructions.md;
// for project and local scope, .github/hooks/planq.json, .github/mcp.json
// and .github/instructions/planq.instructions.md (local keeps them out of
// jj and git). Copilot also reads the project's .mcp.json, but that is
// Claude Code's file too: planq leaves it to Claude Code's adapter.
func paths(o conffile.Options) files {
	if o.Scope == conffile.ScopeUser {
		d := home(o)
		return files{filepath.Join(d, "settings.json"), filepath.Join(d, "mcp-config.json"), filepath.Join(d, "copilot-instructions.md")}
	}
	p := o.ProjectDir
	return files{filepath.Join(p, ".github", "hooks", "planq.json"), filepath.Join(p, ".github", "mcp.json"),
		filepath.Join(p, ".github", "instructions", "planq.instructions.md")}
}

// Install wires planq into Copilot CLI, or out of it with Uninstall: the
// MCP server in mcpServers, the hooks, planq's instructions block (the
// session context Copilot does not take from a hook), and in local scope
// the info/exclude lines that keep all three out of jj and git. Every
// other key, hook and line of the user's is kept; a second run changes
// nothing. It does not trust the folder for Copilot: the notes (and planq
// doctor) say how.
func (Adapter) Install(ctx context.Context, o conffile.Options) (conffile.Result, error) {
	res := conffile.Result{Host: Host.Name, Scope: o.Scope}
	if err := o.Validate(); err != nil {
		return res, err
	}
	f := paths(o)
	res.ServerFile, res.HooksFile = f.Server, f.Hooks
	srvEdit, err := serverEdit(o, f.Server)
	if err != nil {
		return res, err
	}
	hkEdit, err := hooksEdit(o, f.Hooks)
	if err != nil {
		return res, err
	}
	insEdit, err := instructionsEdit(o, f.Instructions)
	if err != nil {
		return res, err
	}
	if err := o.RefuseTracked(ctx, Host.Name, f.Hooks, f.Server, f.Instructions); err != nil {
		return res, err
	}
	ignoreEdit, err := o.LocalExclude(ctx, Host.Display, Host.Name, nil, f.Hooks, f.Server, f.Instructions)
	if err != nil {
		return res, err
	}
	err = o.Apply(&res,
		conffile.Step{Edit: ignoreEdit, Note: o.ExcludeNote(ignoreEdit)},
		conffile.Step{Edit: srvEdit, Note: fmt.Sprintf("MCP server %q %s %s", ServerName, o.Verb("removed from", "registered in"), f.Server)},
		conffile.Step{Edit: hkEdit, Note: fmt.Sprintf("hooks %s %s", o.Verb("removed from", "written to"), f.Hooks)},
		conffile.Step{Edit: insEdit, Note: fmt.Sprintf("planq's instructions %s %s", o.Verb("removed from", "written to"), f.Instructions)})
	if err != nil || o.DryRun {
		return res, err
	}
	if !o.Uninstall {
		res.Advise((Adapter{}).Installed(o)...)
	}
	return res, nil
}

// serverEntry is planq's mcpServers entry. Copilot starts a local server
// with the CLI's environment; PLANQ_HOME is listed anyway when set, as the
// docs say only PATH is inherited.
func serverEntry(o conffile.Options) *conffile.Object {
	env := conffile.NewObject()
	env.Set("PLANQ_HOST", Host.Name)
	if h := o.Env("PLANQ_HOME"); h != "" {
		env.Set("PLANQ_HOME", h)
	}
	s := conffile.NewObject()
	s.Set("type", "local")
	s.Set("command", o.Exe)
	s.Set("args", []any{"mcp", "serve"})
	s.Set("env", env)
	s.Set("tools", []any{"*"})
	return s
}

// serverEdit sets (or removes) mcpServers.planq in path, keeping every
// other server and key.
func serverEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, doc, err := o.EditJSON(path)
	if err != nil || doc == nil {
		return e, err
	}
	servers, err := doc.Path(path, !o.Uninstall, "mcpServers")
	if err != nil || servers == nil {
		return e, err
	}
	if o.Uninstall {
		servers.Del(ServerName)
		if servers.Len() == 0 {
			doc.Del("mcpServers")
		}
		if doc.Len() == 0 {
			e.After = nil // planq made the file
			return e, nil
		}
	} else {
		servers.Set(ServerName, serverEntry(o))
	}
	if err := e.SetJSON(doc); err != nil {
		return e, err
	}
	return e, nil
}

// hookEntry is planq's handler for h.
func hookEntry(o conffile.Options, h Hook) *conffile.Object {
	e := conffile.NewObject()
	e.Set("type", "command")
	e.Set("bash", conffile.HookLine(o, h.Subcommand, Host.Name, h.Tool))
	e.Set("timeoutSec", conffile.Int(h.Timeout))
	return e
}

// handlerCommand is a hook handler's bash command, or "".
func handlerCommand(v any) string {
	h, ok := v.(*conffile.Object)
	if !ok {
		return ""
	}
	c, _ := h.Get("bash")
	s, _ := c.(string)
	return s
}

// hooksEdit merges planq's hooks into path's hooks (or removes them):
// planq's handlers are taken out of each event's list, every other one is
// kept, and planq's is appended, unless the list already has exactly it.
// A project's hooks file gets "version": 1.
func hooksEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, doc, err := o.EditJSON(path)
	if err != nil || doc == nil {
		return e, err
	}
	if !o.Uninstall && o.Scope != conffile.ScopeUser && !doc.Has("version") {
		doc.Set("version", conffile.Int(1))
	}
	events, err := doc.Path(path, !o.Uninstall, "hooks")
	if err != nil || events == nil {
		return e, err
	}
	for _, h := range Hooks {
		var list []any
		if v, ok := events.Get(h.Event); ok && v != nil {
			if list, ok = v.([]any); !ok {
				return e, fmt.Errorf("%s: hooks.%s is not a list; fix the file by hand", path, h.Event)
			}
		}
		want := hookEntry(o, h)
		var kept []any
		found, exact := 0, false
		for _, hd := range list {
			if conffile.IsPlanqHook(handlerCommand(hd), h.Subcommand, Host.Name, "") {
				found++
				exact = conffile.Same(hd, want)
				continue
			}
			kept = append(kept, hd)
		}
		if !o.Uninstall && found == 1 && exact {
			continue
		}
		if !o.Uninstall {
			kept = append(kept, want)
		}
		if len(kept) == 0 {
			events.Del(h.Event)
		} else {
			events.Set(h.Event, kept)
		}
	}
	if o.Uninstall {
		if events.Len() == 0 {
			doc.Del("hooks")
			if o.Scope != conffile.ScopeUser && doc.Len() == 1 && doc.Has("version") {
				doc.Del("version")
			}
		}
		if doc.Len() == 0 {
			e.After = nil // planq made the file
			return e, nil
		}
	}
	if err := e.SetJSON(doc); err != nil {
		return e, err
	}
	return e, nil
}

// instructionsBlock is planq's block for the instructions Copilot gives
// the model: the session context Copilot takes from no hook, as a standing
// order to look it up with planq's tools, and how the gate works.
func instructionsBlock() string {
	t := Host.Tool
	return blockBegin + "\n" +
		"## planq: this repository's work is recorded as jj changes\n\n" +
		"- At the start of every session, before anything else, call `" + t("jj_status") + "` (the current jj change, its description, which is the living summary of the work, and whether planq's gate is locked) and `" + t("planq_context") + "` (handoffs, scratch notes, decisions and learnings left by earlier sessions).\n" +
		"- Before you change any file, declare the change with `" + t("jj_init") + "` and a description of what you will do. Until then planq's gate denies every tool call that may modify the project (bash commands that write, create, edit, unknown tools); its denial says what to do. Reading is never blocked.\n" +
		"- When you finish a step, keep the change's description a living summary with `" + t("jj_describe") + "`: the task line, then Done:, Key decisions:, Left to do:, Open questions: lists. planq asks for it when you stop.\n" +
		"- To look up what an earlier session did or said, call `" + t("query_ancestor") + "` with a change id and include [\"transcript\"].\n" +
		blockEnd + "\n"
}

// instructionsEdit puts planq's block into the instructions file (or
// takes it out), keeping the rest byte for byte. A project's file is
// planq's own (with front matter for every file) unless the user wrote
// more into it; uninstall removes it when nothing else is left.
func instructionsEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, err := conffile.ReadEdit(path, 0o644)
	if err != nil || e.Before == nil && o.Uninstall {
		return e, err
	}
	rest, at, err := conffile.SplitBlock(path, e.Before, blockBegin, blockEnd)
	if err != nil {
		return e, err
	}
	if o.Uninstall {
		if at < 0 {
			return e, nil
		}
		e.After = conffile.DropBlock(rest, at)
		if left := strings.TrimSpace(string(e.After)); left == "" || o.Scope != conffile.ScopeUser && left == strings.TrimSpace(instructionsFront) {
			e.After = nil
		}
		return e, nil
	}
	block := []byte(instructionsBlock())
	if e.Before == nil && o.Scope != conffile.ScopeUser {
		e.After = append([]byte(instructionsFront), block...)
	} else {
		e.After = conffile.PutBlock(rest, at, block)
	}
	return e, nil
}
