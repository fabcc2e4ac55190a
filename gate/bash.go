package gate

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// Bounds on the analysis. A command past them counts as modifying: the gate
// never lets through what it could not read to the end.
const (
	maxCommandBytes = 256 << 10 // a Bash tool command longer than this is not parsed
	maxNesting      = 6         // bash -c / eval / find -exec / wrapper levels
	maxPartLen      = 160       // a deciding part longer than this is shortened
)

// AnalyzeBash judges a shell command: it modifies when any simple command or
// redirection in it does. The deciding part is the first one that modifies.
func AnalyzeBash(cmd string, pol Policy) Verdict {
	a := &analyzer{pol: &pol, funcs: map[string]bool{}}
	a.script(cmd, "", 0)
	v := Verdict{Git: a.git}
	if a.mod != nil {
		v.Modifies, v.Part, v.Reason = true, a.mod.part, a.mod.reason
		return v
	}
	switch {
	case strings.TrimSpace(cmd) == "":
		v.Reason = "empty command"
	case len(a.seen) == 0:
		v.Reason = "read-only: only shell built-ins and variables"
	default:
		v.Reason = "read-only: " + strings.Join(a.seen, ", ")
	}
	return v
}

// analyzer walks one Bash command, recording the first modifying part and
// the first history-rewriting git command.
type analyzer struct {
	pol   *Policy
	mod   *finding
	git   *GitRewrite
	seen  []string        // names of read-only commands, for the verdict's reason
	funcs map[string]bool // functions defined in the script (their bodies are analysed)
}

type finding struct{ part, reason string }

// outcome is the judgement of one simple command.
type outcome struct {
	mod    bool
	reason string
	git    *GitRewrite // set for git rewrites, whatever mod says
}

func (a *analyzer) modify(part, reason string) {
	if a.mod == nil {
		p := shorten(part)
		if p == "" {
			p = strconv.Quote(part) // only invisible characters
		}
		a.mod = &finding{part: p, reason: reason}
	}
}

func (a *analyzer) sawReadOnly(name string) {
	if len(a.seen) < 8 && !slices.Contains(a.seen, name) {
		a.seen = append(a.seen, name)
	}
}

// script parses src and analyses every statement in it. where names the
// construct the source came from ("bash -c"), for reasons.
func (a *analyzer) script(src, where string, depth int) {
	if depth > maxNesting {
		a.modify(src, fmt.Sprintf("commands nested more than %d levels deep (bash -c, eval, …) are not analysed", maxNesting))
		return
	}
	if len(src) > maxCommandBytes {
		a.modify(src, fmt.Sprintf("the command is %d bytes long; planq analyses at most %d", len(src), maxCommandBytes))
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.modify(src, "the command does not parse as shell ("+firstLine(err.Error())+"), so planq cannot tell what it does")
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			a.funcs[fd.Name.Value] = true
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if call, ok := n.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				a.call(src, call, n.Redirs, where, depth)
			}
		case *syntax.Redirect:
			a.redirect(src, n, where)
		}
		return true
	})
}

// call judges one simple command. Its words are walked separately, so
// command substitutions in them are judged on their own.
func (a *analyzer) call(src string, call *syntax.CallExpr, redirs []*syntax.Redirect, where string, depth int) {
	argv := make([]arg, len(call.Args))
	for i, w := range call.Args {
		argv[i] = wordArg(w)
	}
	c := &cmdCtx{a: a, redirs: redirs, depth: depth}
	o := a.command(c, argv)
	part := source(src, call)
	if o.git != nil && a.git == nil {
		g := *o.git
		g.Part = shorten(part)
		a.git = &g
	}
	if o.mod {
		a.modify(part, o.reason+in(where))
	}
}

func in(where string) string {
	if where == "" {
		return ""
	}
	return " (inside " + where + ")"
}

// redirect judges one redirection: writing to a file modifies, writing to
// /dev/null or a file descriptor does not, and reading never does.
func (a *analyzer) redirect(src string, r *syntax.Redirect, where string) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
	case syntax.DplOut:
		// >&2 and 2>&1 duplicate descriptors; >&file writes a file.
		if r.Word != nil {
			if t := r.Word.Lit(); isFD(t) || t == "-" {
				return
			}
		}
	default:
		return
	}
	target := wordArg(r.Word)
	if target.static && safeTarget(target.val) {
		return
	}
	part := source(src, r)
	if !target.static {
		a.modify(part, "redirects output to a file whose name is computed at run time"+in(where))
		return
	}
	a.modify(part, "the redirection writes to "+target.val+in(where))
}

// cmdCtx is what a rule may need besides the arguments.
type cmdCtx struct {
	a      *analyzer
	redirs []*syntax.Redirect // the statement's redirections (heredocs for sh)
	depth  int
}

// nested analyses shell code given to bash -c, eval, trap, …; the nested
// analysis records its own deciding part.
func (c *cmdCtx) nested(code arg, where string) outcome {
	if !code.static {
		return outcome{mod: true, reason: where + " runs a command computed at run time"}
	}
	c.a.script(code.val, where, c.depth+1)
	return outcome{}
}

