package gate

import (
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file judges what bash does with variables: assignments in front of a
// command (which are part of the command), assignments and declarations on
// their own, and the places where bash evaluates a variable's text as code —
// arithmetic, array subscripts, ${!name} and ${name@P}.

// harmlessEnv lists environment variables that change no program's choice
// of what to run or load, with the values allowed (nil: any value). Only
// these may stand in front of a command (VAR=x cmd) or be exported without
// making the command unknown.
var harmlessEnv = map[string][]string{
	"LANG": nil, "LANGUAGE": nil, "TZ": nil, "TERM": nil, "COLORTERM": nil, "COLUMNS": nil, "LINES": nil,
	"NO_COLOR": nil, "FORCE_COLOR": nil, "CLICOLOR": nil, "CLICOLOR_FORCE": nil, "CI": nil, "USER": nil, "LOGNAME": nil,
	"GOOS": nil, "GOARCH": nil, "GOAMD64": nil, "GOARM": nil, "GOARM64": nil, "GO386": nil, "GOWASM": nil, "GOMIPS": nil,
	"CGO_ENABLED": nil, "GOMAXPROCS": nil, "GOGC": nil, "GOMEMLIMIT": nil, "GOTRACEBACK": nil, "GODEBUG": nil,
	"GOPROXY": {"off", "direct", "https://proxy.golang.org", "https://proxy.golang.org,direct"}, "GOWORK": {"off"},
	"GOTOOLCHAIN": {"local"}, "GOFLAGS": {"-mod=readonly", "-mod=vendor", "-count=1", "-v", "-race"},
	"RUST_BACKTRACE": nil, "RUST_LOG": nil, "RUST_LOG_STYLE": nil, "RUST_TEST_THREADS": nil, "RUST_MIN_STACK": nil,
	"CARGO_TERM_COLOR": nil, "CARGO_TERM_VERBOSE": nil, "CARGO_TERM_QUIET": nil, "CARGO_INCREMENTAL": {"0", "1"},
	"NODE_ENV": nil, "NODE_NO_WARNINGS": nil, "DEBUG": nil, "VERBOSE": nil,
	"PYTHONUNBUFFERED": nil, "PYTHONDONTWRITEBYTECODE": nil, "PYTHONHASHSEED": nil, "PYTHONIOENCODING": nil,
	"PYTHONUTF8": nil, "PYTHONFAULTHANDLER": nil, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": nil,
	"GIT_TERMINAL_PROMPT": nil, "GIT_OPTIONAL_LOCKS": nil, "GIT_CONFIG_NOSYSTEM": nil, "GIT_ADVICE": nil,
	"GIT_AUTHOR_NAME": nil, "GIT_AUTHOR_EMAIL": nil, "GIT_AUTHOR_DATE": nil, "GIT_COMMITTER_NAME": nil,
	"GIT_COMMITTER_EMAIL": nil, "GIT_COMMITTER_DATE": nil, "JJ_USER": nil, "JJ_EMAIL": nil, "JJ_TIMESTAMP": nil,
	"JJ_RANDOMNESS_SEED": nil, "JJ_OP_TIMESTAMP": nil, "JJ_OP_HOSTNAME": nil, "JJ_OP_USERNAME": nil,
	"HTTP_PROXY": nil, "HTTPS_PROXY": nil, "NO_PROXY": nil, "http_proxy": nil, "https_proxy": nil, "no_proxy": nil,
	"PAGER": pagerValues, "GIT_PAGER": pagerValues, "JJ_PAGER": pagerValues, "MANPAGER": pagerValues,
	"GH_PAGER": pagerValues, "SYSTEMD_PAGER": pagerValues, "BAT_PAGER": pagerValues,
	"EDITOR": editorValues, "VISUAL": editorValues, "GIT_EDITOR": editorValues, "JJ_EDITOR": editorValues,
	"GIT_SEQUENCE_EDITOR": editorValues,
}

var (
	pagerValues  = []string{"", "cat", "less", "more", "less -R", "less -r", "less -FR", "less -FRX", "less -RX"}
	editorValues = []string{"true", ":", "cat"}
)

// harmlessAssign reports whether NAME=value in front of a command (or
// exported) leaves what the command runs unchanged. PATH may only name
// system directories; PYTHONPATH and NODE_PATH only the project.
func (a *analyzer) harmlessAssign(name string, val arg) bool {
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	switch name {
	case "PATH":
		if !val.static || val.val == "" {
			return false
		}
		for _, d := range filepath.SplitList(val.val) {
			if !slices.Contains(systemDirs, filepath.Clean(d)) {
				return false
			}
		}
		return true
	case "PYTHONPATH", "NODE_PATH":
		if !val.static || val.val == "" || val.tilde {
			return false
		}
		for _, d := range filepath.SplitList(val.val) {
			if a.pathKind(staticArg(d)) != pathInside || a.where.Root == "" && isAbsPath(d) {
				return false
			}
		}
		return a.cwdTrusted()
	}
	vals, ok := harmlessEnv[name]
	if !ok {
		return false
	}
	return vals == nil || val.static && slices.Contains(vals, val.val)
}

// dangerousVar reports whether a variable, set in the shell, changes what
// bash or the programs it starts run or load: bash's own hooks (BASH_ENV,
// PS4, IFS, PATH…), the search paths and option variables of compilers,
// interpreters and package managers, pagers and editors, and the homes
// their configuration is read from. Setting one counts as modifying.
func dangerousVar(name string) bool {
	if slices.Contains(dangerousExact, name) {
		return true
	}
	for _, p := range dangerousPrefixes {
		if strings.HasPrefix(name, p) {
			if _, ok := harmlessEnv[name]; ok {
				return false
			}
			return true
		}
	}
	for _, s := range dangerousSuffixes {
		if strings.HasSuffix(name, s) {
			_, ok := harmlessEnv[name]
			return !ok
		}
	}
	return false
}

var dangerousExact = []string{
	"BASH_ENV", "BASH_ALIASES", "BASH_CMDS", "ENV", "IFS", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "GLOBIGNORE",
	"BASH_XTRACEFD", "HISTFILE", "EXECIGNORE", "FUNCNEST", "BASH_COMPAT", "BASH_LOADABLES_PATH", "INPUTRC", "HOSTFILE",
	"TMPDIR", "TMP", "TEMP", "SHELL", "BROWSER", "MAKEFILES", "CC", "CXX", "LD", "AR", "AS", "CPP", "FC",
	"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LESS", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSKEYIN", "MANOPT",
	"TAR_OPTIONS", "GZIP", "BZIP2", "XZ_OPT", "XZ_DEFAULTS", "ZSTD_NBTHREADS", "GREP_OPTIONS", "CLASSPATH",
	"SSH_ASKPASS", "SUDO_ASKPASS", "GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "KUBECONFIG", "DOCKER_HOST",
	"DOCKER_CONFIG", "MAIL", "MAILPATH", "TERMINFO", "TERMINFO_DIRS", "EMACSLOADPATH", "VIMINIT", "EXINIT", "MYVIMRC",
	"ZDOTDIR", "GNUPGHOME", "PIPX_HOME", "LUA_PATH", "LUA_CPATH", "LUA_INIT",
}

var dangerousPrefixes = []string{
	"BASH_FUNC_", "GIT_", "JJ_", "LD_", "DYLD_", "CARGO_", "RUST", "GO", "npm_config_", "NPM_CONFIG_", "YARN_", "PNPM_",
	"BUN_", "DENO_", "NODE_", "PIP_", "PIPENV_", "POETRY_", "UV_", "CONDA", "VIRTUAL_ENV", "PYTHON", "PYTEST", "PERL",
	"RUBY", "GEM_", "BUNDLE_", "JAVA_", "_JAVA_", "JDK_", "MAVEN_", "GRADLE_", "XDG_", "CLAUDE", "PLANQ_", "RIPGREP_",
	"FZF_", "JEST_", "VITEST", "MOCHA_", "PLAYWRIGHT_", "TS_NODE_", "ESLINT_", "PRETTIER_", "BAT_", "DELTA_", "GH_",
	"LESS", "SSH_", "SUDO_", "MAKE", "HOME",
}

var dangerousSuffixes = []string{"PATH", "PAGER", "EDITOR", "_OPTS", "_OPTIONS", "FLAGS", "_CONFIG", "_HOME", "_COMMAND", "SHELL", "_RC", "RC"}

// exportSafe reports whether exporting NAME=value keeps every program the
// script starts doing what planq judged: harmless names, and plain
// lowercase script variables that programs do not read.
func (a *analyzer) exportSafe(name string, val arg) bool {
	if a.harmlessAssign(name, val) {
		return true
	}
	if dangerousVar(name) || strings.HasPrefix(name, "npm_") || strings.HasPrefix(name, "yarn_") {
		return false
	}
	return strings.ToLower(name) == name
}

// assignments judges NAME=value words: in front of a command (prefix) they
// are part of its meaning, and must be harmless; on their own they set a
// shell variable, which must not be one that changes what runs. exported
// says they are exported (export, declare -x, set -a).
func (s *scriptCtx) assignments(n syntax.Node, assigns []*syntax.Assign, prefix, exported bool) outcome {
	a := s.a
	for _, as := range assigns {
		if as.Name == nil {
			continue
		}
		name := as.Name.Value
		val := wordArg(as.Value)
		if as.Array != nil {
			val = arg{raw: "(…)"}
		}
		if as.Index != nil {
			s.arith(as, as.Index)
		}
		if a.facts.integers[name] && as.Value != nil {
			if why := a.arithWord(as.Value, 0); why != "" {
				s.modify(n, name+" is an integer variable (declare -i), so bash evaluates its value as arithmetic, and "+why)
				return outcome{mod: true}
			}
		}
		a.record(name, as)
		shown := name + "=" + val.raw
		switch {
		case prefix:
			if !a.harmlessAssign(name, val) {
				if dangerousVar(name) {
					s.modify(n, "the assignment "+shown+" in front of the command changes what it runs or loads (planq allows only harmless variables there, such as LANG, TZ, CI or GOOS)")
				} else {
					o := unknownOutcome(&cmdCtx{a: a}, "the assignment "+shown+" in front of the command is part of it, and "+name+" is not a variable planq knows to be harmless")
					if o.mod {
						s.modify(n, o.reason)
					}
				}
				return outcome{mod: true}
			}
		case exported || a.facts.allexport:
			if !a.exportSafe(name, val) {
				if dangerousVar(name) {
					s.modify(n, "exporting "+name+" changes what programs run or load, so planq cannot tell what the rest of the command does")
				} else {
					o := unknownOutcome(&cmdCtx{a: a}, "exporting "+name+" passes it to every program the command starts, and it is not a variable planq knows to be harmless")
					if o.mod {
						s.modify(n, o.reason)
					}
				}
				return outcome{mod: true}
			}
		default:
			if dangerousVar(name) && !a.harmlessAssign(name, val) {
				s.modify(n, "setting "+name+" changes what bash or the programs it starts run or load, so planq cannot tell what the rest of the command does")
				return outcome{mod: true}
			}
		}
	}
	return outcome{}
}

// record notes a variable's value for the arithmetic checks: a literal
// without subscripts, expansions or substitutions, or a taint.
func (a *analyzer) record(name string, as *syntax.Assign) {
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Value != nil {
				a.recordValue(name, wordArg(e.Value))
			}
		}
		return
	}
	if as.Value == nil {
		if !as.Naked {
			a.recordValue(name, staticArg(""))
		}
		return
	}
	if numericWord(as.Value) || numericSubstWord(as.Value) {
		a.recordValue(name, staticArg("0"))
		return
	}
	a.recordValue(name, wordArg(as.Value))
}

