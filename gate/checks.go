package gate

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds the judgements a flag list cannot express: programs inside
// arguments (sed scripts, awk programs, find -exec, bash -c) and wrappers
// whose arguments are another command.

// findCheck: find modifies with -delete or -fprint* (unless to /dev/null
// or outside the project), and with -exec and friends when the command it
// runs does. The command of -exec ends at ";" or at a "+" right after "{}"
// (find -exec env -u + rm -rf x \; runs env -u + rm -rf x).
func findCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	inExpr, value := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			// A word known only at run time is fine as a starting point or
			// as a test's value (-name "$p"); in the expression it may be
			// -delete or -exec.
			if inExpr && !value && c.a.mayBeOption(a) {
				return unknownOutcome(c, name+" "+a.raw+" is known only at run time, and may be an action such as -delete")
			}
			value = false
			continue
		}
		value = slices.Contains(findValued, a.val)
		if strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" || a.val == ")" || a.val == "," {
			inExpr = true
		}
		switch a.val {
		case "-delete":
			return outcome{mod: true, sure: findInside(c, args), reason: name + " -delete deletes files"}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) && args[i+1].static && (c.a.safeTarget(args[i+1].val) || c.a.outsideWrite(args[i+1])) {
				i++
				if a.val == "-fprintf" {
					i++
				}
				continue
			}
			return outcome{mod: true, reason: name + " " + a.val + " writes a file"}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for ; j < len(args); j++ {
				x := args[j]
				if !x.static {
					continue
				}
				if x.val == ";" || x.val == "+" && j > i+1 && args[j-1].static && args[j-1].val == "{}" {
					break
				}
			}
			cmd := args[i+1 : j]
			if o := substitutedCode(name+" "+a.val, cmd); o.mod {
				return o
			}
			if o := c.run(cmd); o.mod {
				o.reason = name + " " + a.val + ": " + o.reason
				return o
			}
			i = j
		}
	}
	return outcome{}
}

// findInside reports whether every starting point of find is a path in
// the project (find . and find without one start in the working
// directory).
func findInside(c *cmdCtx, args []arg) bool {
	n := 0
	for _, a := range args {
		if !a.static || strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" {
			break
		}
		if !c.a.writesInside(a) {
			return false
		}
		n++
	}
	return n > 0 || c.inProject()
}

// findValued are find's tests and options that take a value.
var findValued = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-regextype", "-type", "-xtype",
	"-size", "-perm", "-user", "-group", "-uid", "-gid", "-newer", "-anewer", "-cnewer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
	"-maxdepth", "-mindepth", "-samefile", "-inum", "-links", "-lname", "-ilname", "-fstype", "-context", "-printf", "-used", "-files0-from",
	"-newerat", "-newerct", "-newermt", "-newerBt", "-newerma", "-newermm", "-D", "-O"}

// substitutedCode refuses a shell given code that contains {}: the file
// names substituted into it are read as shell code (a file named
// "$(rm -rf x)" runs rm).
func substitutedCode(who string, cmd []arg) outcome { return shellCodeHas(who, cmd, "{}") }

// shellCodeHas refuses a shell run with code (sh -c CODE) that contains
// repl, which the wrapper replaces with input, or that planq cannot read.
func shellCodeHas(who string, cmd []arg, repl string) outcome {
	if len(cmd) == 0 || !cmd[0].static {
		return outcome{}
	}
	if n, ok := commandName(cmd[0].val); !ok || !slices.Contains(shellNames, n) {
		return outcome{}
	}
	for i := 1; i < len(cmd); i++ {
		x := cmd[i]
		if !x.static || !strings.HasPrefix(x.val, "-") || x.val == "-" || x.val == "--" {
			return outcome{} // a script file or stdin: the input is data
		}
		if !strings.HasPrefix(x.val, "--") && strings.Contains(x.val, "c") {
			if i+1 < len(cmd) && (!cmd[i+1].static || strings.Contains(cmd[i+1].val, repl)) {
				return outcome{mod: true, reason: who + " substitutes its input into shell code, where a file name or line can run commands"}
			}
			return outcome{}
		}
	}
	return outcome{}
}

