package gate

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds the judgements a flag list cannot express: programs inside
// arguments (sed scripts, awk programs, find -exec, bash -c) and wrappers
// whose arguments are another command.

// sedCheck: sed modifies with -i, or when its script writes (w, s///w) or
// runs a command (e, s///e).
func sedCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(name, flags); ok && o.mod {
		return o
	}
	if hasFlag(flags, "--sandbox") { // GNU sed refuses w, e and r with --sandbox
		return outcome{}
	}
	var scripts []arg
	for _, f := range flags {
		switch f.name {
		case "-e", "--expression":
			scripts = append(scripts, f.val)
		case "-f", "--file":
			return outcome{mod: true, reason: name + " -f runs a sed script file planq does not read"}
		}
	}
	if len(scripts) == 0 && len(pos) > 0 {
		scripts = pos[:1]
	}
	for _, s := range scripts {
		if !s.static {
			return outcome{mod: true, reason: name + " runs a script computed at run time"}
		}
		if why := sedWrites(s.val); why != "" {
			return outcome{mod: true, reason: name + " script " + why}
		}
	}
	return outcome{}
}

// sedWrites reads a sed script and says what in it writes a file or runs a
// command, or "" when nothing does.
func sedWrites(s string) string {
	i, n := 0, len(s)
	skipBlank := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	toEOL := func() string {
		start := i
		for i < n && s[i] != '\n' {
			i++
		}
		return strings.TrimSpace(s[start:i])
	}
	// delimited skips a regex or replacement ending in the delimiter d.
	delimited := func(d byte) {
		for i < n && s[i] != d {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		i++
	}
	for i < n {
		for i < n && strings.IndexByte(" \t\n;", s[i]) >= 0 {
			i++
		}
		// Addresses: numbers, $, /regex/, \cregexc, first~step, ranges, !.
	addr:
		for i < n {
			switch ch := s[i]; {
			case ch >= '0' && ch <= '9', ch == '$', ch == ',', ch == '~', ch == '+', ch == ' ', ch == '\t', ch == '!':
				i++
			case ch == '/':
				i++
				delimited('/')
				for i < n && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			case ch == '\\' && i+1 < n:
				d := s[i+1]
				i += 2
				delimited(d)
			default:
				break addr
			}
		}
		if i >= n {
			break
		}
		cmd := s[i]
		i++
		switch cmd {
		case '#', ':', 'a', 'i', 'c', 'r', 'R':
			for i < n && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'b', 't', 'T', 'l', 'L', 'q', 'Q', 'v':
			for i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				i++
			}
		case 'w', 'W':
			skipBlank()
			if f := toEOL(); !safeTarget(f) {
				return "writes to " + f + " (w command)"
			}
		case 'e':
			return "runs a command (e command)"
		case 's', 'y':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return ""
			}
			d := s[i]
			i++
			delimited(d)
			delimited(d)
			if cmd == 'y' {
				continue
			}
			for i < n && strings.IndexByte(";\n}", s[i]) < 0 {
				switch s[i] {
				case 'e':
					return "runs the result as a command (s///e)"
				case 'w':
					i++
					skipBlank()
					if f := toEOL(); !safeTarget(f) {
						return "writes to " + f + " (s///w)"
					}
					continue
				}
				i++
			}
		}
		// Any other character is a one-letter command or an error sed reports.
	}
	return ""
}

// awkCheck: awk modifies with -i inplace, or when its program calls
// system(), pipes to or from a command, or redirects print to a file.
func awkCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	for _, f := range flags {
		switch f.name {
		case "-i", "--include", "-l", "--load":
			if !f.val.static || strings.HasPrefix(strings.TrimSpace(f.val.val), "inplace") {
				return outcome{mod: true, reason: name + " -i inplace edits files in place"}
			}
		case "-f", "--file", "-E", "--exec":
			return outcome{mod: true, reason: name + " " + f.name + " runs an awk program file planq does not read"}
		}
	}
	if len(pos) == 0 {
		return outcome{}
	}
	prog := pos[0]
	if !prog.static {
		return outcome{mod: true, reason: name + " runs a program computed at run time"}
	}
	if why := awkWrites(prog.val); why != "" {
		return outcome{mod: true, reason: name + " program " + why}
	}
	return outcome{}
}

