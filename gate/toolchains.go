package gate

import (
	"slices"
	"strings"
)

// Language tool chains and package managers. Test and check runners only
// read the tree (investigating before declaring is the point); builds,
// installs, code generation and formatting write.

var goBuildValued = []string{"-o", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-C", "-mod", "-modfile", "-overlay",
	"-pgo", "-pkgdir", "-toolexec", "-buildmode", "-compiler", "-installsuffix", "-coverpkg", "-covermode", "-buildvcs", "-exec"}

func goRule() *rule {
	read := ro()
	goFlags := func(r *rule) *rule { r.goFlags = true; return r }
	modCmd := subsOf(map[string]*rule{
		"graph": read, "why": read, "verify": read, "help": read,
		"tidy": writesHere("changes go.mod and go.sum"), "vendor": writesHere("writes the vendor directory"), "init": writesHere("writes go.mod"),
		"edit": {goFlags: true, why: "edits go.mod", roFlags: []string{"-json", "-print"}},
	}, &rule{ro: true, anySub: mod("changes go.mod, go.sum or the vendor directory")})
	work := subsOf(map[string]*rule{
		"edit": {goFlags: true, why: "edits go.work", roFlags: []string{"-json", "-print"}},
	}, &rule{ro: true, anySub: writesHere("changes go.work")})
	return subsOf(map[string]*rule{
		"test":      {ro: true, check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome { return goTest(c, name, args, "go test") }},
		"vet":       goFlags(&rule{ro: true, valued: goBuildValued, modFlags: []string{"-vettool", "-toolexec", "-overlay", "-modfile", "-exec"}, flagWhy: "runs another program"}),
		"list":      goFlags(&rule{ro: true, valued: append([]string{"-f"}, goBuildValued...), modFlags: []string{"-toolexec", "-overlay", "-modfile", "-exec"}, flagWhy: "runs another program"}),
		"doc":       read,
		"version":   read,
		"help":      read,
		"bug":       read,
		"env":       goFlags(&rule{ro: true, modFlags: []string{"-w", "-u"}, flagWhy: "changes the go environment file"}),
		"tool":      {ro: true, check: goToolCheck},
		"build":     goFlags(&rule{why: "writes the compiled binary", valued: goBuildValued, check: goBuildCheck}),
		"install":   mod("builds and installs binaries"),
		"get":       writesHere("changes go.mod and go.sum"),
		"generate":  mod("runs code generators that write files"),
		"fmt":       writesHere("rewrites Go files"),
		"fix":       writesHere("rewrites Go files"),
		"clean":     mod(whyDeletes),
		"run":       mod("builds and runs a program planq cannot see into"),
		"mod":       modCmd,
		"work":      work,
		"telemetry": {ro: true, posMod: 1, why: "changes telemetry settings"},
	}, &rule{ro: true, cfg: true, goFlags: true, valued: []string{"-C"}, check: goTopCheck})
}

// goTopCheck judges go's own flags (go -C DIR) and then the subcommand.
func goTopCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	for i := 0; i+1 < len(args) && args[i].static && strings.HasPrefix(args[i].val, "-"); i++ {
		if args[i].val == "-C" || args[i].val == "--C" {
			if o := c.testPath(name, "-C", args[i+1]); o.mod {
				return o
			}
			if !c.a.cdInside(args[i+1]) {
				return unknownOutcome(c, name+" -C runs go in another directory")
			}
			i++
		} else if strings.HasPrefix(args[i].val, "-C=") {
			return unknownOutcome(c, name+" -C runs go in another directory")
		}
	}
	return r.evalSub(c, name, args)
}

var goTestValued = append([]string{"-run", "-bench", "-count", "-timeout", "-cpu", "-benchtime", "-fuzz", "-fuzztime", "-fuzzminimizetime",
	"-list", "-skip", "-shuffle", "-vet", "-parallel", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile",
	"-mutexprofile", "-trace", "-outputdir", "-memprofilerate", "-blockprofilerate", "-mutexprofilefraction"}, goBuildValued...)