// fdCheck: fd runs a command for each result with -x/--exec or for all of
// them with -X/--exec-batch; the command runs to a ";" argument or the end.
func fdCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	for i, a := range args {
		if !a.static {
			continue
		}
		v, _, _ := strings.Cut(a.val, "=")
		isExec := v == "-x" || v == "-X" || strings.HasPrefix(v, "--ex") && strings.HasPrefix("--exec-batch", v)
		if !isExec && strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "xX") {
			isExec = true // a cluster ending in -x
		}
		if !isExec {
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].static && args[j].val == ";") {
			j++
		}
		cmd := args[i+1 : j]
		if len(cmd) == 0 {
			return outcome{mod: true, reason: name + " " + a.val + " runs a command planq cannot see"}
		}
		if o := substitutedCode(name+" "+a.val, cmd); o.mod {
			return o
		}
		if o := c.run(cmd); o.mod {
			o.reason = name + " " + a.val + ": " + o.reason
			return o
		}
	}
	return r.evalFlags(c, name, args)
}

// wgetCheck: wget writes the download unless it goes to stdout, nowhere, or
// outside the project; -e and --config run wgetrc commands planq does not
// judge.
func wgetCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	for _, f := range flags {
		if (f.name == "-i" || f.name == "--input-file") && !(f.val.static && f.val.val == "/dev/null") {
			return asks(name+" "+f.name, "the servers named in a list planq does not read (this machine's too)")
		}
	}
	if o, ok := urlServers(name, pos); ok {
		return o
	}
	if o, ok := r.flagOutcome(c, name, flags); ok {
		return o
	}
	toStdout := false
	for _, f := range flags {
		switch f.name {
		case "-O", "--output-document":
			toStdout = f.val.static && (f.val.val == "-" || c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val)) // wget -O - is stdout
		case "-P", "--directory-prefix":
			toStdout = f.val.static && c.a.outsideWrite(f.val)
		case "-o", "--output-file", "-a", "--append-output":
			if !f.val.static || !(c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val)) {
				return outcome{mod: true, reason: name + " " + f.name + " writes a log file"}
			}
		case "-e", "--execute", "--config":
			return outcome{mod: true, reason: name + " " + f.name + " runs wgetrc commands, which may write anywhere"}
		}
	}
	if toStdout {
		return outcome{}
	}
	return outcome{mod: true, reason: name + " downloads files"}
}

// tarLong is GNU tar's long options, for resolving abbreviations.
var tarLong = []string{
	"--append", "--catenate", "--concatenate", "--compare", "--create", "--delete", "--diff", "--extract", "--get", "--list",
	"--test-label", "--update", "--show-defaults", "--help", "--usage", "--version", "--to-stdout", "--to-command",
	"--checkpoint", "--checkpoint-action", "--use-compress-program", "--rsh-command", "--info-script", "--new-volume-script",
	"--file", "--directory", "--files-from", "--exclude-from", "--exclude", "--index-file", "--listed-incremental",
	"--remove-files", "--backup", "--suffix", "--verbose", "--gzip", "--gunzip", "--ungzip", "--bzip2", "--xz", "--lzip",
	"--lzma", "--lzop", "--zstd", "--compress", "--uncompress", "--auto-compress", "--absolute-names", "--keep-old-files",
	"--keep-newer-files", "--skip-old-files", "--overwrite", "--overwrite-dir", "--recursive-unlink", "--unlink-first",
	"--one-top-level", "--transform", "--xform", "--strip-components", "--wildcards", "--no-wildcards", "--anchored",
	"--format", "--owner", "--group", "--mode", "--mtime", "--numeric-owner", "--preserve-permissions", "--same-permissions",
	"--preserve-order", "--same-order", "--sort", "--totals", "--blocking-factor", "--record-size", "--label",
	"--multi-volume", "--tape-length", "--newer", "--after-date", "--newer-mtime", "--dereference", "--hard-dereference",
	"--null", "--no-null", "--verbatim-files-from", "--warning", "--quoting-style", "--show-transformed-names",
	"--show-stored-names", "--occurrence", "--sparse", "--ignore-failed-read", "--ignore-zeros", "--acls", "--xattrs",
	"--selinux", "--no-recursion", "--recursion", "--force-local", "--rmt-command", "--volno-file", "--exclude-vcs",
	"--exclude-caches", "--exclude-backups", "--exclude-tag", "--one-file-system", "--interactive", "--confirmation",
	"--check-links", "--seek", "--no-seek", "--full-time", "--utc", "--level", "--block-number", "--starting-file",
	"--delay-directory-restore", "--no-same-owner", "--same-owner", "--no-same-permissions", "--check-device",
	"--no-check-device", "--atime-preserve", "--mode", "--pax-option", "--posix", "--old-archive", "--portability",
}