// awkWrites scans an awk program, skipping strings, regular expressions and
// comments, and says what in it writes a file or runs a command.
func awkWrites(p string) string {
	n := len(p)
	operand := false // the previous token ends an operand, so '/' divides
	printDepth := -1 // paren depth at which the current print statement began
	depth := 0
	skipString := func(i int) int { // p[i] == '"'; returns the index after it
		for i++; i < n && p[i] != '"'; i++ {
			if p[i] == '\\' {
				i++
			}
		}
		return i + 1
	}
	for i := 0; i < n; {
		ch := p[i]
		switch {
		case ch == '#':
			for i < n && p[i] != '\n' {
				i++
			}
		case ch == '"':
			i = skipString(i)
			operand = true
		case ch == '/' && !operand:
			for i++; i < n && p[i] != '/'; i++ {
				switch p[i] {
				case '\\':
					i++
				case '[':
					for i++; i < n && p[i] != ']'; i++ {
					}
				}
			}
			i++
			operand = true
		case ch == '\n' || ch == ';' || ch == '{' || ch == '}':
			printDepth, operand = -1, false
			i++
		case ch == '(':
			depth++
			operand = false
			i++
		case ch == ')':
			depth--
			operand = true
			i++
		case ch == '|':
			if i+1 < n && p[i+1] == '|' {
				i += 2
				operand = false
				continue
			}
			return "pipes to or from a command (|)"
		case ch == '>' && printDepth >= 0 && depth == printDepth:
			i++
			if i < n && p[i] == '>' {
				i++
			}
			for i < n && (p[i] == ' ' || p[i] == '\t') {
				i++
			}
			if i < n && p[i] == '"' {
				end := skipString(i)
				if end <= n && safeTarget(p[i+1:end-1]) {
					i = end
					operand = true
					continue
				}
			}
			return "redirects print output to a file (>)"
		case isIdentStart(ch):
			j := i
			for j < n && (isIdentStart(p[j]) || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			word := p[i:j]
			i = j
			switch word {
			case "system":
				return "runs a command (system())"
			case "print", "printf":
				printDepth, operand = depth, false
			case "getline", "return", "in", "case", "do", "else":
				operand = false
			default:
				operand = true
			}
		case ch >= '0' && ch <= '9' || ch == '.':
			for i < n && (p[i] >= '0' && p[i] <= '9' || p[i] == '.' || p[i] == 'x' || p[i] >= 'a' && p[i] <= 'f' || p[i] >= 'A' && p[i] <= 'F') {
				i++
			}
			operand = true
		case ch == ' ' || ch == '\t' || ch == '\\':
			i++
		default:
			operand = ch == ']'
			i++
		}
	}
	return ""
}

func isIdentStart(ch byte) bool {
	return ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
}

// findCheck: find modifies with -delete or -fprint*, and with -exec and
// friends when the command it runs does.
func findCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			continue
		}
		switch a.val {
		case "-delete":
			return outcome{mod: true, reason: name + " -delete deletes files"}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) && args[i+1].static && safeTarget(args[i+1].val) {
				continue
			}
			return outcome{mod: true, reason: name + " " + a.val + " writes a file"}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].static && (args[j].val == ";" || args[j].val == "+")) {
				j++
			}
			if o := c.run(args[i+1 : j]); o.mod {
				o.reason = name + " " + a.val + ": " + o.reason
				return o
			}
			i = j
		}
	}
	return outcome{}
}

// teeCheck: tee writes every file it is given.
func teeCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	_, pos, _ := scan(args, r, false)
	for _, p := range pos {
		if !p.static || !safeTarget(p.val) {
			return outcome{mod: true, reason: name + " writes to " + p.raw}
		}
	}
	return outcome{}
}

// wgetCheck: wget writes the download unless it goes to stdout or nowhere.
func wgetCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, _, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(name, flags); ok {
		return o
	}
	toStdout := false
	for _, f := range flags {
		switch f.name {
		case "-O", "--output-document":
			toStdout = f.val.static && safeTarget(f.val.val)
		case "-o", "--output-file", "-a", "--append-output":
			if !f.val.static || !safeTarget(f.val.val) {
				return outcome{mod: true, reason: name + " " + f.name + " writes a log file"}
			}
		}
	}
	if toStdout {
		return outcome{}
	}
	return outcome{mod: true, reason: name + " downloads files"}
}

// tarCheck: tar lists (-t) and compares (-d) without writing; it writes when
// it creates, appends or extracts, except to or from stdout.
func tarCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if len(args) > 0 && args[0].static && args[0].val != "" && args[0].val[0] != '-' {
		// Old-style bundled options: tar xzf file.
		args = append([]arg{{val: "-" + args[0].val, raw: args[0].raw, static: true}}, args[1:]...)
	}
	r := &rule{valued: []string{"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b", "--blocking-factor",
		"-H", "--format", "-I", "--use-compress-program", "-K", "-N", "--newer", "-L", "--tape-length", "-F", "--info-script", "-V", "--label",
		"--exclude", "--transform", "--owner", "--group", "--mode", "--mtime"}}
	flags, _, _ := scan(args, r, false)
	var create, extract, toStdout, archiveStdout bool
	for _, f := range flags {
		switch f.name {
		case "-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete":
			create = true
		case "-x", "--extract", "--get":
			extract = true
		case "-O", "--to-stdout":
			toStdout = true
		case "-f", "--file":
			archiveStdout = f.val.static && safeTarget(f.val.val)
		}
	}
	switch {
	case extract && !toStdout:
		return outcome{mod: true, reason: name + " extracts files"}
	case create && !archiveStdout:
		return outcome{mod: true, reason: name + " writes an archive"}
	}
	return outcome{}
}

