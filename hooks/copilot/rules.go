package copilot

import (
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/session"
)

// Copilot CLI judges the user's tool rules (--allow-tool and --deny-tool
// patterns such as shell(git push) or shell(npm:*)) on the command it is
// about to run, after the PreToolUse hook: a command planq rewrites to run
// in its sandbox is another command to them, so a deny rule for the
// model's command would stop matching, and the command would run (in the
// sandbox) where the user said it must not [run: NOTES.md, "Rewriting a
// tool call"]. planq therefore leaves a locked shell call as the model
// wrote it, with the parser-only verdict, whenever it names a program one
// of those rules is about. The rules live only on copilot's command line
// (its settings have no tool rules; enterprise-managed ones come from the
// organization and are not seen), which only Linux shows cheaply.

// copilotProcess is Copilot CLI among the hook's ancestors: its native
// binary (which the npm package's loader starts with the user's
// arguments), or the loader run by node.
var copilotProcess = session.HostProcess{
	Exes: []string{"copilot", "copilot.exe", "node"},
	Program: func(w string) bool {
		b := filepath.Base(w)
		return b == "copilot" || b == "copilot.exe" || strings.HasSuffix(w, "/@github/copilot/npm-loader.js") || strings.HasSuffix(w, "/@github/copilot/index.js")
	},
}

// hostJudges reports whether one of the user's tool rules would judge
// command: one of its words is a program a shell rule is about.
func hostJudges(command string) bool {
	return session.RuleJudges(command, shellRulePrograms(session.HostArgs(copilotProcess)))
}

// shellRulePrograms returns the programs the shell rules among copilot's
// arguments are about: the first word of each shell(…) pattern given to
// --allow-tool or --deny-tool (each value one or more patterns, separated
// by commas outside parentheses, as Copilot splits them; values follow the
// option until the next option). A bare shell rule is about every command,
// the rewritten one included, so it names none.
func shellRulePrograms(args []string) map[string]bool {
	progs := map[string]bool{}
	inList := false
	for _, a := range args {
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case name == "--allow-tool" || name == "--deny-tool":
			inList = !hasVal
			if !hasVal {
				continue
			}
		case a == "--":
			return progs
		case strings.HasPrefix(a, "-"):
			inList = false
			continue
		case inList:
			val = a
		default:
			continue
		}
		for _, rule := range splitRules(val) {
			if p := shellRuleProgram(rule); p != "" {
				progs[p] = true
			}
		}
	}
	return progs
}

// splitRules splits one value of --allow-tool or --deny-tool into
// patterns at the commas outside parentheses.
func splitRules(v string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range v {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out = append(out, strings.TrimSpace(v[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(v[start:]))
}

// shellRuleProgram is the program a shell(…) pattern is about ("git" for
// shell(git push) and shell(git:*)), or "" for another kind of rule or a
// bare shell.
func shellRuleProgram(rule string) string {
	kind, arg, ok := strings.Cut(rule, "(")
	if !ok || !strings.EqualFold(strings.TrimSpace(kind), "shell") {
		return ""
	}
	arg = strings.TrimSuffix(strings.TrimSpace(arg), ")")
	arg = strings.TrimSuffix(arg, ":*")
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}
