package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/text"
)

// Installed reports planq's wiring in the project's settings file (as local
// scope when jj and git ignore it, else project scope) and the user's, for
// planq doctor, with what Gemini CLI would still do differently: a project
// it does not trust (it then reads no project settings and runs no hooks at
// all), hooks switched off in its settings, a gate command that would not
// start (Gemini CLI lets the call through when a hook fails).
func (Adapter) Installed(where conffile.Options) []conffile.Status {
	projectDir := where.ProjectDir
	if real, err := filepath.EvalSymlinks(projectDir); err == nil {
		projectDir = real
	}
	var out []conffile.Status
	if projectDir != "" {
		o := conffile.Options{Scope: conffile.ScopeProject, ProjectDir: projectDir, Home: where.Home, Getenv: where.Getenv}
		st := status(o)
		if excluded(projectDir) {
			st.Scope = conffile.ScopeLocal
		}
		out = append(out, st)
	}
	out = append(out, status(conffile.Options{Scope: conffile.ScopeUser, ProjectDir: projectDir, Home: where.Home, Getenv: where.Getenv}))
	for i := range out {
		if !out[i].Wired() {
			continue
		}
		if projectDir != "" {
			if f, ok := trustFinding(where, projectDir); ok {
				out[i].Findings = append(out[i].Findings, f)
			}
		}
		out[i].Findings = append(out[i].Findings, hookFindings(where, projectDir, out[i])...)
	}
	return out
}

// status is planq's wiring in the settings file of o's scope.
func status(o conffile.Options) conffile.Status {
	st := conffile.Status{Host: Host.Name, Scope: o.Scope}
	st.ServerFile = settingsPath(o)
	st.HooksFile = st.ServerFile
	st.Files = []string{st.ServerFile}
	doc, err := readSettings(st.ServerFile)
	if err != nil || doc == nil {
		st.Missing = append([]string(nil), session.Events...)
		return st
	}
	if servers, _ := doc.Path(st.ServerFile, false, "mcpServers"); servers != nil {
		if v, ok := servers.Get(ServerName); ok && v != nil {
			st.Server = true
			var entry struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(conffile.Encode(v), &entry) == nil {
				st.ServerExe = entry.Command
			}
		}
	}
	hooksObj, _ := doc.Path(st.ServerFile, false, "hooks")
	for _, h := range Hooks {
		cmd, ok := planqHook(hooksObj, h)
		if !ok {
			st.Missing = append(st.Missing, h.Subcommand)
			continue
		}
		st.Hooks = append(st.Hooks, h.Subcommand)
		if h.Subcommand == conffile.GateHook {
			st.Gate = append(st.Gate, cmd)
		}
		if h.Tool {
			if exe := conffile.CommandBinary(cmd); exe != "" && !slices.Contains(st.ToolHookExes, exe) {
				st.ToolHookExes = append(st.ToolHookExes, exe)
			}
		}
	}
	return st
}

// planqHook returns the command of planq's hook for h in the hooks object,
// in a group whose matcher lets it see what it must.
func planqHook(hooksObj *conffile.Object, h Hook) (string, bool) {
	entry, ok := conffile.FindHook(hooksObj, h.Spec(nil, Host.Name, ""))
	if !ok {
		return "", false
	}
	return conffile.EntryCommand(entry), true
}

// excluded reports whether the repo at dir keeps .gemini/settings.json out
// of jj and git through its info/exclude (local scope).
func excluded(dir string) bool {
	e, err := conffile.ExcludeEdit(context.Background(), dir, "", "", "/.gemini/settings.json")
	return err == nil && e.Path != "" && !e.Changed()
}

