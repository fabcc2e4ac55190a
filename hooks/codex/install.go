package codex

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/internal/text"
)

// ServerName is the name planq's MCP server is registered under, so the
// model sees its tools in namespace mcp__planq.
const ServerName = "planq"

// Hook is one Codex hook planq wires: the event, planq's subcommand, the
// matcher (empty: every tool or source), the timeout in seconds, and
// whether it is a tool hook (served by planq-hook when installed).
type Hook = conffile.Hook

// Hooks are the hooks install wires, in order. SubagentStop runs planq's
// stop for a subagent's turn (its transcript, never a nudge). PreToolUse has no matcher,
// so a tool planq does not know still meets the gate (a Codex matcher is a
// Rust regex, which cannot say "all but the read-only tools"). Codex clamps
// a SessionEnd timeout to 3 seconds.
var Hooks = []Hook{
	{Event: EventSessionStart, Subcommand: "session-start", Timeout: 30},
	{Event: EventPreToolUse, Subcommand: "pre-tool-use", Timeout: 10, Tool: true},
	{Event: EventPostToolUse, Subcommand: "post-tool-use", Matcher: "^(Bash|apply_patch|mcp__planq__.*)$", Timeout: 10, Tool: true},
	{Event: EventPreCompact, Subcommand: "pre-compact", Timeout: 30},
	{Event: EventStop, Subcommand: "stop", Timeout: 30},
	{Event: EventSubagentStop, Subcommand: "stop", Timeout: 30},
	{Event: EventSessionEnd, Subcommand: "session-end", Timeout: 3},
}

// Block markers around planq's part of a config.toml.
const (
	blockBegin = "# >>> planq (managed by planq mcp install; edits here are replaced) >>>"
	blockEnd   = "# <<< planq <<<"
)

// codexHome is Codex's user config directory: $CODEX_HOME, else ~/.codex.
func codexHome(o conffile.Options) string { return userDir(o.Env, o.Home) }

