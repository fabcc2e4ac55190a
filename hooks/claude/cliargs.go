package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/session"
)

// cliRules are the permission rules given on the command line of the
// claude process this hook runs under (--allowedTools, --disallowedTools,
// --settings), which no settings file shows. Only Linux says a process's
// ancestors' arguments cheaply (session.HostArgs); elsewhere there are none.
func cliRules() permissions {
	return rulesFromArgs(session.HostArgs(claudeProcess))
}

// claudeProcess is Claude Code's CLI among the hook's ancestors: its native
// binary, or its cli.js run by node or bun.
var claudeProcess = session.HostProcess{
	Exes: []string{"claude", "claude.exe", "node", "bun"},
	Program: func(w string) bool {
		b := filepath.Base(w)
		return b == "claude" || b == "claude.exe" || strings.HasSuffix(w, "/claude-code/cli.js")
	},
}

// rulesFromArgs reads the permission rules in claude's arguments: tool
// lists after --allowedTools / --disallowedTools (each value one or more
// rules, separated by commas or spaces, until the next option), and the
// permissions of --settings (a file, or JSON given inline).
func rulesFromArgs(args []string) permissions {
	var p permissions
	var list *[]string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--allowedTools", "--allowed-tools":
			list = &p.Allow
		case "--disallowedTools", "--disallowed-tools":
			list = &p.Deny
		case "--settings":
			list = nil
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i]
			}
			s := settingsArg(val)
			p.Allow, p.Deny, p.Ask = append(p.Allow, s.Allow...), append(p.Deny, s.Deny...), append(p.Ask, s.Ask...)
			continue
		default:
			if strings.HasPrefix(a, "-") {
				list = nil
			} else if list != nil {
				*list = append(*list, splitTools(a)...)
			}
			continue
		}
		if hasVal {
			*list = append(*list, splitTools(val)...)
		}
	}
	return p
}

// splitTools splits one tool-list value into rules: at commas and spaces
// outside parentheses ("Bash(git log:*),Read" is two rules).
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ',' || r == ' ') && depth == 0:
			if t := strings.TrimSpace(s[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// settingsArg reads --settings' value: inline JSON, or a file.
func settingsArg(v string) permissions {
	var s struct {
		Permissions permissions `json:"permissions"`
	}
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "{") {
		_ = json.Unmarshal([]byte(v), &s)
		return s.Permissions
	}
	if v != "" && filepath.IsAbs(v) {
		return readPermissions(v)
	}
	if v != "" {
		if wd, err := os.Getwd(); err == nil {
			return readPermissions(filepath.Join(wd, v))
		}
	}
	return permissions{}
}