// goTest judges go test (and the go test flags gotestsum passes on): the
// project's tests are read-only under gate.tests; writing a test binary,
// profiles or fuzz inputs, or running the tests through another program,
// modifies, except for files written outside the project. Flags go test
// does not know go to the test binary: -update, -golden… rewrite expected
// output.
func goTest(c *cmdCtx, name string, args []arg, entry string) outcome {
	if !c.a.testListed(entry) {
		return notListed(entry)
	}
	r := &rule{goFlags: true, valued: goTestValued,
		modFlags: []string{"-c", "-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir",
			"-fuzz", "-exec", "-toolexec", "-overlay", "-modfile", "-pkgdir", "-i"},
		flagWhy: "writes files (a test binary, a profile or fuzz inputs) or runs the tests through another program"}
	var binArgs []arg
	if i := slices.IndexFunc(args, func(a arg) bool { return a.static && (a.val == "-args" || a.val == "--args") }); i >= 0 {
		args, binArgs = args[:i], args[i+1:]
	}
	flags, pos, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(c, name, flags); ok && o.mod {
		return o
	}
	for _, f := range flags {
		base := strings.TrimPrefix(f.name, "-test.")
		switch {
		case strings.HasPrefix(f.name, "-test.") && slices.Contains(r.modFlags, "-"+base):
			if !(f.hasVal && f.val.static && (c.a.safeTarget(f.val.val) || c.a.outsideWrite(f.val))) {
				return outcome{mod: true, reason: name + " " + f.name + " " + r.flagWhy}
			}
		case f.name == "-mod" && f.val.val != "readonly" && f.val.val != "vendor":
			return outcome{mod: true, reason: name + " -mod=" + f.val.val + " may update go.mod and go.sum"}
		case f.name == "-ldflags" && (!f.val.static || strings.Contains(f.val.val, "extld") || strings.Contains(f.val.val, "linkmode") || strings.Contains(f.val.val, "tmpdir")):
			return outcome{mod: true, reason: name + " -ldflags " + f.val.raw + " may run another linker"}
		case f.name == "-compiler" || f.name == "-gccgoflags":
			return unknownOutcome(c, name+" "+f.name+" runs another compiler")
		case !slices.Contains(r.valued, f.name) && !slices.Contains(goTestBoolFlags, f.name) && updateFlag.MatchString(f.name):
			return outcome{mod: true, reason: name + " " + f.name + " tells the tests to rewrite their expected output"}
		case f.hasVal && !f.val.static:
			return unknownOutcome(c, name+" "+f.name+" has a value computed at run time")
		}
	}
	if o := goTestBinaryArgs(c, name, binArgs); o.mod {
		return o
	}
	return c.testOperands(name, pos, binArgs)
}

// goTestWrites are the test binary's flags that write a file.
var goTestWrites = []string{"cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "coverprofile", "outputdir", "testlogfile",
	"gocoverdir", "fuzzcachedir"}

// goTestBinaryArgs judges the words after go test -args, which go to the
// test binary: its -test.cpuprofile, -test.trace… write files.
func goTestBinaryArgs(c *cmdCtx, name string, binArgs []arg) outcome {
	for i, a := range binArgs {
		if !a.static {
			if strings.HasPrefix(a.prefix, "-") || a.prefix == "" {
				return unknownOutcome(c, name+" -args "+a.raw+" passes the test binary a flag computed at run time")
			}
			continue
		}
		flag, val, hasVal := strings.Cut(strings.TrimPrefix(a.val, "-"), "=")
		flag = strings.TrimPrefix(flag, "-")
		base, ok := strings.CutPrefix(flag, "test.")
		if !ok || !slices.Contains(goTestWrites, base) {
			continue
		}
		v := staticArg(val)
		if !hasVal {
			if i+1 >= len(binArgs) {
				continue
			}
			v = binArgs[i+1]
		}
		if !(v.static && (c.a.safeTarget(v.val) || c.a.outsideWrite(v))) {
			return outcome{mod: true, sure: c.a.writesInside(v), reason: name + " -args " + a.raw + " has the test binary write " + v.raw}
		}
	}
	return outcome{}
}

var goTestBoolFlags = []string{"-v", "-race", "-msan", "-asan", "-cover", "-failfast", "-short", "-benchmem", "-a", "-n", "-x", "-work", "-trimpath", "-linkshared", "-buildvcs"}

// goBuildCheck: go build writes a binary unless -o sends it nowhere.
func goBuildCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, _, _ := scan(args, r, false)
	var out *flagArg // the last -o wins
	for i := range flags {
		if flags[i].name == "-o" && flags[i].hasVal {
			out = &flags[i]
		}
	}
	if out != nil && out.val.static && (c.a.safeTarget(out.val.val) || c.a.outsideWrite(out.val)) {
		return outcome{}
	}
	for _, f := range flags {
		if slices.Contains([]string{"-toolexec", "-overlay", "-modfile", "-exec"}, f.name) {
			return outcome{mod: true, reason: name + " " + f.name + " runs another program"}
		}
	}
	return outcome{mod: true, sure: out != nil && c.a.writesInside(out.val), reason: name + " " + r.why}
}