// userDir is Codex's user config directory: $CODEX_HOME, else home/.codex
// ("" when neither is known).
func userDir(getenv func(string) string, home string) string {
	if d := getenv("CODEX_HOME"); d != "" {
		return d
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// paths returns the config.toml holding the MCP server and the hooks.json
// of o's scope: $CODEX_HOME's for user scope, the project's .codex/ for
// project and local scope (local keeps them out of jj and git).
func paths(o conffile.Options) (config, hooks string) {
	d := codexHome(o)
	if o.Scope != conffile.ScopeUser {
		d = filepath.Join(o.ProjectDir, ".codex")
	}
	return filepath.Join(d, "config.toml"), filepath.Join(d, "hooks.json")
}

// Install wires planq into Codex, or out of it with Uninstall: the MCP
// server in a marked block of config.toml (the user's settings and comments
// kept byte for byte), the hooks in hooks.json (every other hook kept), and
// in local scope the info/exclude lines that keep both out of jj and git.
// It is idempotent. It neither trusts the project nor planq's hooks for
// Codex: the notes (and planq doctor) say how.
func (Adapter) Install(ctx context.Context, o conffile.Options) (conffile.Result, error) {
	res := conffile.Result{Host: Host.Name, Scope: o.Scope}
	if err := o.Validate(); err != nil {
		return res, err
	}
	configFile, hooksFile := paths(o)
	res.ServerFile, res.HooksFile = configFile, hooksFile
	cfgEdit, err := configEdit(o, configFile)
	if err != nil {
		return res, err
	}
	hkEdit, err := hooksEdit(o, hooksFile)
	if err != nil {
		return res, err
	}
	if err := o.RefuseTracked(ctx, Host.Name, configFile, hooksFile); err != nil {
		return res, err
	}
	ignoreEdit, err := o.LocalExclude(ctx, Host.Display, Host.Name, nil, configFile, hooksFile)
	if err != nil {
		return res, err
	}
	err = o.Apply(&res,
		conffile.Step{Edit: ignoreEdit, Note: o.ExcludeNote(ignoreEdit)},
		conffile.Step{Edit: cfgEdit, Note: fmt.Sprintf("MCP server %q %s %s", ServerName, o.Verb("removed from", "registered in"), configFile)},
		conffile.Step{Edit: hkEdit, Note: fmt.Sprintf("hooks %s %s", o.Verb("removed from", "written to"), hooksFile)})
	if err != nil || o.DryRun {
		return res, err
	}
	if !o.Uninstall {
		res.Advise((Adapter{}).Installed(o)...)
	}
	return res, nil
}

// serverBlock is planq's block for config.toml.
func serverBlock(o conffile.Options) []byte {
	var b bytes.Buffer
	b.WriteString(blockBegin + "\n[mcp_servers." + ServerName + "]\n")
	fmt.Fprintf(&b, "command = %s\n", tomlString(o.Exe))
	b.WriteString(`args = ["mcp", "serve"]` + "\n")
	b.WriteString(`env = { PLANQ_HOST = "codex" }` + "\n")
	b.WriteString(blockEnd + "\n")
	return b.Bytes()
}

// tomlString quotes s as a TOML basic string (also a quoted key), the way
// the TOML library writes one.
func tomlString(s string) string {
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(map[string]string{"v": s}); err != nil {
		return strconv.Quote(s) // not reached: every Go string encodes
	}
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
}

// parseTOML decodes a config.toml for checking.
func parseTOML(path string, data []byte) (map[string]any, error) {
	var v map[string]any
	if _, err := toml.Decode(string(data), &v); err != nil {
		return nil, fmt.Errorf("%s is not valid TOML (%s); fix it, then rerun", path, text.OneLine(err.Error()))
	}
	return v, nil
}

// configEdit puts planq's block into config.toml (or takes it out): the
// rest of the file is kept byte for byte. It refuses a file that does not
// parse, or that registers its own planq server outside the block.
func configEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, err := conffile.ReadEdit(path, 0o600)
	if err != nil || e.Before == nil && o.Uninstall {
		return e, err
	}
	if _, err := parseTOML(path, e.Before); err != nil {
		return e, err
	}
	rest, at, err := conffile.SplitBlock(path, e.Before, blockBegin, blockEnd)
	if err != nil {
		return e, err
	}
	doc, err := parseTOML(path, rest)
	if err != nil {
		return e, fmt.Errorf("%s does not parse without planq's block; fix it by hand: %w", path, err)
	}
	if servers, ok := doc["mcp_servers"].(map[string]any); ok && servers[ServerName] != nil {
		return e, fmt.Errorf("%s already has its own [mcp_servers.%s] outside planq's block; remove it (or rename it), then rerun", path, ServerName)
	}
	if o.Uninstall {
		if at < 0 {
			return e, nil
		}
		e.After = conffile.DropBlock(rest, at)
		if len(bytes.TrimSpace(e.After)) == 0 {
			e.After = nil // the file held only planq's block: planq made it
		}
		return e, nil
	}
	if inlineServers(rest) {
		return e, fmt.Errorf("%s cannot take planq's [mcp_servers.%s] table: its mcp_servers is an inline table; write it as [mcp_servers.NAME] tables, then rerun", path, ServerName)
	}
	out := conffile.PutBlock(rest, at, serverBlock(o))
	if _, err := parseTOML(path, out); err != nil {
		return e, fmt.Errorf("%s cannot take planq's [mcp_servers.%s] table (%v); define mcp_servers as [mcp_servers.NAME] tables, then rerun", path, ServerName, err)
	}
	e.After = out
	return e, nil
}

// inlineRE matches a root-level key assigning mcp_servers a value.
var inlineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(mcp_servers|"mcp_servers"|'mcp_servers')\s*=`) })

// inlineServers reports whether data assigns mcp_servers an inline table
// before its first table header, which TOML does not let a
// [mcp_servers.planq] table extend.
func inlineServers(data []byte) bool {
	for _, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			return false
		}
		if inlineRE().MatchString(t) {
			return true
		}
	}
	return false
}

// hooksEdit merges planq's hooks into hooks.json (or removes them): each in
// a group of its own (conffile.HookSpec's Own), every other hook kept.
func hooksEdit(o conffile.Options, path string) (conffile.FileEdit, error) {
	e, doc, err := o.EditJSON(path)
	if err != nil || doc == nil {
		return e, err
	}
	events, err := doc.Path(path, !o.Uninstall, "hooks")
	if err != nil || events == nil {
		return e, err
	}
	for _, h := range Hooks {
		spec := h.Spec(h.Entry(o, Host.Name), Host.Name, "")
		spec.Own = true
		if err := conffile.MergeHook(events, spec, o.Uninstall, path); err != nil {
			return e, err
		}
	}
	if o.Uninstall {
		if events.Len() == 0 {
			doc.Del("hooks")
		}
		if doc.Len() == 0 {
			e.After = nil // the file held only planq's hooks: planq made it
			return e, nil
		}
	}
	if err := e.SetJSON(doc); err != nil {
		return e, err
	}
	return e, nil
}

// decodeTOML decodes TOML data into v.
func decodeTOML(data []byte, v any) (toml.MetaData, error) { return toml.Decode(string(data), v) }
