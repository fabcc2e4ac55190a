package copilot

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/session"
)

// Copilot CLI judges a shell command, after the PreToolUse hook, on the
// command it is about to run [run: NOTES.md, "Rewriting a tool call"]: the
// user's tool rules (--allow-tool and --deny-tool patterns such as
// shell(git push) or shell(npm:*)), its path check (an absolute path
// outside the working directory and the temp dir is asked about unless
// --allow-all-paths), and its URL check (a URL curl or wget fetches is
// asked about unless the tools or URLs are all allowed, and refused by
// --deny-url or deniedUrls). A command planq rewrites to run in its sandbox
// is one quoted word to those checks: a deny rule would stop matching, and
// a path or URL Copilot asks about would run unasked. planq therefore
// leaves a locked shell call as the model wrote it, with the parser-only
// verdict, whenever one of them could judge it. The tool rules live only on
// copilot's command line (its settings have none; enterprise-managed ones
// come from the organization and are not seen), which only Linux shows
// cheaply; where it is not seen, every path and URL is left to Copilot.

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

// hostJudges reports whether Copilot's own checks could judge command, a
// shell call made in the project at dir with the hook's environment
// getenv: one of its words is a program a shell rule on copilot's command
// line is about, a path outside dir and the temp dir (unless all paths are
// allowed), or a URL (unless the tools or URLs are all allowed and no URL is
// denied).
func hostJudges(command, dir string, getenv func(string) string) bool {
	p := cliPermissions(session.HostArgs(copilotProcess), getenv)
	if session.RuleJudges(command, p.programs) {
		return true
	}
	words := session.CommandWords(command)
	if !p.allPaths && outsidePath(words, dir, getenv) {
		return true
	}
	return hasURL(words) && (!p.allURLs || p.denyURLs || deniesURLs(dir, getenv))
}

// permissions are what copilot's command line says of a shell command's
// words.
type permissions struct {
	programs map[string]bool // the programs its shell rules are about
	allPaths bool            // --allow-all, --yolo, --allow-all-paths: no path is asked about
	allURLs  bool            // those, --allow-all-urls, --allow-all-tools or COPILOT_ALLOW_ALL: no URL is asked about
	denyURLs bool            // --deny-url rules
}

// cliPermissions reads copilot's arguments (args) and COPILOT_ALLOW_ALL.
func cliPermissions(args []string, getenv func(string) string) permissions {
	p := permissions{programs: shellRulePrograms(args)}
	switch strings.ToLower(strings.TrimSpace(getenv("COPILOT_ALLOW_ALL"))) {
	case "true", "1", "yes", "on", "y":
		p.allURLs = true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--allow-all", "--yolo":
			p.allPaths, p.allURLs = true, true
		case "--allow-all-paths":
			p.allPaths = true
		case "--allow-all-urls", "--allow-all-tools":
			p.allURLs = true
		case "--deny-url":
			p.denyURLs = true
		}
	}
	return p
}

// outsidePath reports whether a word is a path Copilot's path check may
// ask about: absolute outside dir and the temp dir (but /dev/null), in the
// home directory (~), or climbing out (..).
func outsidePath(words []string, dir string, getenv func(string) string) bool {
	tmp := getenv("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	for _, w := range words {
		switch {
		case strings.HasPrefix(w, "~"), w == "..", strings.HasPrefix(w, "../"), strings.Contains(w, "/../"), strings.HasSuffix(w, "/.."):
			return true
		case !strings.HasPrefix(w, "/"), w == "/dev/null":
			continue
		}
		if !within(w, dir) && !within(w, tmp) {
			return true
		}
	}
	return false
}

// within reports whether path p is dir or under it, as text.
func within(p, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// hasURL reports whether a word holds a URL (scheme://).
func hasURL(words []string) bool {
	for _, w := range words {
		if strings.Contains(w, "://") {
			return true
		}
	}
	return false
}

// deniesURLs reports whether a Copilot settings file the session reads
// may deny URLs (deniedUrls in the user's settings, or the project's
// .github/copilot settings). A file that mentions the key counts, read or
// not: a deny rule must not be slipped past.
func deniesURLs(dir string, getenv func(string) string) bool {
	files := []string{filepath.Join(dir, ".github", "copilot", "settings.json"), filepath.Join(dir, ".github", "copilot", "settings.local.json")}
	if home := copilotHome(getenv, ""); home != "" {
		files = append(files, filepath.Join(home, "settings.json"), filepath.Join(home, "config.json"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) || bytes.Contains(data, []byte("deniedUrls")) {
			return true
		}
	}
	return false
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