// tarCheck: tar lists (-t) and compares (-d) without writing; it writes when
// it creates, appends, deletes or extracts, except to or from stdout, and
// runs programs with --to-command, --checkpoint-action=exec,
// --use-compress-program, --rsh-command and --info-script.
func tarCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if len(args) > 0 && args[0].static && args[0].val != "" && args[0].val[0] != '-' {
		// Old-style bundled options: tar xzf file.
		args = append([]arg{{val: "-" + args[0].val, raw: args[0].raw, static: true}}, args[1:]...)
	}
	r := &rule{long: tarLong, valued: []string{"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b", "--blocking-factor",
		"-H", "--format", "-I", "--use-compress-program", "-K", "--starting-file", "-N", "--newer", "--after-date", "-L", "--tape-length", "-F", "--info-script",
		"--new-volume-script", "-V", "--label", "--exclude", "--transform", "--xform", "--owner", "--group", "--mode", "--mtime", "--to-command",
		"--checkpoint-action", "--rsh-command", "--rmt-command", "--index-file", "-g", "--listed-incremental", "--suffix", "--strip-components",
		"--sort", "--record-size", "--quoting-style", "--occurrence", "--exclude-tag", "--level", "--warning", "--pax-option", "--volno-file"},
		modFlags: []string{"--to-command", "--use-compress-program", "-I", "--rsh-command", "--rmt-command", "-F", "--info-script", "--new-volume-script",
			"--index-file", "-g", "--listed-incremental", "--remove-files", "--volno-file"}}
	for _, a := range args {
		if !a.static {
			return outcome{mod: true, reason: name + " has an argument computed at run time"}
		}
	}
	flags, _, _ := scan(args, r, false)
	var create, extract, toStdout, archiveStdout bool
	var archive *arg
	dirSure := c.inProject() // where tar extracts: its working directory, or -C
	for _, f := range flags {
		switch f.name {
		case "--to-command", "--use-compress-program", "-I", "--rsh-command", "--rmt-command", "-F", "--info-script", "--new-volume-script":
			return outcome{mod: true, reason: name + " " + f.name + " runs a program"}
		case "--checkpoint-action":
			if v := f.val.val; !f.val.static || strings.Contains(v, "exec") {
				return outcome{mod: true, reason: name + " --checkpoint-action=" + v + " runs a program"}
			}
		case "--index-file", "-g", "--listed-incremental", "--volno-file":
			if !(f.val.static && (c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val))) {
				return outcome{mod: true, reason: name + " " + f.name + " writes a file"}
			}
		case "--remove-files":
			return outcome{mod: true, reason: name + " --remove-files deletes files"}
		case "-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete":
			create = true
		case "-x", "--extract", "--get":
			extract = true
		case "-O", "--to-stdout":
			toStdout = true
		case "-C", "--directory":
			dirSure = c.a.writesInside(f.val)
		case "-f", "--file":
			archive = &f.val
			archiveStdout = f.val.static && (f.val.val == "-" || c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val)) // tar -f - is stdout
			if f.val.static && (strings.Contains(f.val.val, ":") && !strings.HasPrefix(f.val.val, "/") && !hasFlag(flags, "--force-local")) {
				return outcome{mod: true, reason: name + " -f " + f.val.val + " names a remote archive, which tar reaches by running a program"}
			}
		}
	}
	switch {
	case extract && !toStdout:
		c.a.facts.links = true
		return outcome{mod: true, sure: dirSure, reason: name + " extracts files"}
	case create && !archiveStdout:
		return outcome{mod: true, sure: archive != nil && c.a.writesInside(*archive), reason: name + " writes an archive"}
	}
	return outcome{}
}

