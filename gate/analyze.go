package gate

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"

	"github.com/planq-dev/planq/internal/text"
)

// Bounds on the analysis. A command past any of them counts as modifying,
// with the bound named in the reason: the gate never lets through what it
// could not read to the end, and no input makes it work for long.
const (
	MaxCommandBytes = 128 << 10 // a Bash command longer than this is not parsed
	MaxBracketDepth = 100       // brackets, braces and parentheses open at once
	MaxNodes        = 100_000   // syntax nodes in one parsed script
	MaxOperators    = 2_000     // | and && operators, which the parser nests
	maxSteps        = 1_000_000 // nodes and nested bytes over the whole analysis
	maxNesting      = 6         // bash -c / eval / find -exec / wrapper levels
	maxPartLen      = 160       // a deciding part longer than this is shortened
	maxPasses       = 3         // re-analyses when a later part changes what an earlier one means
	maxPathChecks   = 256       // paths resolved per pass; past it, no outside credit
)

// errBudget stops the analysis when its work budget is spent.
var errBudget = errors.New("analysis budget spent")

// AnalyzeBash judges a shell command without knowing where it runs: every
// path counts as inside the project.
func AnalyzeBash(cmd string, pol Policy) Verdict { return AnalyzeBashAt(cmd, pol, Where{}) }

// AnalyzeBashAt judges a shell command run in w: it modifies when any simple
// command, assignment, expansion or redirection in it does. The deciding
// part is the first one that modifies.
func AnalyzeBashAt(cmd string, pol Policy, w Where) Verdict {
	if v, bad := checkBounds(cmd); bad {
		return v
	}
	w.Root = resolvedRoot(w.Root)
	if w.Cwd != "" {
		if c, ok := resolvePath(w.Cwd, ""); ok {
			w.Cwd = c
		}
	}
	var f facts
	var a *analyzer
	for range maxPasses {
		before := f.clone()
		a = &analyzer{pol: &pol, where: w, facts: f}
		if w.Cwd != "" {
			a.cwds = []string{w.Cwd}
		}
		a.facts.init()
		a.run(cmd)
		// Facts only ever make parts stricter: a verdict that already
		// modifies stands.
		if a.mod != nil || a.facts.equal(before) || a.over != "" {
			break
		}
		f = a.facts
	}
	v := Verdict{Git: a.git, Declares: a.declares && !a.others}
	if a.sure != nil {
		v.Modifies, v.Sure, v.Part, v.Reason = true, true, a.sure.part, a.sure.reason
		return v
	}
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
	if len(a.outside) > 0 {
		v.Reason += "; writes only outside the project (" + strings.Join(a.outside, ", ") + ")"
	}
	return v
}

// checkBounds refuses, before parsing, input too long or nested too deep
// for the parser to read in bounded time and memory.
func checkBounds(cmd string) (Verdict, bool) {
	if len(cmd) > MaxCommandBytes {
		return Verdict{Modifies: true, Part: shorten(cmd),
			Reason: fmt.Sprintf("the command is %d bytes long; planq analyses at most %d bytes (MaxCommandBytes)", len(cmd), MaxCommandBytes)}, true
	}
	depth, maxDepth, ops := 0, 0, 0
	for i := 0; i < len(cmd); i++ {
		switch cmd[i] {
		case '(', '{', '[', '`':
			depth++
			maxDepth = max(maxDepth, depth)
		case ')', '}', ']':
			depth = max(depth-1, 0)
		case '|':
			ops++
		case '&':
			if i+1 < len(cmd) && cmd[i+1] == '&' {
				ops++
				i++
			}
		}
	}
	if ops > MaxOperators {
		return Verdict{Modifies: true, Part: shorten(cmd),
			Reason: fmt.Sprintf("the command has %d | and && operators; planq analyses at most %d (MaxOperators)", ops, MaxOperators)}, true
	}
	if maxDepth > MaxBracketDepth {
		return Verdict{Modifies: true, Part: shorten(cmd),
			Reason: fmt.Sprintf("the command nests brackets %d deep; planq analyses at most %d (MaxBracketDepth)", maxDepth, MaxBracketDepth)}, true
	}
	return Verdict{}, false
}

