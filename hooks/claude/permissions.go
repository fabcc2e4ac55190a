package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Claude Code applies the user's permission rules (deny, then ask, then
// allow) and its permission mode to the input a PreToolUse hook hands back
// (updatedInput), not to the call the model made [run: hooks/claude/NOTES.md].
// A command rewritten to run in the OS sandbox would escape a rule written
// for the original, so the hook judges the original against the same rules
// itself and answers the way Claude Code would have treated it: a deny rule
// denies, an ask rule asks, an allow rule allows; otherwise the rewrite
// carries no decision and Claude Code's mode decides (bypass and auto
// sessions stay as they are; default mode asks).

// approval is what the user's Bash rules say of a command: the decision
// ("deny", "ask", "allow", or "" when no rule speaks) and the rule.
type approval struct {
	decision, rule string
}

// bashRules are the Bash permission rules of the settings Claude Code
// reads for projectDir, by decision.
type bashRules struct {
	deny, ask, allow []string
}

// approvalOf judges command against the Bash rules in force for
// projectDir: deny if a deny rule matches the command or any simple
// command in it, else ask if an ask rule does, else allow if every simple
// command in it matches an allow rule (and nothing in it — a redirection
// to a file, a substitution — could make Claude Code ask on its own).
func approvalOf(command, projectDir string, getenv func(string) string) approval {
	rules := loadBashRules(projectDir, getenv)
	if len(rules.deny)+len(rules.ask)+len(rules.allow) == 0 {
		return approval{} // no rule to match: the command need not be parsed
	}
	parts, plain := simpleCommands(command)
	candidates := append([]string{strings.TrimSpace(command)}, parts...)
	for _, r := range rules.deny {
		if matchesAny(r, candidates) {
			return approval{"deny", r}
		}
	}
	for _, r := range rules.ask {
		if matchesAny(r, candidates) {
			return approval{"ask", r}
		}
	}
	if !plain || len(parts) == 0 {
		return approval{}
	}
	var used string
	for _, p := range parts {
		ok := false
		for _, r := range rules.allow {
			if matchRule(r, p) {
				ok, used = true, r
				break
			}
		}
		if !ok {
			return approval{}
		}
	}
	return approval{"allow", used}
}

func matchesAny(rule string, cmds []string) bool {
	for _, c := range cmds {
		if matchRule(rule, c) {
			return true
		}
	}
	return false
}

// matchRule reports whether a Bash rule ("Bash", "Bash(npm test)",
// "Bash(npm run:*)", "Bash(git * main)") matches one command, the way
// Claude Code's rules match: ":*" at the end is a prefix ending at a word
// boundary, "*" matches any text (a single trailing " *" may match
// nothing), anything else must match exactly.
func matchRule(rule, cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	spec, ok := ruleSpec(rule)
	if !ok {
		return false
	}
	switch {
	case spec == "" || spec == "*":
		return true
	case strings.HasSuffix(spec, ":*"):
		p := strings.TrimSuffix(spec, ":*")
		return cmd == p || strings.HasPrefix(cmd, p+" ")
	case strings.Contains(spec, "*"):
		parts := strings.Split(spec, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re := "^" + strings.Join(parts, "(?s:.*)") + "$"
		if strings.Count(spec, "*") == 1 && strings.HasSuffix(spec, " *") && cmd == strings.TrimSuffix(spec, " *") {
			return true
		}
		m, err := regexp.MatchString(re, cmd)
		return err == nil && m
	}
	return cmd == spec
}

// ruleSpec returns the specifier of a Bash rule ("" for the bare "Bash").
func ruleSpec(rule string) (string, bool) {
	rule = strings.TrimSpace(rule)
	if rule == "Bash" {
		return "", true
	}
	if strings.HasPrefix(rule, "Bash(") && strings.HasSuffix(rule, ")") {
		return strings.TrimSpace(rule[len("Bash(") : len(rule)-1]), true
	}
	return "", false
}

// simpleCommands returns the text of every simple command in command (in
// lists, pipelines, subshells and substitutions, with assignments in front
// dropped), and whether the command is plain: nothing but simple commands
// joined by ;, &&, || and |, with no redirection to a file and no
// substitution. A command that does not parse is not plain and has none.
func simpleCommands(command string) (parts []string, plain bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, false
	}
	plain = true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				start, end := n.Args[0].Pos().Offset(), n.Args[len(n.Args)-1].End().Offset()
				if int(end) <= len(command) && start < end {
					parts = append(parts, command[start:end])
				}
			}
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.Subshell, *syntax.FuncDecl, *syntax.CoprocClause, *syntax.ArithmExp:
			plain = false
		case *syntax.Redirect:
			if n.Op != syntax.DplOut && n.Op != syntax.DplIn && (n.Word == nil || n.Word.Lit() != "/dev/null") {
				plain = false
			}
		}
		return true
	})
	return parts, plain
}

