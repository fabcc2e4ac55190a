package gate

import (
	"slices"
	"strings"
)

// rule is what planq knows about one command (or subcommand): whether it
// reads or modifies, and which flags, arguments or subcommands change that.
// The tables in commands.go are made of rules; eval interprets them.
type rule struct {
	ro       bool     // read-only unless a flag, argument or check says otherwise
	why      string   // what the command does when it modifies ("deletes files")
	goFlags  bool     // flags are single-dash words (-name, -coverprofile=x), never clusters or abbreviations
	valued   []string // flags that take a value ("-o", "--output")
	modFlags []string // flags that make the command modify (a valued one unless to /dev/null or outside the project)
	flagWhy  string   // what a modifying flag does; default "writes files"
	roFlags  []string // flags that make the command read-only (unless a modFlag is there too)
	// long is the command's complete list of long options, when known: an
	// abbreviation (GNU getopt_long, git, argparse accept any unique
	// prefix) is resolved against it, and an ambiguous one is judged as the
	// most dangerous option it could be.
	long  []string
	exact bool // long options are never abbreviated (the tool refuses abbreviations)
	// dashStdout says a writing option's value - is standard output (curl
	// -o -); for most tools it is a file named -.
	dashStdout bool
	posMod     int // with at least this many positional arguments the command modifies
	subs       map[string]*rule
	noSub      *rule // rule when no subcommand is given; default: this rule's own flags
	anySub     *rule // rule for subcommands not in subs; default: the unknown policy
	jj         string
	// cfg says the command loads configuration or code from its working
	// directory (a repository's config, a Makefile, package.json scripts,
	// test files): it is trusted only when that directory is the project.
	cfg bool
	// sure says that what this rule judges modifying surely is: the
	// command writes into the project (the repository's .git or .jj, the
	// files it is given) or asks a process outside the OS sandbox to act
	// (a server: tmux, docker, sshd, systemd…). The gate denies such a
	// command while locked even where the sandbox could run it
	// (Verdict.Sure).
	sure bool
	// inPlace says the command, where it modifies, rewrites the files it
	// is given (sed -i, gofmt -w, black): it is sure when one of them is
	// in the project.
	inPlace bool
	check   func(c *cmdCtx, name string, args []arg, r *rule) outcome // custom judgement
	lazy    *lazyRule                                                 // a table entry built on first use (lookup)
}

// flagArg is one flag occurrence, with its value when it takes one.
type flagArg struct {
	name   string
	val    arg
	hasVal bool
}

// eval judges a command called name with arguments args under r.
func (r *rule) eval(c *cmdCtx, name string, args []arg) outcome {
	if r.check != nil {
		return r.check(c, name, args, r)
	}
	if r.subs != nil {
		return r.evalSub(c, name, args)
	}
	return r.evalFlags(c, name, args)
}

// evalSub finds the subcommand (the first positional argument) and judges
// the rest of the arguments under its rule.
func (r *rule) evalSub(c *cmdCtx, name string, args []arg) outcome {
	flags, pos, rest := scan(args, r, true)
	if o, ok := r.flagOutcome(c, name, flags); ok {
		return o
	}
	if len(pos) == 0 {
		if r.noSub != nil {
			return r.noSub.eval(c, name, args)
		}
		if r.ro {
			return outcome{}
		}
		return outcome{mod: true, sure: r.sure, reason: name + " " + r.why}
	}
	sub := pos[0]
	full := name + " " + sub.raw
	sr, ok := r.subs[sub.val]
	if !ok || !sub.static {
		if r.anySub != nil {
			o := r.anySub.eval(c, full, rest)
			if r.anySub.jj != "" && o.mod && o.git == nil {
				o.git = &GitRewrite{Command: full, JJ: r.anySub.jj}
			}
			return o
		}
		return unknownOutcome(c, "unknown subcommand "+full+" counts as modifying")
	}
	o := sr.eval(c, full, rest)
	if sr.jj != "" && o.mod {
		o.git = &GitRewrite{Command: full, JJ: sr.jj}
	}
	return o
}