// numericWord reports whether a word always expands to a number: digits,
// $((…)) (bash's arithmetic yields an integer) and ${#x}.
func numericWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Trim(p.Value, "0123456789-") != "" {
				return false
			}
		case *syntax.ArithmExp:
		case *syntax.ParamExp:
			if !p.Length || p.Exp != nil || p.Repl != nil || p.Slice != nil {
				return false
			}
		default:
			return false
		}
	}
	return len(w.Parts) > 0
}

func (a *analyzer) recordValue(name string, v arg) {
	if !v.static || strings.ContainsAny(v.val, "[$`") {
		a.taint(name)
		return
	}
	if vals := a.facts.values[name]; !slices.Contains(vals, v.val) && len(vals) < 16 {
		a.facts.values[name] = append(vals, v.val)
	} else if len(vals) >= 16 {
		a.taint(name)
	}
}

func (a *analyzer) taint(name string) {
	if name != "" {
		a.facts.tainted[name] = true
	}
}

// decl judges export, declare, typeset, local and readonly.
func (s *scriptCtx) decl(d *syntax.DeclClause) {
	variant := d.Variant.Value
	exported := variant == "export"
	integer, nameref, funcs := false, false, false
	var assigns []*syntax.Assign
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			w := wordArg(as.Value)
			if !w.static {
				s.modify(d, variant+" with an argument computed at run time may declare anything, so planq cannot tell what it does")
				return
			}
			if strings.HasPrefix(w.val, "-") || strings.HasPrefix(w.val, "+") {
				if w.val[0] == '-' {
					exported = exported || strings.Contains(w.val, "x")
					integer = integer || strings.Contains(w.val, "i")
					nameref = nameref || strings.Contains(w.val, "n")
					funcs = funcs || strings.ContainsAny(w.val, "fF")
				}
				continue
			}
			// A static word that is not a name=value the parser split: it
			// may hold a subscript, which bash evaluates.
			if name, _, _ := strings.Cut(w.val, "="); strings.Contains(name, "[") {
				if why := s.a.subscriptCode(name); why != "" {
					s.modify(d, variant+" "+why)
					return
				}
			}
			continue
		}
		assigns = append(assigns, as)
	}
	if funcs {
		return // declare -f NAME prints a function
	}
	if nameref {
		s.modify(d, variant+" -n makes a name refer to another variable, so planq cannot tell which variables the command sets")
		return
	}
	if integer {
		for _, as := range assigns {
			if as.Name != nil {
				s.a.facts.integers[as.Name.Value] = true
			}
			if as.Value != nil {
				if why := s.a.arithWord(as.Value, 0); why != "" {
					s.modify(d, variant+" -i evaluates the value as arithmetic, and "+why)
					return
				}
			}
		}
	}
	s.assignments(d, assigns, false, exported)
}

