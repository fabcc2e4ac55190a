package claude

import (
	"path/filepath"
	"slices"

	"github.com/planq-dev/planq/hooks/conffile"
)

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
		st.Files = []string{st.ServerFile, st.HooksFile}
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
				if cmd, ok := planqHookCommand(hooksObj, h); ok {
					st.Hooks = append(st.Hooks, h.Event)
					if exe := conffile.CommandBinary(cmd); h.Tool && !slices.Contains(st.ToolHookExes, exe) {
						st.ToolHookExes = append(st.ToolHookExes, exe)
					}
					if h.Subcommand == conffile.GateHook {
						st.Gate = append(st.Gate, cmd)
					}
				} else {
					st.Missing = append(st.Missing, h.Event)
				}
			}
		}
		if st.Wired() {
			st.Findings = append(st.Findings, failOpen(st.Gate))
		}
		out = append(out, st)
	}
	if len(out) > 0 {
		out[0].Findings = append(out[0].Findings, statusLineFinding(projectDir, home))
	}
	return out
}

// planqHookCommand finds planq's hook for h and returns its command line.
func planqHookCommand(hooksObj *conffile.Object, h Hook) (string, bool) {
	for _, e := range conffile.Entries(hooksObj, h.Event) {
		if cmd := conffile.EntryCommand(e); conffile.IsPlanqHook(cmd, h.Subcommand, "", "") {
			return cmd, true
		}
	}
	return "", false
}

// failOpen is the finding on what Claude Code does when the gate's hook
// cannot run. Seen with Claude Code 2.1.197: a PreToolUse command that
// exits with anything but 2 lets the call through (127 with planq-hook
// moved away: a Write landed; 126 not executable; a crash), and exit 2
// blocks it with stderr as the reason; so planq's gate command turns any
// failure of its binary into exit 2.
func failOpen(gate []string) conffile.Finding {
	return conffile.FailOpen(Host.Name, gate, conffile.FailOpenWords{
		Ungated: "planq's PreToolUse hook is not wired, so Claude Code runs every tool call ungated",
		Open:    "Claude Code runs a tool call whose PreToolUse command fails with any exit status but 2 (a missing, unexecutable or crashing planq-hook)",
		OK: "Claude Code runs a tool call whose PreToolUse command fails with any exit status but 2; planq's gate command turns " +
			"any failure of its binary into exit 2 (held back, with the reason) and answers within 7 s of the 10 s timeout",
	})
}