// facts are what the whole script does that changes the meaning of its
// parts wherever they are (a loop runs a later part before an earlier one).
// They only grow; the analysis runs again when a pass found new ones.
type facts struct {
	tainted   map[string]bool     // variables given a value planq cannot see
	values    map[string][]string // literal values given to variables
	cdAny     bool                // the script changes its working directory
	cdOut     bool                // … in a loop or function, possibly to somewhere not inside the project
	links     bool                // the script may create links
	integers  map[string]bool     // variables declared -i: their values are arithmetic
	fdInputs  map[int]bool        // descriptors the script opens on a file for reading (N<file)
	allexport bool                // set -a: every assignment is exported
	dotglob   bool                // globs may match dot files
}

func (f *facts) init() {
	if f.tainted == nil {
		f.tainted = map[string]bool{}
	}
	if f.values == nil {
		f.values = map[string][]string{}
	}
	if f.integers == nil {
		f.integers = map[string]bool{}
	}
	if f.fdInputs == nil {
		f.fdInputs = map[int]bool{}
	}
}

// dupOfInput reports whether duplicating descriptor m (the word of N<&M or
// N>&M) copies one the script opened on a file for reading.
func (f facts) dupOfInput(m string) bool {
	n, err := strconv.Atoi(strings.TrimSuffix(m, "-"))
	return err == nil && (f.fdInputs[n] || n >= 10 && f.fdInputs[-1])
}

func (f facts) clone() facts {
	c := f
	c.tainted, c.values, c.integers, c.fdInputs = map[string]bool{}, map[string][]string{}, map[string]bool{}, map[int]bool{}
	for k, v := range f.fdInputs {
		c.fdInputs[k] = v
	}
	for k, v := range f.tainted {
		c.tainted[k] = v
	}
	for k, v := range f.integers {
		c.integers[k] = v
	}
	for k, v := range f.values {
		c.values[k] = slices.Clone(v)
	}
	return c
}

func (f facts) equal(g facts) bool {
	if f.cdAny != g.cdAny || f.cdOut != g.cdOut || f.links != g.links || f.allexport != g.allexport || f.dotglob != g.dotglob ||
		len(f.tainted) != len(g.tainted) || len(f.values) != len(g.values) || len(f.integers) != len(g.integers) || len(f.fdInputs) != len(g.fdInputs) {
		return false
	}
	for k := range f.tainted {
		if !g.tainted[k] {
			return false
		}
	}
	for k, v := range f.values {
		if len(g.values[k]) != len(v) {
			return false
		}
	}
	return true
}

// analyzer walks one Bash command, recording the first modifying part and
// the first history-rewriting git command.
type analyzer struct {
	pol   *Policy
	where Where
	facts facts
	// cwds are the directories the shell may be in at the command being
	// judged (following cd in order); nil once planq cannot tell.
	cwds     []string
	places   *places             // where programs load code from, resolved once
	judged   map[string]pathKind // the paths resolved so far
	resolved map[[2]string]resolution
	varMemo  map[string]string // variables judged in arithmetic, and why they hold code
	packages map[string]packageInfo
	mod      *finding
	sure     *finding // the first part that surely writes into the project (Verdict.Sure)
	declares bool     // a part declares the change (Verdict.Declares)
	others   bool     // a command other than jj and declareCompanions runs
	git      *GitRewrite
	seen     []string // names of read-only commands, for the verdict's reason
	outside  []string // files written outside the project, for the reason
	steps    int
	over     string // the bound that stopped the analysis
}

// finding is the part of a command that decided it modifies. unknown says
// it modifies only because planq cannot see what it does (the unknown
// policy), not because it is known to write.
type finding struct {
	part, reason string
	unknown      bool
}

// outcome is the judgement of one simple command.
type outcome struct {
	mod     bool
	unknown bool // mod only under gate.unknown: strict
	sure    bool // mod, and surely: it writes a file planq sees is in the project
	reason  string
	git     *GitRewrite // set for git rewrites, whatever mod says
}