// loopVar records a for loop's variable, and judges it as an assignment.
func (s *scriptCtx) loopVar(w *syntax.WordIter) {
	name := w.Name.Value
	if dangerousVar(name) {
		s.modify(w, "the loop sets "+name+", which changes what bash or the programs it starts run or load")
		return
	}
	if len(w.Items) == 0 {
		s.a.taint(name) // for x; do: the positional parameters
	}
	for _, it := range w.Items {
		s.a.recordValue(name, wordArg(it))
	}
}

// setsVar judges a builtin that assigns a variable named by a word (read,
// printf -v, getopts, mapfile): the name must be static, not one that
// changes what runs, and any subscript in it is evaluated as arithmetic.
func (c *cmdCtx) setsVar(builtin string, w arg) outcome {
	if !w.static {
		return outcome{mod: true, reason: builtin + " assigns a variable whose name is computed at run time"}
	}
	name, _, hasSub := strings.Cut(w.val, "[")
	if hasSub {
		if why := c.a.subscriptCode(w.val); why != "" {
			return outcome{mod: true, reason: builtin + " " + why}
		}
	}
	if dangerousVar(name) {
		return outcome{mod: true, reason: builtin + " sets " + name + ", which changes what bash or the programs it starts run or load"}
	}
	c.a.taint(name)
	return outcome{}
}

