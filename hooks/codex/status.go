package codex

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/planq-dev/planq/hooks/conffile"
)

// Installed reports planq's wiring in every scope, for planq doctor, with
// findings for the trust Codex needs first: planq's hooks trusted (by hash,
// in $CODEX_HOME/config.toml) and, for project and local scope, the project.
func (Adapter) Installed(where conffile.Options) []conffile.Status {
	projectDir := where.ProjectDir
	if real, err := filepath.EvalSymlinks(projectDir); err == nil {
		projectDir = real
	}
	var out []conffile.Status
	scopes := []string{conffile.ScopeUser}
	if projectDir != "" {
		// Local and project scope are the same files in .codex/: local
		// when jj and git ignore them.
		scope := conffile.ScopeProject
		if excluded(projectDir) {
			scope = conffile.ScopeLocal
		}
		scopes = []string{scope, conffile.ScopeUser}
	}
	for _, scope := range scopes {
		o := conffile.Options{Scope: scope, ProjectDir: projectDir, Home: where.Home, Getenv: where.Getenv, JJBin: where.JJBin}
		st := conffile.Status{Host: Host.Name, Scope: scope}
		st.ServerFile, st.HooksFile = paths(o)
		st.Files = []string{st.ServerFile, st.HooksFile}
		st.Server, st.ServerExe = blockServer(st.ServerFile)
		var handlers []handler
		if _, doc, err := conffile.LoadJSON(st.HooksFile, 0o644); err == nil {
			handlers = planqHandlers(st.HooksFile, doc)
		}
		have := map[string]bool{}
		for _, h := range handlers {
			have[h.Event] = true
		}
		for _, h := range Hooks {
			if have[h.Event] {
				st.Hooks = append(st.Hooks, eventOf(h.Event))
			} else {
				st.Missing = append(st.Missing, eventOf(h.Event))
			}
		}
		for _, cmd := range planqCommands(st.HooksFile, func(h Hook) bool { return h.Tool }) {
			if exe := conffile.CommandBinary(cmd); !slices.Contains(st.ToolHookExes, exe) {
				st.ToolHookExes = append(st.ToolHookExes, exe)
			}
		}
		st.Gate = planqCommands(st.HooksFile, func(h Hook) bool { return h.Event == EventPreToolUse })
		if st.Wired() {
			st.Findings = append(trustFindings(o, handlers), failOpen(st.Gate))
		}
		out = append(out, st)
	}
	return out
}

// failOpen is the finding on what Codex does when the gate's hook cannot
// run: it lets the call through when the hook command fails with anything
// but exit 2 (a missing, unexecutable or crashing binary: seen with Codex
// 0.169) or times out, so planq's gate command turns its failure into
// exit 2, and answers within its own deadline.
func failOpen(gate []string) conffile.Finding {
	return conffile.FailOpen(Host.Name, gate, conffile.FailOpenWords{
		Ungated: "planq's PreToolUse hook is not wired, so Codex runs every tool call ungated",
		Open:    "Codex runs a tool call whose PreToolUse command fails with any exit status but 2 (a missing, unexecutable or crashing planq-hook)",
		OK: "Codex runs a tool call whose PreToolUse command fails with any exit status but 2, or times out; planq's gate command turns " +
			"any failure of its binary into exit 2 (held back, with the reason) and answers within 7 s of the 10 s timeout",
	})
}

// excluded reports whether the repo's info/exclude keeps both of .codex/'s
// files out of jj and git.
func excluded(projectDir string) bool {
	e, err := conffile.ExcludeEdit(context.Background(), projectDir, "", "", "/.codex/config.toml", "/.codex/hooks.json")
	return err == nil && e.Path != "" && !e.Changed()
}

// blockServer reports whether config.toml at path holds planq's block with
// its server, and the command the server runs.
func blockServer(path string) (bool, string) {
	data, err := conffile.ReadOrNil(path)
	if err != nil || data == nil {
		return false, ""
	}
	rest, at, err := conffile.SplitBlock(path, data, blockBegin, blockEnd)
	if err != nil || at < 0 {
		return false, ""
	}
	block := data[at : at+len(data)-len(rest)]
	var doc struct {
		MCPServers map[string]struct {
			Command string `toml:"command"`
		} `toml:"mcp_servers"`
	}
	if _, err := decodeTOML(block, &doc); err != nil {
		return false, ""
	}
	s, ok := doc.MCPServers[ServerName]
	return ok, s.Command
}

// eventOf is planq's name of Codex's event (subagent-stop for
// SubagentStop, which planq's stop serves).
func eventOf(codexEvent string) string {
	if codexEvent == EventSubagentStop {
		return "subagent-stop"
	}
	return eventNames.Planq(codexEvent)
}

// planqCommands returns the command lines of planq's hooks that pick
// selects in hooksFile.
func planqCommands(hooksFile string, pick func(Hook) bool) []string {
	_, doc, err := conffile.LoadJSON(hooksFile, 0o644)
	if err != nil {
		return nil
	}
	events, _ := doc.Path(hooksFile, false, "hooks")
	if events == nil {
		return nil
	}
	var out []string
	for _, h := range Hooks {
		if !pick(h) {
			continue
		}
		for _, e := range conffile.Entries(events, h.Event) {
			if s := conffile.EntryCommand(e); conffile.IsPlanqHook(s, h.Subcommand, Host.Name, "") && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