func (a *analyzer) modify(part, reason string) { a.modifyAs(part, reason, false) }

// modifySure records a part that surely writes into the project (and so
// modifies).
func (a *analyzer) modifySure(part, reason string) {
	a.modifyAs(part, reason, false)
	if a.sure == nil {
		a.sure = &finding{part: shorten(part), reason: reason}
	}
}

func (a *analyzer) modifyAs(part, reason string, unknown bool) {
	if a.mod == nil {
		p := shorten(part)
		if p == "" {
			p = strconv.Quote(part) // only invisible characters
		}
		a.mod = &finding{part: p, reason: reason, unknown: unknown}
	}
}

// judgeScript analyses src (a package script) on its own and returns what
// decided it modifies, or nil. It shares the budget and what the
// enclosing command has established.
func (a *analyzer) judgeScript(src, where string, depth int, cwd string) *finding {
	sub := &analyzer{pol: a.pol, where: a.where, facts: a.facts.clone(), steps: a.steps, cwds: []string{cwd}}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if r != errBudget {
					panic(r)
				}
				sub.modify(src, "the script needs more analysis steps than planq allows")
			}
		}()
		sub.script(src, where, depth)
	}()
	a.steps = sub.steps
	a.step(0)
	a.facts.links = a.facts.links || sub.facts.links
	if sub.git != nil && a.git == nil {
		a.git = sub.git
	}
	if sub.mod != nil {
		return sub.mod
	}
	for _, n := range sub.seen {
		a.sawReadOnly(n)
	}
	return nil
}

func (a *analyzer) sawReadOnly(name string) {
	if len(a.seen) < 8 && !slices.Contains(a.seen, name) {
		a.seen = append(a.seen, name)
	}
}

func (a *analyzer) sawOutside(p string) {
	if len(a.outside) < 4 && !slices.Contains(a.outside, p) {
		a.outside = append(a.outside, p)
	}
}

// run analyses the top-level script, turning a spent budget or a panic in a
// rule into a modifying verdict: the gate fails closed.
func (a *analyzer) run(src string) {
	defer func() {
		if r := recover(); r != nil {
			if r == errBudget {
				a.mod = nil
				a.modify(src, fmt.Sprintf("the command needs more than %d analysis steps; planq stops there (%s)", maxSteps, a.over))
				return
			}
			a.mod = nil
			a.modify(src, fmt.Sprintf("planq's analysis failed (%v), so it cannot tell what the command does", r))
		}
	}()
	a.script(src, "", 0)
}

func (a *analyzer) step(n int) {
	a.steps += n
	if a.steps > maxSteps {
		a.over = "maxSteps"
		panic(errBudget)
	}
}

// script parses src and analyses every statement in it. where names the
// construct the source came from ("bash -c"), for reasons.
func (a *analyzer) script(src, where string, depth int) {
	if depth > maxNesting {
		a.modify(src, fmt.Sprintf("commands nested more than %d levels deep (bash -c, eval, …) are not analysed", maxNesting))
		return
	}
	if v, bad := checkBounds(src); bad {
		a.modify(src, v.Reason+in(where))
		return
	}
	a.step(len(src) / 16)
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.modify(src, "the command does not parse as bash ("+text.FirstLine(err.Error())+"), so planq cannot tell what it does"+in(where))
		return
	}
	nodes := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		nodes++
		return nodes <= MaxNodes
	})
	if nodes > MaxNodes {
		a.modify(src, fmt.Sprintf("the command has more than %d syntax nodes; planq analyses at most %d (MaxNodes)", MaxNodes, MaxNodes)+in(where))
		return
	}
	a.step(nodes)
	s := &scriptCtx{a: a, src: src, where: where, depth: depth}
	syntax.Walk(f, s.visit)
}

// scriptCtx is one parsed script being walked.
type scriptCtx struct {
	a     *analyzer
	src   string
	where string
	depth int
	stack []syntax.Node // the nodes enclosing the one being visited
	saved [][]string    // the analyzer's cwds, saved when entering a subshell
}