// arith flags arithmetic that runs code: bash expands $(…) in it, and
// evaluates the text of the variables it names, recursively, as arithmetic
// — so a variable holding a[$(cmd)] runs cmd.
func (s *scriptCtx) arith(n syntax.Node, x syntax.ArithmExpr) {
	if why := s.a.arithExpr(x, 0); why != "" {
		s.modify(n, "arithmetic "+why)
	}
}

func (a *analyzer) arithExpr(x syntax.ArithmExpr, depth int) string {
	if depth > 64 {
		return "nests too deep for planq to read"
	}
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		if x.Op >= syntax.Assgn && x.Op <= syntax.PowAssgn {
			if w, ok := x.X.(*syntax.Word); ok {
				if name := w.Lit(); dangerousVar(name) {
					return "sets " + name + ", which changes what bash or the programs it starts run or load"
				}
			}
		}
		if why := a.arithExpr(x.X, depth+1); why != "" {
			return why
		}
		return a.arithExpr(x.Y, depth+1)
	case *syntax.UnaryArithm:
		return a.arithExpr(x.X, depth+1)
	case *syntax.ParenArithm:
		return a.arithExpr(x.X, depth+1)
	case *syntax.FlagsArithm:
		return "uses zsh arithmetic flags"
	case *syntax.Word:
		return a.arithWord(x, 0)
	}
	return ""
}

