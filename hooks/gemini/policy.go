package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/planq-dev/planq/hooks/conffile"
)

// Gemini CLI's policy engine judges run_shell_command on the command it is
// about to run, after the BeforeTool hooks (NOTES.md, "Rewriting a tool
// call"): a command planq rewrites to run in its sandbox is
// `planq-hook sandbox … -- '<command>'` to a rule's commandPrefix. So planq
// leaves a command as the model wrote it, with the parser-only verdict,
// when it names a program one of the user's shell rules is about: the
// policy files (system, user and workspace policies/*.toml, "allow always"
// answers included) and the settings' tools.allowed and tools.exclude.
// Rules given with --policy on the command line are not seen.

// shellToolNames are the names a policy rule may give the shell tool.
var shellToolNames = map[string]bool{fieldShellTool: true, "ShellTool": true, "*": true}

// fieldShellTool is Gemini CLI's shell tool.
const fieldShellTool = "run_shell_command"

// policyFile is what planq reads of a policy TOML file.
type policyFile struct {
	Rule []struct {
		ToolName      any    `toml:"toolName"`      // a name or a list
		CommandPrefix any    `toml:"commandPrefix"` // a prefix or a list
		CommandRegex  string `toml:"commandRegex"`
		ArgsPattern   string `toml:"argsPattern"`
	} `toml:"rule"`
}

// policyDirs are the directories Gemini CLI reads policies from, for the
// project: the system's, the user's and the workspace's.
func policyDirs(o conffile.Options) []string {
	system := "/etc/gemini-cli"
	switch runtime.GOOS {
	case "darwin":
		system = "/Library/Application Support/GeminiCli"
	case "windows":
		system = `C:\ProgramData\gemini-cli`
	}
	return []string{filepath.Join(system, "policies"), filepath.Join(userDir(o), "policies"), filepath.Join(o.ProjectDir, ".gemini", "policies")}
}

// settingsFiles are Gemini CLI's settings files for the project.
func settingsFiles(o conffile.Options) []string {
	return []string{systemDefaultsPath(o), filepath.Join(userDir(o), "settings.json"), filepath.Join(o.ProjectDir, ".gemini", "settings.json"), systemSettingsPath(o)}
}

// literalWord is a word a regular expression spells out.
var literalWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9_.+-]+`) })

// shellRulePrograms returns the programs the user's shell rules are about:
// the first word of each commandPrefix, every word a commandRegex or
// argsPattern spells out, and the first word inside each
// run_shell_command(…) of tools.allowed and tools.exclude. A file that
// cannot be read is an error: the caller then leaves every command to
// Gemini CLI.
func shellRulePrograms(o conffile.Options) (map[string]bool, error) {
	progs := map[string]bool{}
	first := func(s string) {
		if f := strings.Fields(s); len(f) > 0 {
			progs[filepath.Base(f[0])] = true
		}
	}
	for _, dir := range policyDirs(o) {
		files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("Gemini CLI policy %s: %w", f, err)
			}
			var p policyFile
			if err := toml.Unmarshal(data, &p); err != nil {
				return nil, fmt.Errorf("Gemini CLI policy %s: %w", f, err)
			}
			for _, r := range p.Rule {
				if !anyOf(r.ToolName, func(s string) bool { return shellToolNames[s] || strings.HasSuffix(s, "*") }) && r.ToolName != nil {
					continue
				}
				anyOf(r.CommandPrefix, func(s string) bool { first(s); return false })
				for _, w := range literalWord().FindAllString(r.CommandRegex+" "+r.ArgsPattern, -1) {
					progs[w] = true
				}
			}
		}
	}
	for _, f := range settingsFiles(o) {
		doc, err := readSettings(f)
		if err != nil {
			return nil, err
		}
		if doc == nil {
			continue
		}
		tools, _ := doc.Path(f, false, "tools")
		if tools == nil {
			continue
		}
		for _, key := range []string{"allowed", "exclude", "core"} {
			list, _ := tools.Get(key)
			anyOf(list, func(s string) bool {
				if name, args, ok := strings.Cut(s, "("); ok && shellToolNames[name] {
					first(strings.TrimSuffix(args, ")"))
				}
				return false
			})
		}
	}
	return progs, nil
}

// anyOf reports whether v, a string or a list of them, holds one for which
// f is true (calling f on each until then).
func anyOf(v any, f func(string) bool) bool {
	switch v := v.(type) {
	case string:
		return f(v)
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok && f(s) {
				return true
			}
		}
	}
	return false
}