// subshell reports whether n runs its commands in a child shell, whose cd
// does not outlive it.
func subshell(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
		return true
	case *syntax.BinaryCmd:
		return n.Op == syntax.Pipe || n.Op == syntax.PipeAll
	}
	return false
}

// cdReplaces reports whether a cd at the node being visited decides where
// the shell is for what follows: it is on the left of &&, so what follows
// in that chain runs only if it succeeded. Elsewhere a cd may fail (or not
// run at all), and the shell may still be where it was.
func (s *scriptCtx) cdReplaces() bool {
	for i := len(s.stack) - 1; i >= 0; i-- {
		switch n := s.stack[i].(type) {
		case *syntax.BinaryCmd:
			return n.Op == syntax.AndStmt && i+1 < len(s.stack) && s.stack[i+1] == syntax.Node(n.X)
		case *syntax.IfClause, *syntax.CaseClause, *syntax.WhileClause, *syntax.ForClause, *syntax.FuncDecl:
			return false
		}
	}
	return false
}

// andOr reports whether n is a && or || list, after which the shell may be
// wherever either side left it.
func andOr(n syntax.Node) bool {
	b, ok := n.(*syntax.BinaryCmd)
	return ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt)
}

// unionDirs is every directory in a or b; nil (unknown) if either is.
func unionDirs(a, b []string) []string {
	if a == nil || b == nil {
		return nil
	}
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// repeated reports whether the node being visited may run more than once:
// in a loop or a function.
func (s *scriptCtx) repeated() bool {
	for _, n := range s.stack {
		switch n.(type) {
		case *syntax.WhileClause, *syntax.ForClause, *syntax.FuncDecl:
			return true
		}
	}
	return false
}

func (s *scriptCtx) modify(n syntax.Node, reason string) {
	s.a.modify(source(s.src, n), reason+in(s.where))
}

func (s *scriptCtx) visit(n syntax.Node) bool {
	if n == nil {
		top := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		switch {
		case subshell(top):
			s.a.cwds = s.saved[len(s.saved)-1]
			s.saved = s.saved[:len(s.saved)-1]
		case andOr(top):
			before := s.saved[len(s.saved)-1]
			s.saved = s.saved[:len(s.saved)-1]
			s.a.cwds = unionDirs(s.a.cwds, before)
		}
		return true
	}
	s.stack = append(s.stack, n)
	if subshell(n) || andOr(n) {
		s.saved = append(s.saved, slices.Clone(s.a.cwds))
	}
	switch n := n.(type) {
	case *syntax.Stmt:
		switch cmd := n.Cmd.(type) {
		case *syntax.CallExpr:
			if len(cmd.Args) > 0 {
				s.call(cmd, n.Redirs)
			} else {
				s.assignments(cmd, cmd.Assigns, false, false)
			}
		case *syntax.DeclClause:
			s.decl(cmd)
		}
	case *syntax.Redirect:
		s.redirect(n)
	case *syntax.ArithmCmd:
		s.arith(n, n.X)
	case *syntax.ArithmExp:
		s.arith(n, n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			s.arith(n, x)
		}
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			if x != nil {
				s.arith(n, x)
			}
		}
	case *syntax.WordIter:
		s.loopVar(n)
	case *syntax.TestClause:
		s.testExpr(n, n.X)
	case *syntax.ParamExp:
		s.paramExp(n)
	case *syntax.ExtGlob:
		// bash reads *(…) as an extended glob; zsh, which runs Claude
		// Code's commands on macOS, reads a trailing (…) as glob
		// qualifiers, and (e:…:) and (+…) run code.
		if zshQualifierCode(n.Pattern.Value) {
			s.modify(n, "zsh reads the (…) after a glob as qualifiers, which can run code, so planq cannot tell what it does")
		}
	case *syntax.Word:
		s.zshWord(n)
	case *syntax.CoprocClause:
		s.modify(n, "coproc runs a command in the background with pipes planq does not follow")
	}
	return true
}