// evalFlags judges a command by its flags and positional arguments.
func (r *rule) evalFlags(c *cmdCtx, name string, args []arg) outcome {
	flags, pos, _ := scan(args, r, false)
	o, ok := r.flagOutcome(c, name, flags)
	if !o.mod && len(r.modFlags) > 0 && c != nil {
		// A word known only at run time may be one of the options that
		// make the command write ($o holding -o, "$@" holding -i); after
		// -- it is an operand.
		opts := args
		if i := slices.IndexFunc(args, func(a arg) bool { return a.static && a.val == "--" }); i >= 0 {
			opts = args[:i]
		}
		_, before, _ := scan(opts, r, false)
		for _, p := range before {
			if c.a.mayBeOption(p) {
				return unknownOutcome(c, name+" "+p.raw+" is known only at run time, and may be an option that makes "+name+" write")
			}
		}
	}
	switch {
	case ok:
	case r.posMod > 0 && len(pos) >= r.posMod:
		o = outcome{mod: true, sure: r.sure, reason: name + " " + r.why}
	case r.ro:
		return outcome{}
	default:
		o = outcome{mod: true, sure: r.sure, reason: name + " " + r.why}
	}
	if o.mod && !o.sure && r.inPlace && c != nil {
		o.sure = c.a.anyInside(pos)
	}
	return o
}

// writesHere is the rule for a command that writes the files of the
// project it runs in (npm install, go mod tidy, cargo add): sure when it
// provably runs in the project and none of the options that send it
// elsewhere is given.
func writesHere(why string, elsewhere ...string) *rule {
	return &rule{why: why, check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		sure := c.inProject()
		for _, a := range args {
			if n, _, _ := strings.Cut(a.val, "="); a.static && slices.Contains(elsewhere, n) {
				sure = false
			}
		}
		return outcome{mod: true, sure: sure, reason: name + " " + why}
	}}
}

// anyInside reports whether one of the files named is provably in the
// project (writesInside).
func (a *analyzer) anyInside(files []arg) bool {
	for _, f := range files {
		if a.writesInside(f) {
			return true
		}
	}
	return false
}

// flagOutcome applies modFlags, then roFlags; ok says whether they decided.
// A modifying flag wins: git branch -r -d origin/x deletes. A valued
// modifying flag whose value is /dev/null, or a file provably outside the
// project, does not modify.
func (r *rule) flagOutcome(c *cmdCtx, name string, flags []flagArg) (outcome, bool) {
	for _, f := range flags {
		if !slices.Contains(r.modFlags, f.name) {
			continue
		}
		if f.hasVal && r.isValued(f.name) && f.val.static && (c != nil && (r.dashStdout && f.val.val == "-" || c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val))) {
			continue
		}
		if f.hasVal && !r.isValued(f.name) && f.val.static && (f.val.val == "false" || f.val.val == "0" || f.val.val == "no") {
			continue // --watch=false
		}
		why := r.flagWhy
		if why == "" {
			why = "writes files"
		}
		shown := f.name
		if f.hasVal {
			shown += " " + f.val.raw
		}
		sure := r.sure || c != nil && f.hasVal && r.isValued(f.name) && c.a.writesInside(f.val)
		return outcome{mod: true, sure: sure, reason: name + " " + shown + " " + why}, true
	}
	var off []string // --no-dry-run turns --dry-run off again
	for _, f := range r.roFlags {
		if strings.HasPrefix(f, "--") {
			off = append(off, "--no-"+f[2:])
		}
	}
	if lastOf(flags, r.roFlags, off) {
		return outcome{}, true
	}
	return outcome{}, false
}

// lastOf reports whether one of the flags on is given and not turned off
// by one of off after it (git add -n --no-dry-run adds).
func lastOf(flags []flagArg, on, off []string) bool {
	set := false
	for _, f := range flags {
		switch {
		case slices.Contains(on, f.name):
			set = true
		case slices.Contains(off, f.name):
			set = false
		}
	}
	return set
}

func (r *rule) isValued(flag string) bool { return slices.Contains(r.valued, flag) }

// resolveLong resolves a long option as the command will: an exact name,
// else the unique option it abbreviates. An ambiguous abbreviation is taken
// as the most dangerous option it could be (the command itself refuses it,
// but planq does not rely on that). Read-only options are resolved only
// against a complete list (r.long), so that a prefix of an option planq
// does not know never counts as read-only.
func (r *rule) resolveLong(name string) string {
	if r.goFlags || r.exact || !strings.HasPrefix(name, "--") || len(name) < 3 {
		return name
	}
	all := [][]string{r.modFlags, r.valued, r.long, r.roFlags}
	for _, l := range all {
		if slices.Contains(l, name) {
			return name
		}
	}
	var cands []string
	for i, l := range all {
		if i == 3 && r.long == nil {
			break
		}
		for _, o := range l {
			if strings.HasPrefix(o, "--") && strings.HasPrefix(o, name) && !slices.Contains(cands, o) {
				cands = append(cands, o)
			}
		}
	}
	if len(cands) == 0 {
		return name
	}
	for _, o := range cands {
		if slices.Contains(r.modFlags, o) {
			return o
		}
	}
	for _, o := range cands {
		if r.isValued(o) {
			return o
		}
	}
	if len(cands) == 1 || r.long != nil {
		for _, o := range cands {
			if !slices.Contains(r.roFlags, o) {
				return o
			}
		}
		return cands[0]
	}
	return name
}