// pacmanCheck: pacman queries with -Q, -Ss, -Si, -Sl; anything else
// installs, removes or upgrades.
func pacmanCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	for _, a := range args {
		if !isFlag(a) || strings.HasPrefix(a.val, "--") {
			if a.static && (a.val == "--query" || a.val == "--version" || a.val == "--help") {
				return outcome{}
			}
			continue
		}
		letters := a.val[1:]
		switch {
		case strings.HasPrefix(letters, "Q"), letters == "V", letters == "h":
			return outcome{}
		case strings.HasPrefix(letters, "S") && strings.Trim(letters[1:], "silgpq") == "" && len(letters) > 1:
			return outcome{}
		}
		return outcome{mod: true, reason: name + " " + a.val + " " + whyInstalls}
	}
	return outcome{}
}

// shellCheck: a shell runs the code it is given: with -c, from a script
// file, or from stdin (a heredoc or here-string planq can read).
func shellCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, true)
	if hasFlag(flags, "--version", "--help", "-n", "--noexec") {
		return outcome{}
	}
	if hasFlag(flags, "-c") {
		if len(pos) == 0 {
			return outcome{}
		}
		return c.nested(pos[0], name+" -c")
	}
	if len(pos) > 0 && !(pos[0].static && pos[0].val == "-") {
		return unknownOutcome(c, name+" runs the script "+pos[0].raw+", which planq does not read")
	}
	if body, ok := stdinText(c.redirs); ok {
		return c.nested(body, name+" reading a here-document")
	}
	return outcome{mod: true, reason: name + " runs commands read from standard input"}
}

// stdinText returns the text a heredoc or here-string gives the command on
// its standard input.
func stdinText(redirs []*syntax.Redirect) (arg, bool) {
	var body arg
	found := false
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body, found = wordArg(r.Hdoc), true
		case syntax.WordHdoc:
			body, found = wordArg(r.Word), true
		case syntax.RdrIn:
			body, found = arg{}, false
		}
	}
	return body, found
}

// evalCheck: eval runs its arguments joined by spaces.
func evalCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	parts := make([]string, len(args))
	for i, a := range args {
		if !a.static {
			return outcome{mod: true, reason: "eval runs a command computed at run time"}
		}
		parts[i] = a.val
	}
	return c.nested(arg{val: strings.Join(parts, " "), static: true}, "eval")
}

// trapCheck: trap runs its first argument when the signal comes.
func trapCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if len(args) > 0 && args[0].static && args[0].val == "--" {
		args = args[1:]
	}
	if len(args) == 0 || args[0].static && (args[0].val == "-" || args[0].val == "" || args[0].val == "-l" || args[0].val == "-p") {
		return outcome{}
	}
	return c.nested(args[0], "trap")
}