// readSettings reads one of Gemini CLI's settings files, which may hold
// comments; nil when it does not exist.
func readSettings(path string) (*conffile.Object, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := conffile.Parse(StripComments(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// StripComments blanks the // and /* */ comments of a JSON document, as
// Gemini CLI's reader (strip-json-comments) does, keeping strings intact.
func StripComments(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}

// systemSettingsPath is Gemini CLI's system settings file on this OS.
func systemSettingsPath(o conffile.Options) string {
	if p := o.Env("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/settings.json"
	case "windows":
		return `C:\ProgramData\gemini-cli\settings.json`
	}
	return "/etc/gemini-cli/settings.json"
}

// systemDefaultsPath is Gemini CLI's system defaults file.
func systemDefaultsPath(o conffile.Options) string {
	if p := o.Env("GEMINI_CLI_SYSTEM_DEFAULTS_PATH"); p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(systemSettingsPath(o)), "system-defaults.json")
}

// setting returns the value at keys in the first of files (read in order of
// precedence, the strongest first) that sets it, and that file.
func setting(files []string, keys ...string) (any, string, bool) {
	for _, f := range files {
		doc, err := readSettings(f)
		if err != nil || doc == nil {
			continue
		}
		obj, _ := doc.Path(f, false, keys[:len(keys)-1]...)
		if obj == nil {
			continue
		}
		if v, ok := obj.Get(keys[len(keys)-1]); ok && v != nil {
			return v, f, true
		}
	}
	return nil, "", false
}

// trustedFoldersPath is where Gemini CLI keeps the folders' trust:
// $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json in its user
// directory.
func trustedFoldersPath(o conffile.Options) string {
	if p := o.Env("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(userDir(o), "trustedFolders.json")
}

// The trust levels of trustedFolders.json.
const (
	TrustFolder = "TRUST_FOLDER"
	TrustParent = "TRUST_PARENT" // the rule's parent directory, and all under it
	DoNotTrust  = "DO_NOT_TRUST"
)

// Trust is what Gemini CLI makes of a folder's trust.
type Trust struct {
	Trusted, Known bool   // Known is false when no rule and no setting decides
	Why            string // what decided, in words
}

// FolderTrust decides, the way Gemini CLI 0.61.0 does, whether it trusts
// dir: GEMINI_CLI_TRUST_WORKSPACE (or GEMINI_RESTRICTED_MODE) in the
// environment, security.folderTrust.enabled (true unless the system or user
// settings say false), then the longest rule of trustedFolders.json whose
// folder (its parent for TRUST_PARENT) holds dir, symlinks resolved. An
// unreadable trustedFolders.json is an error (Gemini CLI refuses to start).
func FolderTrust(o conffile.Options, dir string) (Trust, error) {
	switch {
	case o.Env("GEMINI_RESTRICTED_MODE") == "true":
		return Trust{Known: true, Why: "GEMINI_RESTRICTED_MODE=true is set"}, nil
	case o.Env("GEMINI_CLI_TRUST_WORKSPACE") == "false":
		return Trust{Known: true, Why: "GEMINI_CLI_TRUST_WORKSPACE=false is set"}, nil
	case o.Env("GEMINI_CLI_TRUST_WORKSPACE") == "true":
		return Trust{Trusted: true, Known: true, Why: "GEMINI_CLI_TRUST_WORKSPACE=true is set in this environment"}, nil
	}
	files := []string{systemSettingsPath(o), settingsPath(conffile.Options{Scope: conffile.ScopeUser, Home: o.Home, Getenv: o.Getenv}), systemDefaultsPath(o)}
	if v, f, ok := setting(files, "security", "folderTrust", "enabled"); ok && v == false {
		return Trust{Trusted: true, Known: true, Why: "folder trust is off (security.folderTrust.enabled: false in " + f + ")"}, nil
	}
	path := trustedFoldersPath(o)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Trust{Why: "no folder is trusted yet (" + path + " does not exist)"}, nil
	}
	if err != nil {
		return Trust{}, err
	}
	var rules map[string]string
	if err := json.Unmarshal(StripComments(data), &rules); err != nil {
		return Trust{}, fmt.Errorf("%s is not an object of folder: TRUST_FOLDER|TRUST_PARENT|DO_NOT_TRUST (%v)", path, err)
	}
	loc := realPath(dir)
	best, level := "", ""
	for rule, lvl := range rules {
		if lvl != TrustFolder && lvl != TrustParent && lvl != DoNotTrust {
			return Trust{}, fmt.Errorf("%s: %q has the invalid trust level %q", path, rule, lvl)
		}
		eff := rule
		if lvl == TrustParent {
			eff = filepath.Dir(rule)
		}
		if within(realPath(eff), loc) && len(rule) > len(best) {
			best, level = rule, lvl
		}
	}
	switch level {
	case DoNotTrust:
		return Trust{Known: true, Why: fmt.Sprintf("%s marks %s %s", path, best, DoNotTrust)}, nil
	case TrustFolder, TrustParent:
		return Trust{Trusted: true, Known: true, Why: fmt.Sprintf("%s marks %s %s", path, best, level)}, nil
	}
	return Trust{Why: "no rule in " + path + " covers it"}, nil
}

// trustFinding is doctor's trust check for planq's wiring in the project at
// dir; ok is false when there is nothing to say.
func trustFinding(o conffile.Options, dir string) (conffile.Finding, bool) {
	if dir == "" || !filepath.IsAbs(dir) {
		return conffile.Finding{}, false
	}
	file := trustedFoldersPath(o)
	t, err := FolderTrust(o, dir)
	switch {
	case err != nil:
		return conffile.Finding{Check: "trust", Detail: "Gemini CLI cannot read its folder trust, and will not start: " + text.OneLine(err.Error()),
			Fix: "fix or remove " + file}, true
	case t.Trusted:
		return conffile.Finding{Check: "trust", OK: true, Detail: fmt.Sprintf("the project %s is trusted (%s)", dir, t.Why)}, true
	}
	detail := fmt.Sprintf("the project %s is not trusted (%s): Gemini CLI then reads none of its .gemini/settings.json, connects no MCP server and runs no hooks, so planq's gate is off", dir, t.Why)
	if !t.Known {
		detail += "; gemini asks on its first interactive run there, and gemini -p refuses to run"
	}
	return conffile.Finding{Check: "trust", Detail: detail,
		Fix: fmt.Sprintf("run gemini in %s and choose \"Trust folder\" (or /permissions), or set \"%s\": \"%s\" in %s", dir, dir, TrustFolder, file)}, true
}

// hookFindings reports settings that switch planq's hooks off
// (hooksConfig.enabled: false, hooksConfig.disabled naming them) and what
// Gemini CLI does when the gate's command fails (conffile.FailOpen).
func hookFindings(where conffile.Options, projectDir string, st conffile.Status) []conffile.Finding {
	files := []string{systemSettingsPath(where)}
	if projectDir != "" {
		files = append(files, settingsPath(conffile.Options{Scope: conffile.ScopeProject, ProjectDir: projectDir}))
	}
	files = append(files, settingsPath(conffile.Options{Scope: conffile.ScopeUser, Home: where.Home, Getenv: where.Getenv}), systemDefaultsPath(where))
	var out []conffile.Finding
	if v, f, ok := setting(files, "hooksConfig", "enabled"); ok && v == false {
		out = append(out, conffile.Finding{Check: "hooks-enabled", Detail: "hooks are switched off (hooksConfig.enabled: false in " + f + "), so planq's gate is off",
			Fix: "remove hooksConfig.enabled: false from " + f})
	}
	var off []string
	for _, f := range files {
		v, _, ok := setting([]string{f}, "hooksConfig", "disabled")
		list, _ := v.([]any)
		for _, name := range list {
			if s, _ := name.(string); ok && strings.HasPrefix(s, "planq-") && !slices.Contains(off, s) {
				off = append(off, s)
			}
		}
	}
	if len(off) > 0 {
		out = append(out, conffile.Finding{Check: "hooks-enabled", Detail: "hooksConfig.disabled switches off planq's hooks " + strings.Join(off, ", "),
			Fix: "remove them from hooksConfig.disabled (gemini hooks enable NAME)"})
	}
	return append(out, conffile.FailOpen(Host.Name, st.Gate, conffile.FailOpenWords{
		Ungated: "planq's BeforeTool hook is not wired, so Gemini CLI runs every tool call ungated",
		Open:    "Gemini CLI blocks a tool call whose BeforeTool command is not found or not executable, but runs one whose command crashes or times out",
		OK: "Gemini CLI runs a tool call whose BeforeTool command crashes or times out; planq's gate command turns any failure of its binary " +
			"into exit 2 (held back, with the reason) and answers well within its 10 s timeout",
	}))
}

// realPath resolves p's symlinks when it exists.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
