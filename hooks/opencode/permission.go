package opencode

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/planq-dev/planq/hooks/session"
)

// OpenCode judges its permission rules on the command it runs, after the
// plugin (NOTES.md, "Rewriting a tool call"): a bash call planq rewrites to
// run in its sandbox is `planq-hook sandbox … -- '<command>'` to them. So
// planq leaves a call as the model wrote it, with the parser-only verdict,
// wherever the user's rules or OpenCode's own asks would judge it: when bash
// is not simply allowed, when a bash rule names one of the command's
// programs, and when the command points a program OpenCode checks for
// external directories outside the project (OpenCode asks about those by
// default).

// dirPrograms are the programs whose arguments OpenCode 1.18.33 checks for
// directories outside the project (external_directory), PowerShell's aside.
var dirPrograms = map[string]bool{"cd": true, "chdir": true, "popd": true, "pushd": true,
	"rm": true, "cp": true, "mv": true, "mkdir": true, "touch": true, "chmod": true, "chown": true, "cat": true}

// Permissions is the user's OpenCode permission config as the plugin read
// it (client.config.get, which holds the user's config, not OpenCode's
// defaults): the global permission and each agent's. Each is an action
// ("allow", "ask", "deny") for every tool, or a map from a tool's permission
// ("bash", "external_directory", "*") to an action or to a map from
// patterns to actions.
type Permissions struct {
	Global json.RawMessage   `json:"global,omitempty"`
	Agents []json.RawMessage `json:"agents,omitempty"`
}

// sandboxable reports whether a bash call with command, run in dir of
// project, may be rewritten under perms.
func sandboxable(command, dir, project string, perms Permissions) bool {
	askExternal := action(perms.Global, "external_directory") != "allow"
	for _, raw := range append([]json.RawMessage{perms.Global}, perms.Agents...) {
		if !bashAllowed(permissionOf(raw, "bash"), command) {
			return false
		}
		if raw != nil && permissionOf(raw, "external_directory") != nil && action(raw, "external_directory") != "allow" {
			askExternal = true
		}
	}
	return !askExternal || !outsideDirArg(command, dir, project)
}

// permissionOf is the permission a config (raw) gives the tool permission
// key: the whole config when it is one action, its key, else its "*" (nil
// when it says nothing).
func permissionOf(raw json.RawMessage, key string) json.RawMessage {
	var p map[string]json.RawMessage
	if raw == nil || json.Unmarshal(raw, &p) != nil {
		return raw
	}
	if v, ok := p[key]; ok {
		return v
	}
	return p["*"]
}

// action is the one action a config gives key ("" when it gives patterns,
// or nothing).
func action(raw json.RawMessage, key string) string {
	var a string
	_ = json.Unmarshal(permissionOf(raw, key), &a)
	return a
}

// bashAllowed reports whether a bash permission (nil: none) lets every
// command run without asking, and none of its patterns names a program of
// command.
func bashAllowed(raw json.RawMessage, command string) bool {
	if raw == nil {
		return true
	}
	var all string
	if json.Unmarshal(raw, &all) == nil {
		return all == "allow"
	}
	var rules map[string]string
	if json.Unmarshal(raw, &rules) != nil {
		return false
	}
	progs := map[string]bool{}
	for pattern, action := range rules {
		if pattern == "*" {
			if action != "allow" {
				return false
			}
			continue
		}
		first, _, _ := strings.Cut(strings.TrimSpace(pattern), " ")
		if first == "" || strings.ContainsAny(first, "*?[") {
			return false
		}
		progs[first] = true
	}
	return !session.RuleJudges(command, progs)
}

// outsideDirArg reports whether command runs one of dirPrograms with an
// argument OpenCode could find outside project: an absolute or ~ path
// outside it, a relative one that leaves it from dir, or a word planq
// cannot read as one literal path. A command that does not parse counts.
func outsideDirArg(command, dir, project string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return true
	}
	outside := false
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || outside || len(call.Args) == 0 {
			return !outside
		}
		name := call.Args[0].Lit()
		if !dirPrograms[filepath.Base(name)] {
			return true
		}
		for _, arg := range call.Args[1:] {
			lit := arg.Lit()
			switch {
			case lit == "" && len(arg.Parts) > 0:
				outside = true // quoted or expanded: not read here
			case strings.HasPrefix(lit, "-"):
			case strings.HasPrefix(lit, "~"):
				outside = true
			default:
				p := lit
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				rel, err := filepath.Rel(project, filepath.Clean(p))
				outside = outside || err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
			}
		}
		return !outside
	})
	return outside
}
