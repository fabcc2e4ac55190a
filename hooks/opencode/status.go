package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
)

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