// zshWord flags $~name, zsh's glob substitution of a variable's value (its
// glob qualifiers can run code); bash reads it as literal text.
func (s *scriptCtx) zshWord(w *syntax.Word) {
	for i := 0; i+1 < len(w.Parts); i++ {
		l1, ok1 := w.Parts[i].(*syntax.Lit)
		l2, ok2 := w.Parts[i+1].(*syntax.Lit)
		if ok1 && ok2 && strings.HasSuffix(l1.Value, "$") && (strings.HasPrefix(l2.Value, "~") || strings.HasPrefix(l2.Value, "=")) {
			s.modify(w, "$~ and $= are zsh expansions (the value as a glob), which can run code, so planq cannot tell what it does")
			return
		}
	}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "$~") {
			s.modify(w, "$~ is a zsh expansion (the value as a glob), which can run code, so planq cannot tell what it does")
			return
		}
	}
}

func zshQualifierCode(pat string) bool {
	return strings.ContainsAny(pat, "e+:'\"$`{(") || strings.Contains(pat, "P")
}

// call judges one simple command, with the assignments in front of it. Its
// words are walked separately, so command substitutions in them are judged
// on their own.
func (s *scriptCtx) call(call *syntax.CallExpr, redirs []*syntax.Redirect) {
	argv := make([]arg, len(call.Args))
	for i, w := range call.Args {
		argv[i] = wordArg(w)
	}
	part := source(s.src, call)
	if len(call.Assigns) > 0 {
		if o := s.assignments(call, call.Assigns, true, false); o.mod {
			return
		}
	}
	c := &cmdCtx{a: s.a, s: s, redirs: redirs, depth: s.depth}
	o := s.a.command(c, argv)
	if o.git != nil && s.a.git == nil {
		g := *o.git
		g.Part = shorten(part)
		s.a.git = &g
	}
	if o.sure {
		s.a.modifySure(part, o.reason+in(s.where))
	} else if o.mod {
		s.a.modifyAs(part, o.reason+in(s.where), o.unknown)
	}
}

func in(where string) string {
	if where == "" {
		return ""
	}
	return " (inside " + where + ")"
}

// redirect judges one redirection: writing to a file modifies unless the
// file is provably outside the project; writing to /dev/null or a file
// descriptor does not, and reading never does.
func (s *scriptCtx) redirect(r *syntax.Redirect) {
	if r.Word != nil && r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc && r.Op != syntax.WordHdoc {
		if reason := devNetServer(wordArg(r.Word)); reason != "" {
			s.a.modifySure(source(s.src, r), reason+in(s.where))
			return
		}
	}
	if r.Op == syntax.RdrIn || r.Op == syntax.DplIn {
		fd := 0
		if r.N != nil {
			if n, err := strconv.Atoi(r.N.Value); err == nil {
				fd = n
			} else {
				fd = -1 // {var}<file: any descriptor
			}
		}
		if r.Op == syntax.RdrIn || !isFD(r.Word.Lit()) || s.a.facts.dupOfInput(r.Word.Lit()) {
			s.a.facts.fdInputs[fd] = true // -1: some descriptor from 10 up
		}
		return
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
	case syntax.DplOut:
		// >&2 and 2>&1 duplicate descriptors; >&file writes a file.
		if r.Word != nil {
			if t := r.Word.Lit(); isFD(t) || t == "-" {
				if s.a.facts.dupOfInput(t) {
					// N>&M copies a descriptor open on a file for reading:
					// /dev/fd/N reopens that file too.
					fd := 1
					if r.N != nil {
						if n, err := strconv.Atoi(r.N.Value); err == nil {
							fd = n
						}
					}
					s.a.facts.fdInputs[fd] = true
				}
				return
			}
		}
	default:
		return
	}
	target := wordArg(r.Word)
	if target.static && s.a.safeTarget(target.val) {
		return
	}
	if !target.static {
		s.modify(r, "redirects output to a file whose name is computed at run time")
		return
	}
	if s.a.outsideWrite(target) {
		return
	}
	if s.a.writesInside(target) {
		s.a.modifySure(source(s.src, r), "the redirection writes to "+target.val+in(s.where))
		return
	}
	s.modify(r, "the redirection writes to "+target.val)
}