// arithWord judges a word evaluated as arithmetic.
func (a *analyzer) arithWord(w *syntax.Word, depth int) string {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if why := a.arithText(p.Value, depth); why != "" {
				return why
			}
		case *syntax.SglQuoted:
			if why := a.arithText(p.Value, depth); why != "" {
				return why
			}
		case *syntax.DblQuoted:
			if why := a.arithWord(&syntax.Word{Parts: p.Parts}, depth+1); why != "" {
				return why
			}
		case *syntax.ParamExp:
			if why := a.arithParam(p, depth); why != "" {
				return why
			}
		case *syntax.CmdSubst:
			if !numericSubst(p) {
				return "uses the output of a command substitution as arithmetic, which bash evaluates as code"
			}
		case *syntax.ProcSubst:
			return "uses a process substitution as arithmetic"
		case *syntax.ArithmExp:
			if why := a.arithExpr(p.X, depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// arithParam judges $name, ${name…} in arithmetic.
func (a *analyzer) arithParam(p *syntax.ParamExp, depth int) string {
	if p.Param == nil {
		return "uses an expansion planq cannot read"
	}
	name := p.Param.Value
	if p.Length {
		return "" // ${#x} is a number
	}
	if p.Excl {
		return "uses ${!" + name + "}, whose value names another variable"
	}
	if p.Index != nil {
		if why := a.arithExpr(p.Index, depth+1); why != "" {
			return why
		}
	}
	if p.Exp != nil || p.Repl != nil || p.Slice != nil {
		return "uses ${" + name + "…} with an operation, whose value planq cannot see"
	}
	return a.varArith(name, depth)
}

// varArith judges evaluating the variable name as arithmetic.
func (a *analyzer) varArith(name string, depth int) string {
	switch {
	case name == "#" || name == "?" || name == "$" || name == "!" || name == "-" || name == "0":
		return ""
	case name == "@" || name == "*" || name[0] >= '1' && name[0] <= '9':
		return "evaluates the positional parameter $" + name + ", whose text planq cannot see"
	case slices.Contains([]string{"RANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS", "SRANDOM", "OPTIND", "COLUMNS", "LINES"}, name):
		return ""
	}
	if a.facts.tainted[name] {
		return "evaluates $" + name + ", whose value may hold code (it comes from a command, a read, a loop, or holds a subscript or substitution), and bash evaluates that text as arithmetic"
	}
	// Each variable is judged once per pass; a variable whose evaluation
	// comes back to itself makes bash stop with an error.
	if why, ok := a.varMemo[name]; ok {
		return why
	}
	if a.varMemo == nil {
		a.varMemo = map[string]string{}
	}
	a.varMemo[name] = ""
	why := ""
	for _, v := range a.facts.values[name] {
		if why = a.arithText(v, depth+1); why != "" {
			break
		}
	}
	a.varMemo[name] = why
	return why
}

// arithText judges the text of an arithmetic expression.
func (a *analyzer) arithText(t string, depth int) string {
	a.step(1 + len(t)/64)
	if strings.Contains(t, "$(") || strings.Contains(t, "`") || strings.Contains(t, "<(") || strings.Contains(t, ">(") {
		return "contains a command substitution, which bash runs"
	}
	if strings.Contains(t, "${") {
		return "contains an expansion planq cannot read"
	}
	for i := 0; i < len(t); {
		ch := t[i]
		switch {
		case ch == '$':
			j := i + 1
			if j < len(t) && (t[j] >= '1' && t[j] <= '9' || t[j] == '@' || t[j] == '*') {
				return "evaluates a positional parameter, whose text planq cannot see"
			}
			i = j
		case isIdentStart(ch):
			j := i
			for j < len(t) && (isIdentStart(t[j]) || t[j] >= '0' && t[j] <= '9') {
				j++
			}
			if i > 0 && (t[i-1] >= '0' && t[i-1] <= '9' || t[i-1] == '#') {
				i = j // a digit in a number: 0x1f, 16#ff
				continue
			}
			if why := a.varArith(t[i:j], depth+1); why != "" {
				return why
			}
			i = j
		default:
			i++
		}
	}
	return ""
}

// subscriptCode judges a name with a subscript (a[…]) that a builtin
// evaluates: unset, read, printf -v, test -v, declare.
func (a *analyzer) subscriptCode(w string) string {
	_, sub, ok := strings.Cut(w, "[")
	if !ok {
		return ""
	}
	if why := a.arithText(sub, 0); why != "" {
		return "evaluates the subscript in " + w + ", which " + why
	}
	return ""
}

// paramExp flags expansions that run the text of a value: ${x@P} expands
// it as a prompt (command substitutions included), ${!x} uses the value
// as a name (with a subscript, evaluated), ${x:=v} assigns, and subscripts
// and ${x:off:len} are arithmetic.
func (s *scriptCtx) paramExp(p *syntax.ParamExp) {
	a := s.a
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.OtherParamOps:
			if p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
				s.modify(p, "${"+name+"@P} expands the value as a prompt, which runs the command substitutions in it")
				return
			}
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if dangerousVar(name) {
				s.modify(p, "${"+name+":=…} sets "+name+", which changes what bash or the programs it starts run or load")
				return
			}
			if p.Exp.Word != nil {
				a.recordValue(name, wordArg(p.Exp.Word))
			}
		}
	}
	if p.Excl && p.Names == 0 && p.Index == nil {
		if why := a.varArith(name, 0); why != "" && !isSpecialParam(name) {
			s.modify(p, "${!"+name+"} uses the value of "+name+" as a variable name, and "+why)
			return
		}
		if isSpecialParam(name) && name != "#" && name != "?" && name != "$" && name != "!" && name != "0" {
			s.modify(p, "${!"+name+"} uses a parameter's text as a variable name, which bash may evaluate as code")
			return
		}
	}
	if p.Index != nil && p.Dollar.IsValid() {
		if why := a.arithExpr(p.Index, 0); why != "" {
			s.modify(p, "the subscript of ${"+name+"[…]} "+why)
			return
		}
	}
	if p.Slice != nil {
		for _, x := range []syntax.ArithmExpr{p.Slice.Offset, p.Slice.Length} {
			if x != nil {
				if why := a.arithExpr(x, 0); why != "" {
					s.modify(p, "the offset in ${"+name+":…} is arithmetic, and "+why)
					return
				}
			}
		}
	}
}