// tscCheck: tsc takes a boolean option's value as the next word: --noEmit
// false emits.
func tscCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	on := map[string]bool{} // the last value of each boolean read-only option
	var kept []arg
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static || !slices.Contains(r.roFlags, a.val) {
			kept = append(kept, a)
			continue
		}
		on[a.val] = true
		if i+1 < len(args) {
			switch n := args[i+1]; {
			case !n.static || n.val == "false":
				on[a.val] = false // off, or planq cannot tell
				i++
			case n.val == "true":
				i++
			}
		}
	}
	for f, set := range on {
		if set {
			kept = append(kept, staticArg(f))
		}
	}
	return r.evalFlags(c, name, kept)
}

// unzipCheck: unzip lists, tests or prints with -l, -t, -p…; otherwise it
// extracts into its working directory or the -d directory.
func unzipCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, _, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(c, name, flags); ok {
		return o
	}
	sure := c.inProject()
	for _, f := range flags {
		if f.name == "-d" {
			if f.val.static && c.a.outsideWrite(f.val) {
				return outcome{}
			}
			sure = c.a.writesInside(f.val)
		}
	}
	return outcome{mod: true, sure: sure, reason: name + " " + r.why}
}

// patchCheck: patch applies the patch to the files it names, in its
// working directory (or -d); with -o it writes that file instead — even
// with --dry-run, which GNU patch honours only for the files it patches.
func patchCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, false)
	if hasFlag(flags, "--help", "--version", "-v") {
		return outcome{}
	}
	for _, f := range flags {
		if f.name != "-o" && f.name != "--output" {
			continue
		}
		if f.val.static && (f.val.val == "-" || c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val)) { // patch -o - is stdout
			return outcome{}
		}
		return outcome{mod: true, sure: c.a.writesInside(f.val), reason: name + " " + f.name + " " + f.val.raw + " writes that file"}
	}
	if hasFlag(flags, "--dry-run", "-C", "--check") {
		return outcome{}
	}
	sure := c.inProject()
	for _, f := range flags {
		if f.name == "-d" || f.name == "--directory" {
			sure = c.a.writesInside(f.val)
		}
	}
	if len(pos) > 0 {
		sure = c.a.writesInside(pos[0]) // patch FILE PATCHFILE patches FILE
	}
	return outcome{mod: true, sure: sure, reason: name + " " + r.why}
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

// shellNames are the shells whose code planq reads with bash's grammar.
// Other shells (fish, zsh, csh, ksh, pwsh, nu, …) speak other languages:
// the code they are given is unknown.
var shellNames = []string{"bash", "sh", "dash", "rbash"}