// isFlag reports whether a word is an option rather than an operand.
func isFlag(a arg) bool {
	return a.static && len(a.val) > 1 && a.val[0] == '-'
}

// scan splits args into flags and positional arguments. With stop it stops
// at the first positional argument and returns the words after it in rest.
// Flags are GNU style (-abc clusters, --long=value, abbreviations) unless
// r.goFlags. A word planq cannot read that may be a flag is kept as a
// positional argument.
func scan(args []arg, r *rule, stop bool) (flags []flagArg, pos, rest []arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.static && a.val == "--" {
			if stop {
				if i+1 < len(args) {
					return flags, args[i+1 : i+2], args[i+2:]
				}
				return flags, nil, nil
			}
			pos = append(pos, args[i+1:]...)
			return flags, pos, nil
		}
		if !isFlag(a) {
			if stop {
				return flags, []arg{a}, args[i+1:]
			}
			pos = append(pos, a)
			continue
		}
		next := func() (arg, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return arg{}, false
		}
		v := a.val
		if r.goFlags || strings.HasPrefix(v, "--") {
			name, val, hasEq := strings.Cut(v, "=")
			if r.goFlags && strings.HasPrefix(name, "--") {
				name = name[1:]
			}
			name = r.resolveLong(name)
			f := flagArg{name: name}
			if hasEq {
				f.val, f.hasVal = arg{val: val, raw: val, static: true, glob: a.glob}, true
			} else if r.isValued(name) {
				f.val, f.hasVal = next()
			}
			flags = append(flags, f)
			continue
		}
		// A cluster of short flags; a valued one takes the rest of the word
		// or the next word.
		for j := 1; j < len(v); j++ {
			name := "-" + v[j:j+1]
			f := flagArg{name: name}
			if r.isValued(name) {
				if j+1 < len(v) {
					f.val, f.hasVal = arg{val: v[j+1:], raw: v[j+1:], static: true}, true
				} else {
					f.val, f.hasVal = next()
				}
				flags = append(flags, f)
				break
			}
			flags = append(flags, f)
		}
	}
	return flags, pos, nil
}

// hasFlag reports whether flags contain any of names.
func hasFlag(flags []flagArg, names ...string) bool {
	for _, f := range flags {
		if slices.Contains(names, f.name) {
			return true
		}
	}
	return false
}

// unknownOutcome applies the unknown-command policy to something planq
// cannot see into. Something unknown may also create links, so the script
// gets no credit for writing outside the project.
func unknownOutcome(c *cmdCtx, reason string) outcome {
	if c.a.pol.PermissiveUnknown {
		c.a.facts.links = true
		return outcome{}
	}
	return outcome{mod: true, unknown: true, reason: reason + " (gate.unknown: strict)"}
}

// helpOnly allows a known command (and known subcommands) asked only for
// its help or version: rm --help, git commit --help, jj squash -h. -h
// counts only after a subcommand, or where the rule lists it as read-only.
func helpOnly(name string, args []arg) (outcome, bool) {
	if len(args) == 0 {
		return outcome{}, false
	}
	last := args[len(args)-1]
	if !last.static || last.val != "--help" && last.val != "--version" && last.val != "-h" {
		return outcome{}, false
	}
	r, ok := lookup(name)
	if !ok {
		return outcome{}, false
	}
	for _, w := range args[:len(args)-1] {
		if !w.static || r.subs == nil {
			return outcome{}, false
		}
		sr, ok := r.subs[w.val]
		if !ok {
			return outcome{}, false
		}
		r = sr
	}
	if last.val == "-h" && len(args) == 1 && !slices.Contains(r.roFlags, "-h") {
		return outcome{}, false
	}
	if last.val == "-h" && (r.isValued("-h") || slices.Contains(r.modFlags, "-h")) {
		return outcome{}, false
	}
	return outcome{}, true
}