// writesInside reports whether the file p names is provably in the
// project, so that writing it surely modifies the project: a literal path
// that resolves inside the project's boundary (relative paths only while
// the working directory is known).
func (a *analyzer) writesInside(p arg) bool {
	if !p.static || p.glob || p.tilde || a.where.Root == "" || p.val == "" {
		return false
	}
	if !isAbsPath(p.val) && (a.facts.cdAny || a.where.Cwd == "") {
		return false
	}
	// Sure only when every reading lands inside: where the two readings
	// disagree, the sandbox (not a denial) settles what the shell does.
	rs, ok := a.readings(p.val, a.where.Cwd)
	return ok && !slices.ContainsFunc(rs, func(r string) bool { return !within(a.where.Root, r) })
}

// devNetServer says why a redirection to bash's /dev/tcp/HOST/PORT or
// /dev/udp/HOST/PORT (reading or writing: the socket goes both ways) asks
// a server to act: HOST is this machine, or planq cannot read it. It is ""
// for any other file.
func devNetServer(p arg) string {
	v := p.val
	if !p.static {
		v = p.prefix
	}
	rest, ok := strings.CutPrefix(v, "/dev/tcp/")
	if !ok {
		rest, ok = strings.CutPrefix(v, "/dev/udp/")
	}
	if !ok {
		return ""
	}
	host, _, ended := strings.Cut(rest, "/")
	if !ended && !p.static || localHost(host) {
		return "the redirection connects to " + p.raw + ", a server on this machine (or one planq cannot tell is not), which runs outside any sandbox"
	}
	return ""
}

// outsideWrite reports whether writing the file named by p provably leaves
// the project alone, and records it for the verdict's reason.
func (a *analyzer) outsideWrite(p arg) bool {
	if a.pathKind(p) != pathOutside {
		return false
	}
	a.sawOutside(p.val)
	return true
}

// pathKind says where a file operand is. Anything not provably outside
// counts as inside: computed names, globs, relative paths after a cd, and
// any path in a script that creates links.
func (a *analyzer) pathKind(p arg) pathKind {
	if !p.static || p.glob || a.where.Root == "" || a.facts.links {
		return pathInside
	}
	v := p.val
	if p.tilde {
		home := a.where.getenv("HOME")
		switch {
		case home == "":
			return pathInside
		case v == "~":
			v = home
		case strings.HasPrefix(v, "~/"):
			v = home + v[1:]
		default:
			return pathInside // ~user
		}
	}
	if !isAbsPath(v) && (a.facts.cdAny || a.where.Cwd == "") {
		return pathInside
	}
	if strings.HasPrefix(v, "/proc/self/cwd") || strings.HasPrefix(v, "/proc/thread-self/cwd") {
		if a.facts.cdAny {
			return pathInside
		}
	}
	if k, ok := a.judged[v]; ok {
		return k
	}
	if len(a.judged) >= maxPathChecks {
		return pathInside // past the bound, no more outside credit
	}
	if a.places == nil {
		a.places = a.where.places()
	}
	k := a.places.judge(a.where.Root, v, a.where.Cwd, a.resolveAbs)
	if a.judged == nil {
		a.judged = map[string]pathKind{}
	}
	a.judged[v] = k
	return k
}

func isAbsPath(p string) bool { return strings.HasPrefix(p, "/") || path.IsAbs(p) }

type resolution struct {
	path string
	ok   bool
}

// readings resolves p (relative to cwd) under both readings
// (pathReadings); ok is false when either cannot be known.
func (a *analyzer) readings(p, cwd string) ([]string, bool) {
	forms, ok := pathReadings(p, cwd)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(forms))
	for _, f := range forms {
		r, ok := a.resolveAbs(f, cwd)
		if !ok {
			return nil, false
		}
		out = append(out, r)
	}
	return out, true
}

// resolveAbs is resolveAbs, remembered, and bounded: past maxPathChecks
// distinct paths it reports ok false (the path counts as unknown).
func (a *analyzer) resolveAbs(p, cwd string) (string, bool) {
	key := [2]string{p, cwd}
	if r, ok := a.resolved[key]; ok {
		return r.path, r.ok
	}
	if len(a.resolved) >= maxPathChecks {
		return "", false
	}
	a.step(64)
	r, ok := resolveAbs(p, cwd)
	if a.resolved == nil {
		a.resolved = map[[2]string]resolution{}
	}
	a.resolved[key] = resolution{r, ok}
	return r, ok
}