// run analyses argv as a command run by a wrapper (sudo, xargs, find -exec).
func (c *cmdCtx) run(argv []arg) outcome {
	if c.depth+1 > maxNesting {
		return outcome{mod: true, reason: fmt.Sprintf("commands nested more than %d levels deep are not analysed", maxNesting)}
	}
	inner := *c
	inner.depth++
	return c.a.command(&inner, argv)
}

// command judges argv, a simple command with its name first.
func (a *analyzer) command(c *cmdCtx, argv []arg) outcome {
	if len(argv) == 0 {
		return outcome{}
	}
	name0 := argv[0]
	if !name0.static {
		return outcome{mod: true, reason: "the command name " + name0.raw + " is computed at run time"}
	}
	name, ok := commandName(name0.val)
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		name = strconv.Quote(name)
	}
	if !ok {
		if a.pol.PermissiveUnknown {
			a.sawReadOnly(name0.val)
			return outcome{}
		}
		return outcome{mod: true, reason: "runs the program " + name0.val + ", which planq does not know (gate.unknown: strict)"}
	}
	words := make([]string, len(argv)-1)
	for i, x := range argv[1:] {
		words[i] = x.val
	}
	if e, ok := matchNames(a.pol.Deny, name, words); ok {
		return outcome{mod: true, reason: e + " is listed in gate.deny"}
	}
	if _, ok := matchNames(a.pol.Allow, name, words); ok {
		a.sawReadOnly(name)
		return outcome{}
	}
	if a.funcs[name] {
		a.sawReadOnly(name)
		return outcome{}
	}
	r, ok := commands()[name]
	if !ok {
		if a.pol.PermissiveUnknown {
			a.sawReadOnly(name)
			return outcome{}
		}
		return outcome{mod: true, reason: "unknown command " + name + " counts as modifying (gate.unknown: strict; add it to gate.allow in .planq/config.yaml if it only reads)"}
	}
	o := r.eval(c, name, argv[1:])
	if !o.mod {
		a.sawReadOnly(name)
	}
	return o
}

// commandName resolves a command word to the name the tables know: /bin/rm
// and node_modules/.bin/prettier by their base name. Other paths, and names
// with glob or brace characters, are not resolvable.
func commandName(w string) (string, bool) {
	if w == "[" {
		return w, true
	}
	if w == "" || strings.ContainsAny(w, "*?[]{}~$`\"'\\ \t\n") {
		return w, false
	}
	if !strings.Contains(w, "/") {
		return w, true
	}
	dir, base := path.Split(w)
	dir = path.Clean(dir)
	if base == "" {
		return w, false
	}
	if slices.Contains(systemDirs, dir) || dir == "node_modules/.bin" || strings.HasSuffix(dir, "/node_modules/.bin") ||
		dir == ".venv/bin" || strings.HasSuffix(dir, "/.venv/bin") || dir == "venv/bin" || strings.HasSuffix(dir, "/venv/bin") {
		return base, true
	}
	return w, false
}

// Directories whose programs are known by their base name.
var systemDirs = []string{
	"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
	"/opt/homebrew/bin", "/home/linuxbrew/.linuxbrew/bin", "/usr/lib/go/bin", "/usr/local/go/bin",
}

// matchNames finds an entry of a gate.allow / gate.deny list matching the
// command: "name" matches the name, "name sub" also the first arguments.
func matchNames(list []string, name string, args []string) (string, bool) {
	for _, e := range list {
		f := strings.Fields(e)
		if len(f) == 0 || f[0] != name || len(f)-1 > len(args) {
			continue
		}
		if slices.Equal(f[1:], args[:len(f)-1]) {
			return e, true
		}
	}
	return "", false
}

// arg is one word of a command with its value when it is known before run
// time (no parameter expansion or command substitution in it).
type arg struct {
	val    string // the word's value, quotes removed; unknown parts omitted
	raw    string // the word as written, for messages
	static bool
}

func wordArg(w *syntax.Word) arg {
	if w == nil {
		return arg{static: true}
	}
	var b, raw strings.Builder
	static := true
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
			raw.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				static = false // $'\x72m' is only known after decoding
			}
			b.WriteString(p.Value)
			raw.WriteString("'" + p.Value + "'")
		case *syntax.DblQuoted:
			raw.WriteString(`"`)
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescape(l.Value, true))
					raw.WriteString(l.Value)
				} else {
					static = false
					raw.WriteString("$…")
				}
			}
			raw.WriteString(`"`)
		default:
			static = false
			raw.WriteString("$…")
		}
	}
	return arg{val: b.String(), raw: raw.String(), static: static}
}

// unescape removes shell backslash quoting from a literal; inside double
// quotes only \$ \` \" \\ and \newline are escapes.
func unescape(s string, dbl bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		n := s[i+1]
		if dbl && !strings.ContainsRune("$`\"\\\n", rune(n)) {
			b.WriteByte('\\')
			continue
		}
		i++
		if n != '\n' {
			b.WriteByte(n)
		}
	}
	return b.String()
}

// safeTarget reports whether writing to the file p changes nothing on disk.
func safeTarget(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-":
		return true
	}
	for _, prefix := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok && isFD(rest) {
			return true
		}
	}
	return false
}

func isFD(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// source returns the text of node n in src.
func source(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s >= e {
		return ""
	}
	return src[s:e]
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxPartLen {
		return s
	}
	cut := maxPartLen
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
