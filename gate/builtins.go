package gate

import (
	"path/filepath"
	"slices"
	"strings"
)

// Shell built-ins that define names, evaluate text or change where later
// commands run. Built-ins that only print or change nothing but the shell's
// own state are plain read-only rules in commands.go.

func builtinRules(t table) {
	t["alias"] = &rule{ro: true, check: aliasCheck}
	t["shopt"] = &rule{ro: true, check: shoptCheck}
	t["hash"] = &rule{ro: true, modFlags: []string{"-p"}, valued: []string{"-p", "-d"}, flagWhy: "makes a command name run another program"}
	t["enable"] = &rule{ro: true, modFlags: []string{"-f", "-n", "-d"}, valued: []string{"-f"}, flagWhy: "loads or disables shell built-ins, so a name may run something else"}
	t["complete"] = &rule{ro: true, modFlags: []string{"-C"}, valued: []string{"-C", "-F", "-A", "-G", "-W", "-X", "-P", "-S", "-o"}, flagWhy: "names a command to run for completion"}
	t["compgen"] = &rule{ro: true, modFlags: []string{"-C"}, valued: []string{"-C", "-F", "-A", "-G", "-W", "-X", "-P", "-S", "-o", "-V"}, flagWhy: "runs a command to generate completions"}
	t["bind"] = &rule{ro: true, modFlags: []string{"-x"}, valued: []string{"-x", "-m", "-q", "-u", "-r", "-f"}, flagWhy: "binds a key to a shell command"}
	mapfile := &rule{ro: true, valued: []string{"-d", "-n", "-O", "-s", "-u", "-C", "-c"}, check: mapfileCheck}
	t["mapfile"], t["readarray"] = mapfile, mapfile
	t["read"] = &rule{ro: true, valued: []string{"-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"}, check: readCheck}
	t["printf"] = &rule{ro: true, valued: []string{"-v"}, check: printfCheck}
	t["getopts"] = &rule{ro: true, check: getoptsCheck}
	t["unset"] = &rule{ro: true, check: unsetCheck}
	t["test"] = &rule{ro: true, check: testCheck}
	t["["] = t["test"]
	t["let"] = &rule{ro: true, check: letCheck}
	decl := &rule{ro: true, check: declCheck}
	for _, n := range []string{"declare", "typeset", "local", "readonly", "export"} {
		t[n] = decl
	}
	t["set"] = &rule{ro: true, check: setCheck}
	cd := &rule{ro: true, check: cdCheck}
	t["cd"], t["pushd"], t["popd"], t["chdir"] = cd, cd, cd, cd
	t["source"] = &rule{check: sourceCheck}
	t["."] = t["source"]
	t["history"] = &rule{ro: true, modFlags: []string{"-w", "-a"}, flagWhy: "writes the history file"}
	t["kill"] = &rule{why: "signals processes", roFlags: []string{"-l", "-L", "--list", "--table"}, valued: []string{"-s", "-n"}}
	t["fc"] = mod("runs commands from the shell history")
}

// aliasCheck: alias NAME=VALUE makes NAME run VALUE; alias alone or alias
// NAME prints.
func aliasCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if !a.static || strings.Contains(a.val, "=") {
			return outcome{mod: true, reason: name + " defines a command name that runs other text, so planq cannot tell what later commands do"}
		}
	}
	return outcome{}
}

// shoptCheck: shopt -s expand_aliases makes aliases apply; dotglob makes
// globs match dot files (planq then credits no glob with staying outside
// the project).
func shoptCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	set := false
	for _, a := range args {
		if !a.static {
			return outcome{mod: true, reason: name + " sets an option computed at run time"}
		}
		switch {
		case strings.HasPrefix(a.val, "-"):
			set = strings.Contains(a.val, "s") || set
		case a.val == "expand_aliases" && set:
			return outcome{mod: true, reason: name + " -s expand_aliases makes aliases apply, so a command name may run other text"}
		case a.val == "dotglob" || a.val == "extglob" || a.val == "nocaseglob" || a.val == "globstar":
			c.a.facts.dotglob = c.a.facts.dotglob || set && a.val == "dotglob"
		}
	}
	return outcome{}
}