// goToolCheck: go tool NAME is judged as NAME: the Go distribution's tools
// by what they do, others (tools from go.mod's tool block) by the tables.
func goToolCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	if len(args) == 0 {
		return outcome{}
	}
	t := args[0]
	if !t.static {
		return outcome{mod: true, reason: name + " runs a tool named at run time"}
	}
	switch t.val {
	case "nm", "objdump", "addr2line", "test2json", "dist", "doc", "trace", "vet":
		return outcome{}
	case "pprof":
		r := &rule{ro: true, goFlags: true, modFlags: []string{"-output", "-proto"}, valued: []string{"-output", "-http"}}
		return r.evalFlags(c, name+" pprof", args[1:])
	case "cover":
		r := &rule{ro: true, goFlags: true, modFlags: []string{"-o"}, valued: []string{"-o", "-html", "-func", "-mode", "-var", "-pkgcfg"}}
		return r.evalFlags(c, name+" cover", args[1:])
	case "fix", "compile", "link", "asm", "cgo", "covdata", "buildid", "pack", "preprofile":
		return outcome{mod: true, reason: name + " " + t.val + " writes files"}
	}
	return c.run(args)
}

func cargoRule() *rule {
	read := ro()
	build := mod(whyBuilds)
	runs := mod("builds and runs a program planq cannot see into")
	manifest := writesHere("changes Cargo.toml", "--manifest-path")
	// cargo tree, metadata and pkgid resolve the dependencies, and write
	// Cargo.lock when there is none; with --locked or --frozen they only
	// read it.
	lockReader := &rule{ro: true, check: func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		for _, a := range args {
			if a.static && (a.val == "--locked" || a.val == "--frozen" || a.val == "--help" || a.val == "-h") {
				return outcome{}
			}
		}
		return outcome{mod: true, reason: name + " writes Cargo.lock when there is none (with --locked it only reads)"}
	}}
	// cargo test, bench, check, clippy and nextest build the project and
	// run its build scripts and tests: gate.tests decides.
	cargoValued := []string{"-p", "--package", "--exclude", "-j", "--jobs", "--features", "-F", "--target", "--target-dir", "--manifest-path",
		"--profile", "--message-format", "--color", "--config", "-Z", "--bin", "--example", "--test", "--bench", "--lib-only", "--timings", "--lockfile-path",
		"--artifact-dir", "--out-dir"}
	cargoTest := func(entry string, extra ...string) *rule {
		return testRunner(runner{entry: entry, valued: cargoValued, passArgs: true,
			writes: append([]string{"--artifact-dir", "--out-dir", "--timings", "--lockfile-path"}, extra...),
			paths:  []string{"--manifest-path"}, runs: []string{"--config", "-Z"}})
	}
	clippy := cargoTest("cargo clippy", "--fix", "--allow-dirty", "--allow-staged")
	return subsOf(map[string]*rule{
		"test": cargoTest("cargo test"), "t": cargoTest("cargo test"), "bench": cargoTest("cargo bench"),
		"check": cargoTest("cargo check"), "c": cargoTest("cargo check"), "clippy": clippy,
		"nextest": subsOf(map[string]*rule{"run": cargoTest("cargo nextest"), "r": cargoTest("cargo nextest"), "list": cargoTest("cargo nextest"), "show-config": read},
			&rule{ro: true, anySub: mod(whyWrites)}),
		"tree": lockReader, "metadata": lockReader, "pkgid": lockReader,
		"search": read, "version": read, "help": read, "verify-project": read, "read-manifest": read, "locate-project": read, "deny": read, "outdated": read, "udeps": read, "expand": cargoTest("cargo check"),
		"llvm-cov": mod("writes coverage reports"),
		"fmt":      {why: "rewrites files", check: cargoFmtCheck},
		"audit":    subsOf(map[string]*rule{"fix": manifest}, &rule{ro: true}),
		"machete":  {ro: true, modFlags: []string{"--fix"}, flagWhy: "edits Cargo.toml"},
		"insta": subsOf(map[string]*rule{
			"test":              {ro: true, modFlags: []string{"--accept", "--review"}, flagWhy: "writes snapshots"},
			"pending-snapshots": read,
		}, &rule{ro: true, anySub: mod("writes snapshots")}),
		"doc": build, "build": build, "b": build, "rustc": build, "package": build,
		"run": runs, "r": runs,
		"install": mod(whyInstalls), "uninstall": mod(whyInstalls),
		"add": manifest, "remove": manifest, "rm": manifest, "upgrade": manifest,
		"update": writesHere("changes Cargo.lock", "--manifest-path"), "generate-lockfile": writesHere("writes Cargo.lock", "--manifest-path"),
		"new": {why: whyWrites, inPlace: true, valued: cargoValued}, "init": {why: whyWrites, inPlace: true, valued: cargoValued}, "publish": mod("publishes a crate"), "clean": mod(whyDeletes),
		"fix": writesHere("rewrites source files", "--manifest-path"), "vendor": writesHere(whyWrites, "--manifest-path"),
	}, &rule{ro: true, cfg: true, roFlags: []string{"--version", "-V", "--help", "-h", "--list"}, valued: []string{"-C", "--config", "-Z", "--color"},
		modFlags: []string{"-C", "--config", "-Z"}, flagWhy: "runs cargo elsewhere or with settings that can run programs"})
}