// loadBashRules reads the Bash permission rules of every settings file
// Claude Code reads for projectDir: managed settings (and their drop-in
// directory), the user's, the project's and the project's local ones (their
// allow rules only in a trusted project), and those given on the claude
// command line (cliRules).
func loadBashRules(projectDir string, getenv func(string) string) bashRules {
	var files []string
	if m := managedSettings(); m != "" {
		files = append(files, m)
		if d, err := os.ReadDir(filepath.Join(filepath.Dir(m), "managed-settings.d")); err == nil {
			for _, e := range d {
				if strings.HasSuffix(e.Name(), ".json") {
					files = append(files, filepath.Join(filepath.Dir(m), "managed-settings.d", e.Name()))
				}
			}
		}
	}
	userDir := getenv("CLAUDE_CONFIG_DIR")
	if userDir == "" && getenv("HOME") != "" {
		userDir = filepath.Join(getenv("HOME"), ".claude")
	}
	if userDir != "" {
		files = append(files, filepath.Join(userDir, "settings.json"))
	}
	var rules bashRules
	for _, f := range files {
		rules.add(readPermissions(f))
	}
	if projectDir != "" {
		// The project's own allow rules count only once the user trusted
		// the project: a repository cannot approve commands for itself
		// [run]. Its deny and ask rules always count.
		for _, f := range []string{filepath.Join(projectDir, ".claude", "settings.json"), filepath.Join(projectDir, ".claude", "settings.local.json")} {
			p := readPermissions(f)
			if len(p.Allow) > 0 && !trustedProject(projectDir, userDir, getenv) {
				p.Allow = nil
			}
			rules.add(p)
		}
	}
	rules.add(cliRules())
	return rules
}

// trustedProject reports whether the user accepted Claude Code's trust
// dialog for projectDir or a directory above it, as recorded in
// .claude.json (in CLAUDE_CONFIG_DIR, else the home directory).
func trustedProject(projectDir, userDir string, getenv func(string) string) bool {
	file := filepath.Join(getenv("HOME"), ".claude.json")
	if getenv("CLAUDE_CONFIG_DIR") != "" {
		file = filepath.Join(userDir, ".claude.json")
	}
	data, err := os.ReadFile(file)
	if err != nil || len(data) > 64<<20 {
		return false
	}
	var c struct {
		Projects map[string]struct {
			Trusted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if json.Unmarshal(data, &c) != nil {
		return false
	}
	for d := filepath.Clean(projectDir); ; d = filepath.Dir(d) {
		if p, ok := c.Projects[d]; ok && p.Trusted {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// permissions is the permissions object of a settings file.
type permissions struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
	Ask   []string `json:"ask"`
}

func readPermissions(file string) permissions {
	data, err := os.ReadFile(file)
	if err != nil || len(data) > 4<<20 {
		return permissions{}
	}
	var s struct {
		Permissions permissions `json:"permissions"`
	}
	_ = json.Unmarshal(data, &s)
	return s.Permissions
}

func (r *bashRules) add(p permissions) {
	keep := func(list []string) []string {
		var out []string
		for _, x := range list {
			if _, ok := ruleSpec(x); ok {
				out = append(out, strings.TrimSpace(x))
			}
		}
		return out
	}
	r.deny = append(r.deny, keep(p.Deny)...)
	r.ask = append(r.ask, keep(p.Ask)...)
	r.allow = append(r.allow, keep(p.Allow)...)
}

// managedSettings is where an administrator's settings live on this OS.
func managedSettings() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}