// mapfileCheck: mapfile -C CALLBACK evaluates the callback for every line;
// the array it fills is a variable like any other.
func mapfileCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if hasFlag(flags, "-C") {
		return outcome{mod: true, reason: name + " -C evaluates a callback for every line it reads"}
	}
	if len(pos) > 0 {
		return c.setsVar(name, pos[len(pos)-1])
	}
	return outcome{}
}

func readCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	for _, f := range flags {
		if f.name == "-a" {
			if o := c.setsVar(name, f.val); o.mod {
				return o
			}
		}
	}
	for _, p := range pos {
		if o := c.setsVar(name, p); o.mod {
			return o
		}
	}
	return outcome{}
}

func printfCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			break
		}
		if a.val == "--" {
			break
		}
		if a.val == "-v" && i+1 < len(args) {
			return c.setsVar(name+" -v", args[i+1])
		}
		if strings.HasPrefix(a.val, "-v") {
			return c.setsVar(name+" -v", staticArg(a.val[2:]))
		}
	}
	return outcome{}
}

func getoptsCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if len(args) >= 2 {
		return c.setsVar(name, args[1])
	}
	return outcome{}
}

// unsetCheck: bash evaluates the subscript of unset 'a[…]'.
func unsetCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if o := c.nameSubscript(name, a); o.mod {
			return o
		}
	}
	return outcome{}
}

// nameSubscript judges a variable name given to a builtin (shown is the
// builtin as written) whose subscript bash evaluates: a name computed at run
// time, or a subscript holding code, modifies.
func (c *cmdCtx) nameSubscript(shown string, n arg) outcome {
	if !n.static {
		return outcome{mod: true, reason: shown + " with a name computed at run time may evaluate a subscript"}
	}
	if why := c.a.subscriptCode(n.val); why != "" {
		return outcome{mod: true, reason: shown + " " + why}
	}
	return outcome{}
}

// testCheck: test -v / [ -v ] evaluate a subscript in the name.
func testCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for i, a := range args {
		if a.static && (a.val == "-v" || a.val == "-R") && i+1 < len(args) {
			if o := c.nameSubscript(name+" -v", args[i+1]); o.mod {
				return o
			}
		}
	}
	return outcome{}
}

// letCheck: let (run as a command, through builtin or command) evaluates
// each argument as arithmetic.
func letCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if !a.static {
			return outcome{mod: true, reason: name + " evaluates text computed at run time as arithmetic"}
		}
		if why := c.a.arithText(a.val, 0); why != "" {
			return outcome{mod: true, reason: name + " " + why}
		}
	}
	return outcome{}
}

// declCheck: declare, export and friends run as commands (builtin export
// …), where bash cannot see the assignments until run time.
func declCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	exported := strings.HasSuffix(name, "export")
	integer := false
	for _, a := range args {
		if !a.static {
			return outcome{mod: true, reason: name + " with an argument computed at run time may declare anything"}
		}
		if strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "+") {
			if a.val[0] == '-' {
				if strings.Contains(a.val, "n") {
					return outcome{mod: true, reason: name + " -n makes a name refer to another variable"}
				}
				exported = exported || strings.Contains(a.val, "x")
				integer = integer || strings.Contains(a.val, "i")
			}
			continue
		}
		n, v, hasVal := strings.Cut(a.val, "=")
		if why := c.a.subscriptCode(n); why != "" {
			return outcome{mod: true, reason: name + " " + why}
		}
		base, _, _ := strings.Cut(n, "[")
		if hasVal && integer {
			if why := c.a.arithText(v, 0); why != "" {
				return outcome{mod: true, reason: name + " -i " + why}
			}
		}
		val := staticArg(v)
		switch {
		case exported && !c.a.exportSafe(base, val):
			return unknownOrDanger(c, base, "exporting "+base+" passes it to every program the command starts")
		case hasVal && dangerousVar(base) && !c.a.harmlessAssign(base, val):
			return outcome{mod: true, reason: name + " sets " + base + ", which changes what bash or the programs it starts run or load"}
		}
		if hasVal {
			c.a.recordValue(base, val)
		}
	}
	return outcome{}
}

func unknownOrDanger(c *cmdCtx, name, what string) outcome {
	if dangerousVar(name) {
		return outcome{mod: true, reason: what + ", and it changes what they run or load"}
	}
	return unknownOutcome(c, what+", and it is not a variable planq knows to be harmless")
}

