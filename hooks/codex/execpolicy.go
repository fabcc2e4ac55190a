package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.starlark.net/syntax"
)

// Codex's execpolicy rules (`prefix_rule(pattern = ["git", "push"],
// decision = "forbidden")` in a rules/*.rules file, Starlark) are judged on
// the command Codex is about to run, after the PreToolUse hooks: a command
// planq rewrites to run in its sandbox is a different program to them, so a
// user's forbidden, prompt or allow rule for the model's command would stop
// applying (seen with Codex 0.169.0; no wrapper keeps them, since they match
// only plain word sequences). planq therefore leaves a command to Codex's
// rules, unsandboxed as before, whenever it names a program a rule is
// about.

// rulesDirs are the rules directories Codex reads for a command run in dir
// of project: each config layer's rules/ (the system's, $CODEX_HOME's, and
// the project's .codex/ from dir up to the project root, which Codex reads
// when the project is trusted; planq reads them either way).
func rulesDirs(codexHome, project, dir string) []string {
	dirs := []string{"/etc/codex/rules"}
	if codexHome != "" {
		dirs = append(dirs, filepath.Join(codexHome, "rules"))
	}
	project, d := filepath.Clean(project), filepath.Clean(dir)
	if rel, err := filepath.Rel(project, d); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		d = project
	}
	for {
		dirs = append(dirs, filepath.Join(d, ".codex", "rules"))
		if d == project || d == filepath.Dir(d) {
			return dirs
		}
		d = filepath.Dir(d)
	}
}

// rulePrograms reads the *.rules files of dirs (a missing directory has
// none) and returns the programs their rules are about. A file planq cannot
// read or parse is an error: the caller then leaves every command to
// Codex's rules.
func rulePrograms(dirs []string) (map[string]bool, error) {
	progs := map[string]bool{}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.rules"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("Codex rules %s: %w", f, err)
			}
			if err := addRulePrograms(progs, f, src); err != nil {
				return nil, err
			}
		}
	}
	return progs, nil
}

// addRulePrograms adds to progs the programs the rules in src name: the
// first element of each prefix_rule's pattern (a string, or a list of
// alternatives) and each host_executable's name and paths. A pattern whose
// first element is not written out as literals makes every string literal
// of the file count.
func addRulePrograms(progs map[string]bool, name string, src []byte) error {
	f, err := (&syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}).Parse(name, src, 0)
	if err != nil {
		return fmt.Errorf("Codex rules %s: %w", name, err)
	}
	opaque := false
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		fn, _ := call.Fn.(*syntax.Ident)
		if fn == nil {
			return true
		}
		switch fn.Name {
		case "prefix_rule":
			pattern := callArg(call, "pattern", 0)
			first := pattern
			if l, ok := pattern.(*syntax.ListExpr); ok && len(l.List) > 0 {
				first = l.List[0]
			}
			if !addLiterals(progs, first, true) {
				opaque = true
			}
		case "host_executable":
			addLiterals(progs, callArg(call, "name", 0), false)
			addLiterals(progs, callArg(call, "paths", 1), false)
		}
		return true
	})
	if opaque {
		addLiterals(progs, f, false)
	}
	return nil
}

// callArg is the argument of call named name, or else its positional
// argument i (nil when it has neither).
func callArg(call *syntax.CallExpr, name string, i int) syntax.Expr {
	var pos []syntax.Expr
	for _, a := range call.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			if id, ok := b.X.(*syntax.Ident); ok && id.Name == name {
				return b.Y
			}
			continue
		}
		pos = append(pos, a)
	}
	if i < len(pos) {
		return pos[i]
	}
	return nil
}

// addLiterals adds the base names of the string literals in e to progs.
// With only set, e must be a string or a list of strings, and it reports
// whether it was (adding nothing otherwise).
func addLiterals(progs map[string]bool, e syntax.Node, only bool) bool {
	if e == nil {
		return false
	}
	var lits []string
	plain := true
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Literal:
			if s, ok := n.Value.(string); ok {
				lits = append(lits, s)
			}
		case *syntax.ListExpr, nil: // Walk ends each node with f(nil)
		default:
			plain = false
		}
		return true
	})
	if only && (!plain || len(lits) == 0) {
		return false
	}
	for _, s := range lits {
		progs[filepath.Base(s)] = true
	}
	return true
}
