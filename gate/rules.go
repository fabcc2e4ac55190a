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
	goFlags  bool     // flags are single-dash words (-name, -coverprofile=x), never clusters
	valued   []string // flags that take a value ("-o", "--output")
	modFlags []string // flags that make the command modify (a valued one unless to /dev/null)
	flagWhy  string   // what a modifying flag does; default "writes files"
	roFlags  []string // flags that make the command read-only (unless a modFlag is there too)
	posMod   int      // with at least this many positional arguments the command modifies
	subs     map[string]*rule
	noSub    *rule                                                     // rule when no subcommand is given; default: this rule's own flags
	anySub   *rule                                                     // rule for subcommands not in subs; default: the unknown policy
	jj       string                                                    // for git: the jj way to do what this history-rewriting command does
	check    func(c *cmdCtx, name string, args []arg, r *rule) outcome // custom judgement
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
	return r.evalFlags(name, args)
}

// evalSub finds the subcommand (the first positional argument) and judges
// the rest of the arguments under its rule.
func (r *rule) evalSub(c *cmdCtx, name string, args []arg) outcome {
	flags, pos, rest := scan(args, r, true)
	if o, ok := r.flagOutcome(name, flags); ok {
		return o
	}
	if len(pos) == 0 {
		if r.noSub != nil {
			return r.noSub.eval(c, name, args)
		}
		if r.ro {
			return outcome{}
		}
		return outcome{mod: true, reason: name + " " + r.why}
	}
	sub := pos[0]
	full := name + " " + sub.raw
	sr, ok := r.subs[sub.val]
	if !ok || !sub.static {
		if r.anySub != nil {
			return r.anySub.eval(c, full, rest)
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
func (r *rule) evalFlags(name string, args []arg) outcome {
	flags, pos, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(name, flags); ok {
		return o
	}
	if r.posMod > 0 && len(pos) >= r.posMod {
		return outcome{mod: true, reason: name + " " + r.why}
	}
	if r.ro {
		return outcome{}
	}
	return outcome{mod: true, reason: name + " " + r.why}
}

// flagOutcome applies modFlags, then roFlags; ok says whether they decided.
// A modifying flag wins: git branch -r -d origin/x deletes.
func (r *rule) flagOutcome(name string, flags []flagArg) (outcome, bool) {
	for _, f := range flags {
		spec, ok := r.matchMod(f.name)
		if !ok {
			continue
		}
		if f.hasVal && r.isValued(spec) && f.val.static && safeTarget(f.val.val) {
			continue
		}
		why := r.flagWhy
		if why == "" {
			why = "writes files"
		}
		shown := f.name
		if f.hasVal {
			shown += " " + f.val.raw
		}
		return outcome{mod: true, reason: name + " " + shown + " " + why}, true
	}
	for _, f := range flags {
		if slices.Contains(r.roFlags, f.name) {
			return outcome{}, true
		}
	}
	return outcome{}, false
}

// matchMod finds the modifying flag spec that flag names. GNU long options
// may be abbreviated, so "--in-pl" counts as "--in-place".
func (r *rule) matchMod(flag string) (string, bool) {
	for _, spec := range r.modFlags {
		if spec == flag {
			return spec, true
		}
		if !r.goFlags && strings.HasPrefix(flag, "--") && len(flag) > 3 && strings.HasPrefix(spec, flag) {
			return spec, true
		}
	}
	return "", false
}

func (r *rule) isValued(flag string) bool { return slices.Contains(r.valued, flag) }

// isFlag reports whether a word is an option rather than an operand.
func isFlag(a arg) bool {
	return a.static && len(a.val) > 1 && a.val[0] == '-'
}

// scan splits args into flags and positional arguments. With stop it stops
// at the first positional argument and returns the words after it in rest.
// Flags are GNU style (-abc clusters, --long=value) unless r.goFlags.
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
			f := flagArg{name: name}
			if hasEq {
				f.val, f.hasVal = arg{val: val, raw: val, static: true}, true
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
// cannot see into.
func unknownOutcome(c *cmdCtx, reason string) outcome {
	if c.a.pol.PermissiveUnknown {
		return outcome{}
	}
	return outcome{mod: true, reason: reason + " (gate.unknown: strict)"}
}