// cargoFmtCheck: cargo fmt rewrites files unless --check is given, before
// or after -- (cargo fmt -- --check passes it to rustfmt).
func cargoFmtCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	check := false
	for _, a := range args {
		if !a.static {
			return outcome{mod: true, reason: name + " has an argument computed at run time"}
		}
		switch a.val {
		case "--check":
			check = true
		case "--emit", "--emit=files", "--backup":
			return outcome{mod: true, reason: name + " " + a.val + " writes files"}
		}
		if strings.HasPrefix(a.val, "--emit") && !strings.HasSuffix(a.val, "stdout") {
			return outcome{mod: true, reason: name + " " + a.val + " writes files"}
		}
	}
	if check || len(args) > 0 && (args[0].val == "--help" || args[0].val == "--version") {
		return outcome{}
	}
	return outcome{mod: true, reason: name + " " + r.why}
}

func nodePMRules() (npm, yarn, pnpm, bun *rule) {
	read := ro()
	inst := writesHere(whyInstalls, "-g", "--global", "--location", "--prefix", "-C", "--dir", "--cwd")
	common := func(tool string) map[string]*rule {
		return map[string]*rule{
			"test": scriptRule(tool), "t": scriptRule(tool), "tst": scriptRule(tool), "ls": read, "list": read, "ll": read, "la": read, "view": read, "v": read,
			"info": read, "show": read, "outdated": read, "search": read, "help": read, "explain": read, "why": read,
			"doc": read, "docs": read, "bugs": read, "repo": read, "root": read, "bin": read, "prefix": read, "whoami": read,
			"ping": read, "fund": read, "query": read, "sbom": read, "diff": read, "licenses": read, "find-dupes": read,
			"completion": read, "help-search": read,
			"audit":  {ro: true, posMod: 1, why: "changes dependencies (audit fix)", modFlags: []string{"--fix"}, flagWhy: "changes dependencies"},
			"config": subsOf(map[string]*rule{"get": read, "list": read, "ls": read}, &rule{ro: true, anySub: mod("changes configuration")}),
			"run":    scriptRule(tool), "run-script": scriptRule(tool),
			"exec":  wrapper(wrap{valued: []string{"-p", "--package", "-w", "--workspace", "--filter"}, str: []string{"-c", "--call"}}),
			"dlx":   wrapper(wrap{valued: []string{"-p", "--package"}}),
			"x":     wrapper(wrap{valued: []string{"-p", "--package"}}),
			"start": scriptRule(tool), "restart": scriptRule(tool), "stop": scriptRule(tool),
			"install": inst, "i": inst, "add": inst, "a": inst, "ci": inst, "uninstall": inst, "remove": inst, "rm": inst, "r": inst,
			"un": inst, "unlink": inst, "update": inst, "up": inst, "upgrade": inst, "dedupe": inst, "ddp": inst, "prune": inst,
			"rebuild": inst, "link": inst, "ln": inst, "import": inst, "patch": inst, "patch-commit": inst,
			"init": writesHere(whyWrites, "-C", "--dir", "--cwd", "--prefix"), "create": mod(whyWrites),
			"publish":   mod("runs the package's lifecycle scripts (prepublishOnly, prepack, prepare), even with --dry-run, and publishes it"),
			"unpublish": mod("unpublishes a package"), "deprecate": mod("changes the registry"), "set-script": mod("changes package.json"),
			"pack": mod("runs the package's prepack and prepare scripts, even with --dry-run, and writes a tarball"),
			"version": {ro: true, posMod: 1, why: "bumps the version in package.json", check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
				o := r.evalFlags(c, name, args)
				o.sure = o.mod && c.inProject()
				return o
			}},
			"pkg":        subsOf(map[string]*rule{"get": read}, &rule{ro: true, anySub: writesHere("changes package.json", "-C", "--dir", "--cwd", "--prefix", "-g", "--global")}),
			"cache":      subsOf(map[string]*rule{"ls": read, "list": read, "dir": read, "verify": read}, &rule{ro: true, anySub: mod("changes the package cache")}),
			"build":      mod(whyBuilds),
			"workspace":  mod(whyScript),
			"workspaces": subsOf(map[string]*rule{"info": read, "list": read}, &rule{ro: true, anySub: mod(whyScript)}),
			"store":      subsOf(map[string]*rule{"path": read, "status": read}, &rule{ro: true, anySub: mod("changes the package store")}),
			"pm":         subsOf(map[string]*rule{"ls": read, "hash": read, "hash-string": read, "bin": read, "cache": read}, &rule{ro: true, anySub: mod(whyInstalls)}),
		}
	}
	valued := []string{"-w", "--workspace", "--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "--script-shell", "--userconfig", "--globalconfig", "--node-options"}
	versionFlags := []string{"-v", "--version", "-h", "--help"}
	top := func(r *rule) *rule {
		r.cfg = true
		r.check = func(c *cmdCtx, name string, args []arg, r *rule) outcome {
			flags, _, _ := scan(args, r, true)
			if o := pmFlags(c, name, flags); o.mod {
				return o
			}
			return r.evalSub(c, name, args)
		}
		return r
	}
	npm = top(subsOf(common("npm"), &rule{ro: true, valued: valued, roFlags: versionFlags, anySub: mod("is an npm subcommand planq does not know")}))
	yarn = top(subsOf(common("yarn"), &rule{why: whyInstalls, valued: valued, roFlags: versionFlags, anySub: scriptRule("yarn")})) // bare yarn installs
	pnpm = top(subsOf(common("pnpm"), &rule{ro: true, valued: valued, roFlags: versionFlags, anySub: scriptRule("pnpm")}))
	bunSubs := common("bun")
	bunSubs["test"] = testRunner(runner{entry: "bun test", valued: []string{"-t", "--test-name-pattern", "--timeout", "--preload", "-r", "--rerun-each", "--coverage-reporter", "--coverage-dir", "--bail", "--reporter", "--reporter-outfile"},
		writes: []string{"-u", "--update-snapshots", "--coverage", "--coverage-dir", "--reporter-outfile", "--watch"}, paths: []string{"--preload", "-r"}})
	bunTop := top(subsOf(bunSubs, &rule{ro: true, valued: valued, roFlags: append(versionFlags, "--revision"), anySub: scriptRule("bun")}))
	bunTopCheck := bunTop.check
	bunTop.check = func(c *cmdCtx, name string, args []arg, r *rule) outcome {
		for _, a := range args {
			if a.static && (a.val == "-e" || a.val == "--eval" || a.val == "-p" || a.val == "--print" || strings.HasPrefix(a.val, "--eval=") || strings.HasPrefix(a.val, "--print=")) {
				return outcome{mod: true, reason: name + " " + a.val + " runs code given on the command line"}
			}
			if !isFlag(a) {
				break
			}
		}
		return bunTopCheck(c, name, args, r)
	}
	bun = bunTop
	return npm, yarn, pnpm, bun
}

func pipRule() *rule {
	read := ro()
	return subsOf(map[string]*rule{
		"list": read, "show": read, "freeze": read, "check": read, "search": read, "help": read, "debug": read,
		"index": read, "inspect": read, "hash": read,
		"config":  subsOf(map[string]*rule{"list": read, "get": read, "debug": read}, &rule{ro: true, anySub: mod("changes pip's configuration")}),
		"cache":   subsOf(map[string]*rule{"dir": read, "info": read, "list": read}, &rule{ro: true, anySub: mod("changes pip's cache")}),
		"install": {why: whyInstalls, roFlags: []string{"--dry-run"}},
	}, &rule{ro: true, anySub: mod(whyInstalls), roFlags: []string{"-V", "--version", "-h", "--help"}})
}