// setCheck: set -a (allexport) exports every later assignment.
func setCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for i, a := range args {
		if !a.static {
			return outcome{mod: true, reason: name + " with options computed at run time"}
		}
		if a.val == "--" || !strings.HasPrefix(a.val, "-") {
			break
		}
		if a.val == "-o" && i+1 < len(args) && args[i+1].val == "allexport" || strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, "a") {
			c.a.facts.allexport = true
		}
	}
	return outcome{}
}

// cdCheck follows where the script goes, in order: the directories the
// shell may be in (a cd may fail or not run, except on the left of &&,
// where what follows needs it; one in a subshell is undone). A cd that stays in the project keeps the tools
// that load configuration from their working directory trusted; a cd
// elsewhere, or one planq cannot follow (computed, cd -, popd, home, .. in
// a loop) makes them unknown from there on — everywhere, when it is in a
// loop or a function. Any cd at all makes relative paths count as inside
// the project.
func cdCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	a := c.a
	a.facts.cdAny = true
	var target *arg
	for i := range args {
		x := args[i]
		if x.static && strings.HasPrefix(x.val, "-") && len(x.val) > 1 && x.val != "--" {
			continue // -P, -L, -e
		}
		if x.static && x.val == "--" {
			continue
		}
		target = &args[i]
		break
	}
	replaces, repeated := false, false
	if c.s != nil {
		replaces, repeated = c.s.cdReplaces(), c.s.repeated()
	}
	out := func() outcome {
		a.cwds = nil
		if repeated {
			a.facts.cdOut = true
		}
		return outcome{}
	}
	if name == "popd" || target == nil {
		return out()
	}
	next, ok := a.cdTargets(*target, repeated)
	if !ok {
		return out()
	}
	if !replaces {
		next = unionDirs(next, a.cwds) // it may fail, or not run
	}
	if len(next) > 8 {
		return out()
	}
	a.cwds = next
	return outcome{}
}

// cdTargets resolves where cd t may lead from each directory the shell may
// be in; ok is false when that is not provably inside the project. A
// relative cd with .. that may run more than once (in a loop or a
// function) is not followed.
func (a *analyzer) cdTargets(t arg, repeated bool) ([]string, bool) {
	if !t.static || t.glob || t.tilde || t.val == "-" || t.val == "" || strings.HasPrefix(t.val, "+") {
		return nil, false
	}
	up := slices.Contains(strings.Split(filepath.ToSlash(t.val), "/"), "..")
	if a.where.Root == "" {
		// Nothing to compare with: only a cd down from where the tool is.
		return nil, !isAbsPath(t.val) && !up
	}
	var bases []string
	switch {
	case isAbsPath(t.val):
		bases = []string{""}
	case up && repeated, a.cwds == nil:
		return nil, false
	default:
		bases = a.cwds
	}
	var out []string
	for _, b := range bases {
		// bash's cd cleans ".." as text (cd -L); cd -P and programs
		// that chdir follow links first: inside under both readings.
		rs, ok := a.readings(t.val, b)
		if !ok {
			return nil, false
		}
		for _, r := range rs {
			if !within(a.where.Root, r) {
				return nil, false
			}
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out, true
}

// cdInside reports whether cd to t (from the tool's directory) provably
// stays in the project.
func (a *analyzer) cdInside(t arg) bool {
	saved := a.cwds
	if a.where.Cwd != "" {
		a.cwds = []string{a.where.Cwd}
	}
	_, ok := a.cdTargets(t, true)
	a.cwds = saved
	return ok
}

// sourceCheck: source runs a file's commands in this shell. A virtualenv's
// activation script (…/bin/activate) only sets variables and a function,
// and is trusted when it is in the project (or somewhere planq would never
// let a command write), so `source .venv/bin/activate && pytest` works.
func sourceCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if len(args) == 0 {
		return outcome{}
	}
	f := args[0]
	if f.static && filepath.Base(f.val) == "activate" && filepath.Base(filepath.Dir(f.val)) == "bin" {
		if c.a.where.Root == "" || c.a.pathKind(f) == pathInside && !strings.HasPrefix(f.val, "/") && c.a.cwdTrusted() ||
			isAbsPath(f.val) && c.a.pathKind(f) != pathOutside {
			return outcome{}
		}
	}
	return unknownOutcome(c, name+" runs the commands in "+f.raw+", which planq does not read")
}