// interpreterCheck: an interpreter given code (-c, -e), a script file or
// code on stdin may do anything; python -m MODULE is judged as the module.
func interpreterCheck(c *cmdCtx, name string, args []arg, r *rule, codeFlags []string, moduleFlag string) outcome {
	codeLetters := ""
	for _, f := range codeFlags {
		if len(f) == 2 {
			codeLetters += f[1:]
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !isFlag(a) {
			if a.static && a.val == "-" {
				break
			}
			return unknownOutcome(c, name+" runs the script "+a.raw+", which planq does not read")
		}
		v := a.val
		if v == "--" {
			if i+1 < len(args) {
				return unknownOutcome(c, name+" runs the script "+args[i+1].raw+", which planq does not read")
			}
			break
		}
		if slices.Contains(r.roFlags, v) {
			return outcome{}
		}
		if moduleFlag != "" && strings.HasPrefix(v, moduleFlag) {
			module := strings.TrimPrefix(v, moduleFlag)
			rest := args[i+1:]
			if module == "" && len(rest) > 0 {
				if !rest[0].static {
					return outcome{mod: true, reason: name + " -m runs a module named at run time"}
				}
				module, rest = rest[0].val, rest[1:]
			}
			return pythonModule(c, name, module, rest)
		}
		flagName, _, hasEq := strings.Cut(v, "=")
		if slices.Contains(codeFlags, flagName) {
			return outcome{mod: true, reason: name + " " + flagName + " runs code given on the command line"}
		}
		if strings.HasPrefix(v, "--") {
			if r.isValued(flagName) && !hasEq {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(codeLetters, v[j]) >= 0 {
				return outcome{mod: true, reason: name + " -" + v[j:j+1] + " runs code given on the command line"}
			}
			if r.isValued("-" + v[j:j+1]) {
				if j == len(v)-1 {
					i++
				}
				break
			}
		}
	}
	if _, ok := stdinText(c.redirs); ok {
		return outcome{mod: true, reason: name + " runs code from a here-document"}
	}
	return outcome{mod: true, reason: name + " runs code read from standard input"}
}

// pythonModule judges python -m MODULE ARGS.
func pythonModule(c *cmdCtx, name, module string, rest []arg) outcome {
	what, ok := pythonModules()[module]
	switch {
	case !ok:
		return unknownOutcome(c, name+" -m "+module+" runs a module planq does not know")
	case what == "":
		return outcome{}
	case strings.HasPrefix(what, "mod:"):
		return outcome{mod: true, reason: name + " -m " + module + " " + strings.TrimPrefix(what, "mod:")}
	case what == "pos2":
		r := &rule{ro: true, posMod: 2, why: "writes its second file argument"}
		return r.evalFlags(name+" -m "+module, rest)
	}
	return c.run(append([]arg{{val: what, raw: module, static: true}}, rest...))
}

// wrap describes a command that runs another command.
type wrap struct {
	valued    []string // flags that take a value
	ro        []string // flags with which no command runs (command -v)
	mod       []string // valued flags with which the wrapper itself writes a file (time -o)
	edit      []string // flags with which the wrapper edits files (sudo -e)
	str       []string // flags whose value is shell code (env -S, su -c)
	after     []string // flags after which the rest is the command (nix develop -c)
	direct    []string // with shellArgs: flags that make the arguments a plain command
	skip      int      // operands before the command (timeout's duration)
	assigns   bool     // leading NAME=value operands are environment (env)
	shellArgs bool     // the arguments are joined and run by a shell (watch)
	dflt      []string // command run when none is given (xargs: echo)
	noneIsMod string   // without a command it does this, which modifies
}

// wrapper builds the rule for a command that runs another command.
func wrapper(w wrap) *rule {
	r := &rule{ro: true, valued: slices.Concat(w.valued, w.str, w.mod)}
	r.check = func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		var cmd []arg
		cut := -1
		for i, a := range args {
			if a.static && slices.Contains(w.after, a.val) {
				cut = i
				break
			}
		}
		if cut >= 0 {
			args, cmd = args[:cut], args[cut+1:]
		}
		flags, pos, rest := scan(args, r, true)
		for _, f := range flags {
			switch {
			case slices.Contains(w.ro, f.name):
				return outcome{}
			case slices.Contains(w.edit, f.name):
				return outcome{mod: true, reason: name + " " + f.name + " " + whyEditor}
			case slices.Contains(w.mod, f.name) && !(f.val.static && safeTarget(f.val.val)):
				return outcome{mod: true, reason: name + " " + f.name + " writes a file"}
			case slices.Contains(w.str, f.name):
				return c.nested(f.val, name+" "+f.name)
			}
		}
		if cut < 0 {
			cmd = append(pos, rest...)
		}
		if w.shellArgs && !hasFlag(flags, w.direct...) {
			if len(cmd) == 0 {
				return outcome{}
			}
			parts := make([]string, len(cmd))
			for i, a := range cmd {
				if !a.static {
					return outcome{mod: true, reason: name + " runs a command computed at run time"}
				}
				parts[i] = a.val
			}
			return c.nested(arg{val: strings.Join(parts, " "), static: true}, name)
		}
		if w.assigns {
			for len(cmd) > 0 && isAssign(cmd[0]) {
				cmd = cmd[1:]
			}
		}
		cmd = cmd[min(w.skip, len(cmd)):]
		if len(cmd) == 0 {
			switch {
			case w.dflt != nil:
				for _, d := range w.dflt {
					cmd = append(cmd, arg{val: d, raw: d, static: true})
				}
			case w.noneIsMod != "":
				return outcome{mod: true, reason: name + " " + w.noneIsMod}
			default:
				return outcome{}
			}
		}
		return c.run(cmd)
	}
	return r
}

// isAssign reports whether a word is NAME=value.
func isAssign(a arg) bool {
	name, _, ok := strings.Cut(a.val, "=")
	if !a.static || !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !(isIdentStart(name[i]) || i > 0 && name[i] >= '0' && name[i] <= '9') {
			return false
		}
	}
	return true
}