// shellCheck: a shell runs the code it is given: with -c, from a script
// file, or from stdin (a heredoc or here-string planq can read).
func shellCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, pos, _ := scan(args, r, true)
	if hasFlag(flags, "--version", "--help") {
		return outcome{}
	}
	if hasFlag(flags, "-n", "--noexec") && !hasFlag(flags, "-c") && len(pos) > 0 {
		return outcome{} // syntax check of a script
	}
	if hasFlag(flags, "--rcfile", "--init-file") {
		return unknownOutcome(c, name+" reads a startup file planq does not read")
	}
	if hasFlag(flags, "-c") {
		if len(pos) == 0 {
			return outcome{}
		}
		if hasFlag(flags, "-n", "--noexec") {
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

// otherShell: shells planq does not read (their code is another language).
func otherShell(c *cmdCtx, name string, args []arg, r *rule) outcome {
	for _, a := range args {
		if a.static && (a.val == "--version" || a.val == "-version" || a.val == "--help" || a.val == "-v" && name == "nu") && len(args) == 1 {
			return outcome{}
		}
	}
	return unknownOutcome(c, name+" runs code in a language other than bash, which planq does not read")
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
	sawRO := false
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
		if slices.Contains(printsAndRuns[name], v) {
			sawRO = true // the flag decides only if no code follows
			continue
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
			return outcome{mod: true, sure: perlInPlace(c, name, args), reason: name + " " + flagName + " runs code given on the command line"}
		}
		if strings.HasPrefix(v, "--") {
			if r.isValued(flagName) && !hasEq {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(codeLetters, v[j]) >= 0 {
				return outcome{mod: true, sure: perlInPlace(c, name, args), reason: name + " -" + v[j:j+1] + " runs code given on the command line"}
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
	if sawRO {
		return outcome{}
	}
	return outcome{mod: true, reason: name + " runs code read from standard input"}
}

// perlInPlace reports whether perl -i (perl -pi -e CODE FILE…) edits a
// file in the project: the files after the code are rewritten.
func perlInPlace(c *cmdCtx, name string, args []arg) bool {
	if name != "perl" {
		return false
	}
	inPlace, code := false, false
	for _, a := range args {
		switch {
		case a.static && strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--"):
			inPlace = inPlace || strings.Contains(a.val, "i")
			code = code || strings.HasSuffix(a.val, "e") || strings.HasSuffix(a.val, "E")
		case code:
			code = false // the code itself
		case inPlace && c.a.writesInside(a):
			return true
		}
	}
	return false
}

// printsAndRuns are the interpreters' options that print (a version) and
// then go on to run the code given after them: lua -v -e CODE, ruby -v -e
// CODE run CODE.
var printsAndRuns = map[string][]string{"lua": {"-v"}, "luajit": {"-v"}, "ruby": {"-v", "-y", "--yydebug"}}

// pythonModule judges python -m MODULE ARGS.
func pythonModule(c *cmdCtx, name, module string, rest []arg) outcome {
	what, ok := pythonModules()[module]
	switch {
	case !ok:
		return unknownOutcome(c, name+" -m "+module+" runs a module planq does not know")
	case module == "pydoc" && slices.ContainsFunc(rest, func(a arg) bool { return !a.static || a.val == "-w" }):
		return outcome{mod: true, reason: name + " -m pydoc -w writes the module's HTML page"}
	case what == "":
		return outcome{}
	case strings.HasPrefix(what, "mod:"):
		return outcome{mod: true, reason: name + " -m " + module + " " + strings.TrimPrefix(what, "mod:")}
	case what == "pos2":
		r := &rule{ro: true, posMod: 2, why: "writes its second file argument"}
		return r.evalFlags(c, name+" -m "+module, rest)
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
	chdir     []string // flags that run the command in another directory (env -C)
	// shell: without a command the wrapper starts a shell, which reads its
	// commands from standard input (su, sudo -s, sudo -i).
	shell      bool
	shellFlags []string // flags that make it start a shell (sudo -s)
	repl       []string // flags whose value is a string replaced by input in the command (xargs -I)
	// appends says the wrapper appends words it reads to the command
	// (xargs without -I): they may be options (-i, -o FILE, -delete), so
	// only a command that writes nothing whatever it is given is judged by
	// the words planq sees.
	appends bool
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
		var chdir *arg // the command runs there (env -C)
		for _, f := range flags {
			switch {
			case slices.Contains(w.ro, f.name):
				return outcome{}
			case slices.Contains(w.edit, f.name):
				return outcome{mod: true, reason: name + " " + f.name + " " + whyEditor}
			case slices.Contains(w.mod, f.name) && !(f.val.static && (c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val))):
				return outcome{mod: true, reason: name + " " + f.name + " writes a file"}
			case slices.Contains(w.chdir, f.name):
				c.a.facts.cdAny = true
				chdir = &f.val
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
				n, v, _ := strings.Cut(cmd[0].val, "=")
				if val := staticArg(v); !c.a.harmlessAssign(n, val) {
					if dangerousVar(n) {
						return outcome{mod: true, reason: name + " " + cmd[0].raw + " sets " + n + ", which changes what the command runs or loads"}
					}
					if o := unknownOutcome(c, name+" "+cmd[0].raw+": "+n+" is not a variable planq knows to be harmless"); o.mod {
						return o
					}
				}
				cmd = cmd[1:]
			}
			if len(cmd) > 0 && !cmd[0].static {
				return outcome{mod: true, reason: name + " runs a command computed at run time"}
			}
		}
		for _, f := range flags {
			if slices.Contains(w.repl, f.name) {
				repl := f.val.val
				if !f.hasVal || repl == "" {
					repl = "{}"
				}
				if o := shellCodeHas(name+" "+f.name, cmd, repl); o.mod {
					return o
				}
			}
		}
		cmd = cmd[min(w.skip, len(cmd)):]
		if len(cmd) == 0 && (w.shell || hasFlag(flags, w.shellFlags...)) {
			return c.run([]arg{staticArg("sh")}) // a shell reading stdin (a heredoc planq judges)
		}
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
		if chdir != nil {
			saved := c.a.cwds
			if next, ok := c.a.cdTargets(*chdir, false); ok {
				c.a.cwds = next
			} else {
				c.a.cwds = nil
			}
			defer func() { c.a.cwds = saved }()
		}
		o := c.run(cmd)
		if o.mod || !w.appends || hasFlag(flags, w.repl...) || plainReader(cmd[0]) {
			return o
		}
		return unknownOutcome(c, name+" appends the words it reads to "+cmd[0].raw+", and they may be options that make it write")
	}
	return r
}

// plainReader reports whether a command reads whatever it is given: its
// rule has no option, operand, subcommand or check that could make it
// write (cat, grep, wc, ls).
func plainReader(a arg) bool {
	name, ok := commandName(a.val)
	if !a.static || !ok {
		return false
	}
	r, ok := lookup(name)
	return ok && r.ro && r.check == nil && r.subs == nil && r.anySub == nil && r.noSub == nil && len(r.modFlags) == 0 && r.posMod == 0 && !r.cfg
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

// lessCheck: less runs the commands given with +cmd (! runs a shell
// command, | pipes to one, s saves the input to a file) when it shows a
// terminal; planq does not count on there being none.
func lessCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	for _, a := range args {
		if !a.static || strings.HasPrefix(a.val, "+") && strings.ContainsAny(a.val, "!|s") {
			return outcome{mod: true, reason: name + " " + a.raw + " runs a command or saves the input to a file"}
		}
	}
	return r.evalFlags(c, name, args)
}

// curlCheck: besides its output flags, curl's -w can write a file
// (%output{file}).
func curlCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	if o, ok := curlServer(name, args, r); ok {
		return o
	}
	flags, pos, _ := scan(args, r, false)
	if hasFlag(flags, "-T", "--upload-file") {
		// Uploading to a file:// URL writes that file.
		for _, f := range flags {
			if f.name == "--url" {
				pos = append(pos, f.val)
			}
		}
		for _, u := range pos {
			if v := strings.ToLower(u.prefix); strings.HasPrefix(v, "file:") || !u.static && v == "" {
				p := arg{val: strings.TrimPrefix(strings.TrimPrefix(u.val, u.val[:min(len(u.val), 5)]), "//"), static: u.static}
				if !u.static || !c.a.outsideWrite(p) {
					return outcome{mod: true, sure: u.static && c.a.writesInside(p), reason: name + " -T uploads to " + u.raw + ", which writes that file"}
				}
			}
		}
	}
	for _, f := range flags {
		if (f.name == "-w" || f.name == "--write-out") && (!f.val.static || strings.Contains(f.val.val, "%output{")) {
			return outcome{mod: true, reason: name + " -w " + f.val.raw + " writes to a file"}
		}
	}
	return r.evalFlags(c, name, args)
}

// curlServer: curl pointed at a server on this machine — by a URL, by
// --resolve or --connect-to sending the connection here, through a proxy
// here, or over a unix socket — asks that server to act (servers.go).
func curlServer(name string, args []arg, r *rule) (outcome, bool) {
	flags, pos, _ := scan(args, r, false)
	for _, f := range flags {
		v := f.val
		switch f.name {
		case "--unix-socket", "--abstract-unix-socket":
			return asks(name+" "+f.name, "the server on that socket"), true
		case "-x", "--proxy", "--preproxy", "--socks4", "--socks4a", "--socks5", "--socks5-hostname":
			if h, ok := argHost(v, true); !ok || localHost(h) {
				return asks(name+" "+f.name+" "+v.raw, "the proxy on this machine"), true
			}
		case "--resolve", "--connect-to", "--dns-servers":
			if !v.static {
				return asks(name+" "+f.name+" "+v.raw, "a server planq cannot tell is not on this machine"), true
			}
			for _, h := range redirectedHosts(f.name, v.val) {
				if localHost(h) {
					return asks(name+" "+f.name+" "+v.raw, "the server on this machine"), true
				}
			}
		case "--url", "--expand-url":
			pos = append(pos, v)
		}
	}
	return urlServers(name, pos)
}

// redirectedHosts are the addresses a curl option sends connections to:
// --resolve HOST:PORT:ADDR[,ADDR…], --connect-to HOST:PORT:HOST2:PORT2
// (an empty HOST2 keeps the URL's host), --dns-servers ADDR[:PORT],….
func redirectedHosts(opt, v string) []string {
	var hosts []string
	split := func(s string) (string, string) { // one host[:port] or [v6]:port
		if strings.HasPrefix(s, "[") {
			h, rest, _ := strings.Cut(s[1:], "]")
			return h, strings.TrimPrefix(rest, ":")
		}
		h, rest, _ := strings.Cut(s, ":")
		return h, rest
	}
	switch opt {
	case "--resolve":
		v = strings.TrimPrefix(strings.TrimPrefix(v, "+"), "-")
		_, rest := split(v)
		_, addrs, _ := strings.Cut(rest, ":")
		for _, a := range strings.Split(addrs, ",") {
			hosts = append(hosts, strings.Trim(a, "[]"))
		}
	case "--connect-to":
		_, rest := split(v)
		_, rest, _ = strings.Cut(rest, ":")
		if h, _ := split(rest); h != "" {
			hosts = append(hosts, h)
		}
	case "--dns-servers":
		for _, a := range strings.Split(v, ",") {
			h, _ := split(a)
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// urlServers judges the URLs a client fetches: one on this machine (or one
// planq cannot read to the end of its host) asks the server there to act;
// scp:// and sftp:// go through sshd, wherever; file:// is a file, which
// the rules for files judge.
func urlServers(name string, urls []arg) (outcome, bool) {
	for _, u := range urls {
		v := u.val
		if !u.static {
			v = u.prefix
		}
		scheme, _, hasScheme := strings.Cut(v, "://")
		scheme = strings.ToLower(scheme)
		switch {
		case hasScheme && scheme == "file", !hasScheme && strings.HasPrefix(strings.ToLower(v), "file:"):
			continue
		case hasScheme && (scheme == "scp" || scheme == "sftp"):
			return asks(name+" "+u.raw, "sshd on the host it names (this one too)"), true
		}
		h, ok := argHost(u, true)
		if !ok {
			return asks(name+" "+u.raw, "a server planq cannot tell is not on this machine"), true
		}
		if localHost(h) {
			return asks(name+" "+u.raw, "the server on this machine"), true
		}
	}
	return outcome{}, false
}