func isSpecialParam(name string) bool {
	return name != "" && !isIdentStart(name[0])
}

// testExpr judges [[ … ]]: the operands of -eq, -lt… are arithmetic, and
// -v evaluates a subscript.
func (s *scriptCtx) testExpr(n syntax.Node, x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
			for _, y := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := y.(*syntax.Word); ok {
					if why := s.a.arithWord(w, 0); why != "" {
						s.modify(n, "[[ … ]] compares numbers by evaluating the operands as arithmetic, and "+why)
						return
					}
				}
			}
		}
		s.testExpr(n, x.X)
		s.testExpr(n, x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if w, ok := x.X.(*syntax.Word); ok {
				v := wordArg(w)
				if !v.static {
					s.modify(n, "[[ -v ]] with a name computed at run time may evaluate a subscript")
					return
				}
				if why := s.a.subscriptCode(v.val); why != "" {
					s.modify(n, "[[ -v ]] "+why)
					return
				}
			}
		}
		s.testExpr(n, x.X)
	case *syntax.ParenTest:
		s.testExpr(n, x.X)
	}
}

// numericSubstWord reports whether a word is one command substitution whose
// output is a number.
func numericSubstWord(w *syntax.Word) bool {
	if len(w.Parts) == 1 {
		if cs, ok := w.Parts[0].(*syntax.CmdSubst); ok {
			return numericSubst(cs)
		}
		if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
			if cs, ok := dq.Parts[0].(*syntax.CmdSubst); ok {
				return numericSubst(cs)
			}
		}
	}
	return false
}