// cmdCtx is what a rule may need besides the arguments.
type cmdCtx struct {
	a      *analyzer
	s      *scriptCtx
	redirs []*syntax.Redirect // the statement's redirections (heredocs for sh)
	depth  int
}

// nested analyses shell code given to bash -c, eval, trap, …; the nested
// analysis records its own deciding part.
func (c *cmdCtx) nested(code arg, where string) outcome {
	if !code.static {
		return outcome{mod: true, reason: where + " runs a command computed at run time"}
	}
	saved := slices.Clone(c.a.cwds) // a cd in a child shell does not outlive it
	c.a.script(code.val, where, c.depth+1)
	c.a.cwds = saved
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

// command judges argv, a simple command with its name first. A name the
// script also defines as a function is judged as the program of that name:
// every function body is analysed where it is written, so whichever runs,
// it has been judged.
func (a *analyzer) command(c *cmdCtx, argv []arg) outcome {
	if len(argv) == 0 {
		return outcome{}
	}
	a.step(len(argv))
	name0 := argv[0]
	if !name0.static {
		return outcome{mod: true, reason: "the command name " + name0.raw + " is computed at run time"}
	}
	name, ok := commandName(name0.val)
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		name = strconv.Quote(name)
	}
	if !ok {
		return unknownOutcome(c, "runs the program "+name0.val+", which planq does not know")
	}
	if name != "jj" && !declareCompanions[name] {
		a.others = true
	}
	args := argv[1:]
	words := make([]string, len(args))
	for i, x := range args {
		words[i] = x.val
	}
	if e, ok := matchNames(a.pol.Deny, name, words); ok {
		return outcome{mod: true, sure: true, reason: e + " is listed in gate.deny"}
	}
	if _, ok := matchNames(a.pol.Allow, name, words); ok {
		a.sawReadOnly(name)
		return outcome{}
	}
	r, ok := lookup(name)
	if !ok {
		return unknownOutcome(c, "unknown command "+name+" counts as modifying (add it to gate.allow in .planq/config.yaml if it only reads)")
	}
	if r.cfg && !a.cwdTrusted() {
		return unknownOutcome(c, name+" loads configuration or code from its working directory, which is not provably inside the project (a cd planq cannot follow, or a tool running elsewhere)")
	}
	if o, ok := helpOnly(name, args); ok {
		a.sawReadOnly(name)
		return o
	}
	o := r.eval(c, name, args)
	if !o.mod {
		a.sawReadOnly(name)
	}
	return o
}

// declareCompanions are the commands that may stand beside a declaring jj
// command with the whole still counting as the declaration (which runs
// outside the sandbox): they change nothing.
var declareCompanions = map[string]bool{"cd": true, "pwd": true, "echo": true, "printf": true, "true": true, ":": true}

// inProject reports whether the command being judged provably runs in the
// project (cwdTrusted, with the project known): what it writes in its
// working directory is written into the project.
func (c *cmdCtx) inProject() bool { return c.a.where.Root != "" && c.a.cwdTrusted() }

// cwdTrusted reports whether the command being judged provably runs in the
// project: every directory the shell may be in by now (following cd in
// order, subshells undone) is inside it, and no cd in a loop or function
// leads out.
func (a *analyzer) cwdTrusted() bool {
	if a.facts.cdOut {
		return false
	}
	if a.where.Root == "" {
		return a.where.Cwd == "" || a.cwds != nil
	}
	if a.cwds == nil {
		return false
	}
	for _, d := range a.cwds {
		if !within(a.where.Root, d) {
			return false
		}
	}
	return true
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
	tilde  bool // starts with an unquoted ~ (tilde expansion)
	glob   bool // has unquoted glob or brace characters
	// prefix is the value the word starts with before its first part known
	// only at run time (all of val when static): the host of
	// "http://example.com/$path".
	prefix string
	// param names the variable when the word is only $name or "$name".
	param string
}

func staticArg(v string) arg { return arg{val: v, raw: v, static: true} }

func wordArg(w *syntax.Word) arg {
	if w == nil {
		return arg{static: true}
	}
	var b, raw strings.Builder
	a := arg{static: true}
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				a.tilde = true
			}
			if strings.ContainsAny(p.Value, "*?[") || braceExpansion(p.Value) {
				a.glob = true
			}
			b.WriteString(unescape(p.Value, false))
			raw.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				a.unknownFrom(&b) // $'\x72m' is only known after decoding
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
					a.unknownFrom(&b)
					raw.WriteString("$…")
				}
			}
			raw.WriteString(`"`)
		case *syntax.ExtGlob:
			a.glob = true
			b.WriteString(p.Op.String() + p.Pattern.Value + ")")
			raw.WriteString(p.Op.String() + p.Pattern.Value + ")")
		default:
			a.unknownFrom(&b)
			raw.WriteString("$…")
		}
	}
	a.val, a.raw = b.String(), raw.String()
	if a.static {
		a.prefix = a.val
	}
	a.param = simpleParam(w)
	return a
}

// simpleParam is the variable a word expands when it is only $name,
// ${name} or "$name", else "".
func simpleParam(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return ""
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil || pe.Repl != nil ||
		pe.Names != 0 || pe.Exp != nil || pe.NestedParam != nil || len(pe.Modifiers) > 0 || pe.Flags != nil {
		return ""
	}
	return pe.Param.Value
}

// mayBeOption reports whether a word known only at run time may expand to
// an option: it does not start with literal text other than -, and it is
// not a variable whose every value the script gives it is a literal that
// is not one (for f in *.go; gofmt -l "$f").
func (a *analyzer) mayBeOption(p arg) bool {
	if p.static {
		return false
	}
	if p.prefix != "" {
		return strings.HasPrefix(p.prefix, "-")
	}
	vals := a.facts.values[p.param]
	if p.param == "" || a.facts.tainted[p.param] || len(vals) == 0 {
		return true
	}
	for _, v := range vals {
		if strings.HasPrefix(v, "-") || v == "" {
			return true
		}
	}
	return false
}

// unknownFrom marks the word as known only at run time from here on: its
// prefix is what was read so far.
func (a *arg) unknownFrom(b *strings.Builder) {
	if a.static {
		a.static, a.prefix = false, b.String()
	}
}

// braceExpansion reports whether an unquoted literal has a brace
// expansion ({a,b} or {1..3}), which bash expands into several words.
func braceExpansion(s string) bool {
	for i := strings.IndexByte(s, '{'); i >= 0; {
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return false
		}
		if inner := s[i+1 : i+j]; strings.Contains(inner, ",") || strings.Contains(inner, "..") {
			return true
		}
		k := strings.IndexByte(s[i+1:], '{')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
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

// safeTarget reports whether writing to the file p changes nothing on disk:
// /dev/null, the terminal, or a file descriptor (not "-": bash's > - and
// most tools' -o - write a file named -; the rules for tools that take -
// for standard output say so) — unless the script opened
// that descriptor on a file, which /dev/fd/N and /proc/self/fd/N would then
// reopen for writing (exec 3<main.go; echo x > /dev/fd/3).
func (a *analyzer) safeTarget(p string) bool {
	switch p {
	case "/dev/null", "/dev/tty":
		return true
	case "/dev/stdout":
		return !a.facts.fdInputs[1]
	case "/dev/stderr":
		return !a.facts.fdInputs[2]
	}
	for _, prefix := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok && isFD(rest) {
			n, err := strconv.Atoi(strings.TrimSuffix(rest, "-"))
			return err == nil && !a.facts.fdInputs[n] && !(n >= 10 && a.facts.fdInputs[-1])
		}
	}
	return false
}

func isFD(s string) bool { return isDigits(strings.TrimSuffix(s, "-")) }

// isDigits reports whether s is a non-empty run of decimal digits.
func isDigits(s string) bool {
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
	return text.Prefix(s, maxPartLen) + "…"
}