// numericSubst reports whether a command substitution prints only a count:
// its last command is wc counting standard input, or grep -c on at most one
// file. Its output is digits, so evaluating it as arithmetic runs nothing.
func numericSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	st := cs.Stmts[0]
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		if b.Op != syntax.Pipe {
			return false
		}
		st = b.Y
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 {
		return false
	}
	for _, r := range st.Redirs {
		if r.Op != syntax.RdrIn && !(r.Op == syntax.DplOut || r.Op == syntax.RdrOut) {
			return false
		}
	}
	args := make([]arg, len(call.Args))
	for i, w := range call.Args {
		args[i] = wordArg(w)
		if !args[i].static {
			return false
		}
	}
	switch args[0].val {
	case "wc":
		for _, a := range args[1:] {
			if !slices.Contains([]string{"-l", "-c", "-w", "-m", "--lines", "--bytes", "--words", "--chars"}, a.val) {
				return false // a file operand would print its name too
			}
		}
		return len(args) == 2
	case "grep", "egrep", "fgrep":
		count, operands := false, 0
		for _, a := range args[1:] {
			switch {
			case a.val == "-c" || a.val == "--count":
				count = true
			case strings.HasPrefix(a.val, "-") && strings.ContainsAny(strings.TrimPrefix(a.val, "-"), "HrRZ") && !strings.HasPrefix(a.val, "--"):
				return false
			case strings.HasPrefix(a.val, "--with-filename") || strings.HasPrefix(a.val, "--recursive") || strings.HasPrefix(a.val, "--null"):
				return false
			case strings.HasPrefix(a.val, "-") && len(a.val) > 1:
				count = count || !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, "c")
			default:
				operands++
			}
		}
		return count && operands >= 1 && operands <= 2
	}
	return false
}
