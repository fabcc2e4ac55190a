package gate

import "strings"

// Language tool chains and package managers. Test and check runners only
// read the tree (investigating before declaring is the point); builds,
// installs, code generation and formatting write.

var goBuildValued = []string{"-o", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-C", "-mod", "-modfile", "-overlay",
	"-pgo", "-pkgdir", "-toolexec", "-buildmode", "-compiler", "-installsuffix", "-coverpkg", "-covermode", "-buildvcs", "-exec"}

func goRule() *rule {
	read := ro()
	goFlags := func(r *rule) *rule { r.goFlags = true; return r }
	testValued := append([]string{"-run", "-bench", "-count", "-timeout", "-cpu", "-benchtime", "-fuzz", "-fuzztime", "-fuzzminimizetime",
		"-list", "-skip", "-shuffle", "-vet", "-parallel", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile",
		"-mutexprofile", "-trace", "-outputdir", "-memprofilerate", "-blockprofilerate", "-mutexprofilefraction"}, goBuildValued...)
	modCmd := subsOf(map[string]*rule{
		"graph": read, "why": read, "verify": read, "help": read,
		"edit": {goFlags: true, why: "edits go.mod", roFlags: []string{"-json", "-print"}},
	}, &rule{ro: true, anySub: mod("changes go.mod, go.sum or the vendor directory")})
	work := subsOf(map[string]*rule{
		"edit": {goFlags: true, why: "edits go.work", roFlags: []string{"-json", "-print"}},
	}, &rule{ro: true, anySub: mod("changes go.work")})
	return subsOf(map[string]*rule{
		"test": goFlags(&rule{ro: true, valued: testValued,
			modFlags: []string{"-c", "-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir", "-fuzz", "-update", "-exec", "-toolexec"},
			flagWhy:  "writes files (a test binary, a profile, golden files or fuzz inputs) or runs another program"}),
		"vet":       goFlags(&rule{ro: true, valued: goBuildValued, modFlags: []string{"-vettool"}, flagWhy: "runs another program"}),
		"list":      goFlags(&rule{ro: true, valued: append([]string{"-f"}, goBuildValued...)}),
		"doc":       read,
		"version":   read,
		"help":      read,
		"bug":       read,
		"env":       goFlags(&rule{ro: true, modFlags: []string{"-w", "-u"}, flagWhy: "changes the go environment file"}),
		"tool":      {ro: true, check: goToolCheck},
		"build":     goFlags(&rule{why: "writes the compiled binary", valued: goBuildValued, check: goBuildCheck}),
		"install":   mod("builds and installs binaries"),
		"get":       mod("changes go.mod and go.sum"),
		"generate":  mod("runs code generators that write files"),
		"fmt":       mod("rewrites Go files"),
		"fix":       mod("rewrites Go files"),
		"clean":     mod(whyDeletes),
		"run":       mod("builds and runs a program planq cannot see into"),
		"mod":       modCmd,
		"work":      work,
		"telemetry": {ro: true, posMod: 1, why: "changes telemetry settings"},
	}, &rule{ro: true})
}

// goBuildCheck: go build writes a binary unless -o sends it nowhere.
func goBuildCheck(c *cmdCtx, name string, args []arg, r *rule) outcome {
	flags, _, _ := scan(args, r, false)
	for _, f := range flags {
		if f.name == "-o" && f.hasVal && f.val.static && safeTarget(f.val.val) {
			return outcome{}
		}
	}
	return outcome{mod: true, reason: name + " " + r.why}
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
		return r.evalFlags(name+" pprof", args[1:])
	case "cover":
		r := &rule{ro: true, goFlags: true, modFlags: []string{"-o"}, valued: []string{"-o", "-html", "-func", "-mode", "-var", "-pkgcfg"}}
		return r.evalFlags(name+" cover", args[1:])
	case "fix", "compile", "link", "asm", "cgo", "covdata", "buildid", "pack", "preprofile":
		return outcome{mod: true, reason: name + " " + t.val + " writes files"}
	}
	return c.run(args)
}

func cargoRule() *rule {
	read := ro()
	build := mod(whyBuilds)
	runs := mod("builds and runs a program planq cannot see into")
	manifest := mod("changes Cargo.toml")
	return subsOf(map[string]*rule{
		"test": read, "t": read, "check": read, "c": read, "tree": read, "search": read, "metadata": read, "bench": read,
		"version": read, "help": read, "verify-project": read, "read-manifest": read, "pkgid": read, "locate-project": read,
		"deny": read, "outdated": read, "expand": read, "udeps": read, "nextest": read, "llvm-cov": read,
		"clippy":  {ro: true, modFlags: []string{"--fix"}, flagWhy: "writes fixes"},
		"fmt":     {why: "rewrites files", roFlags: []string{"--check"}},
		"audit":   subsOf(map[string]*rule{"fix": manifest}, &rule{ro: true}),
		"machete": {ro: true, modFlags: []string{"--fix"}, flagWhy: "edits Cargo.toml"},
		"insta": subsOf(map[string]*rule{
			"test":              {ro: true, modFlags: []string{"--accept", "--review"}, flagWhy: "writes snapshots"},
			"pending-snapshots": read,
		}, &rule{ro: true, anySub: mod("writes snapshots")}),
		"doc": build, "build": build, "b": build, "rustc": build, "package": build,
		"run": runs, "r": runs,
		"install": mod(whyInstalls), "uninstall": mod(whyInstalls),
		"add": manifest, "remove": manifest, "rm": manifest, "upgrade": manifest,
		"update": mod("changes Cargo.lock"), "generate-lockfile": mod("writes Cargo.lock"),
		"new": mod(whyWrites), "init": mod(whyWrites), "publish": mod("publishes a crate"), "clean": mod(whyDeletes),
		"fix": mod("rewrites source files"), "vendor": mod(whyWrites),
	}, &rule{ro: true, roFlags: []string{"--version", "-V", "--help", "-h", "--list"}, valued: []string{"-C", "--config", "-Z", "--color"}})
}

// readOnlyScript reports whether a package script is trusted to only read:
// tests and type checks.
func readOnlyScript(s string) bool {
	for _, p := range []string{"test", "check", "typecheck", "type-check", "types", "tsc"} {
		if s == p || strings.HasPrefix(s, p+":") {
			return true
		}
	}
	return false
}

// scriptRule judges `npm run NAME`, and `yarn NAME` / `pnpm NAME` where the
// subcommand is the script's name.
func scriptRule(tool string) *rule {
	return &rule{ro: true, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
		if name == tool+" run" || name == tool+" run-script" {
			_, pos, _ := scan(args, r, true)
			if len(pos) == 0 {
				return outcome{} // lists the scripts
			}
			return scriptOutcome(c, name+" "+pos[0].raw, pos[0])
		}
		i := strings.LastIndexByte(name, ' ')
		return scriptOutcome(c, name, arg{val: name[i+1:], static: true})
	}}
}

func scriptOutcome(c *cmdCtx, shown string, script arg) outcome {
	if script.static && readOnlyScript(script.val) {
		return outcome{}
	}
	return unknownOutcome(c, shown+" runs a package script planq cannot see into (only test and check scripts count as read-only)")
}

func nodePMRules() (npm, yarn, pnpm, bun *rule) {
	read := ro()
	inst := mod(whyInstalls)
	common := func(tool string) map[string]*rule {
		return map[string]*rule{
			"test": read, "t": read, "tst": read, "ls": read, "list": read, "ll": read, "la": read, "view": read, "v": read,
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
			"start": mod("runs the package's start script"), "restart": mod("runs the package's start script"), "stop": mod("runs the package's stop script"),
			"install": inst, "i": inst, "add": inst, "a": inst, "ci": inst, "uninstall": inst, "remove": inst, "rm": inst, "r": inst,
			"un": inst, "unlink": inst, "update": inst, "up": inst, "upgrade": inst, "dedupe": inst, "ddp": inst, "prune": inst,
			"rebuild": inst, "link": inst, "ln": inst, "import": inst, "patch": inst, "patch-commit": inst,
			"init": mod(whyWrites), "create": mod(whyWrites),
			"publish":   {why: "publishes a package", roFlags: []string{"--dry-run"}},
			"unpublish": mod("unpublishes a package"), "deprecate": mod("changes the registry"), "set-script": mod("changes package.json"),
			"pack":       {why: "writes a package tarball", roFlags: []string{"--dry-run"}},
			"version":    {ro: true, posMod: 1, why: "bumps the version in package.json"},
			"pkg":        subsOf(map[string]*rule{"get": read}, &rule{ro: true, anySub: mod("changes package.json")}),
			"cache":      subsOf(map[string]*rule{"ls": read, "list": read, "dir": read, "verify": read}, &rule{ro: true, anySub: mod("changes the package cache")}),
			"build":      mod(whyBuilds),
			"workspace":  mod(whyScript),
			"workspaces": subsOf(map[string]*rule{"info": read, "list": read}, &rule{ro: true, anySub: mod(whyScript)}),
			"store":      subsOf(map[string]*rule{"path": read, "status": read}, &rule{ro: true, anySub: mod("changes the package store")}),
			"pm":         subsOf(map[string]*rule{"ls": read, "hash": read, "hash-string": read, "bin": read, "cache": read}, &rule{ro: true, anySub: mod(whyInstalls)}),
		}
	}
	valued := []string{"-w", "--workspace", "--prefix", "-C", "--dir", "--cwd", "--filter", "-F"}
	versionFlags := []string{"-v", "--version", "-h", "--help"}
	npm = subsOf(common("npm"), &rule{ro: true, valued: valued, roFlags: versionFlags, anySub: mod("is an npm subcommand planq does not know")})
	yarn = subsOf(common("yarn"), &rule{why: whyInstalls, valued: valued, roFlags: versionFlags, anySub: scriptRule("yarn")}) // bare yarn installs
	pnpm = subsOf(common("pnpm"), &rule{ro: true, valued: valued, roFlags: versionFlags, anySub: scriptRule("pnpm")})
	bun = subsOf(common("bun"), &rule{ro: true, valued: valued, roFlags: append(versionFlags, "--revision"), anySub: mod("runs a file or package script planq cannot see into")})
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

func dockerRule() *rule {
	read := ro()
	state := mod("changes containers, images or volumes")
	only := func(names ...string) *rule {
		m := map[string]*rule{}
		for _, n := range names {
			m[n] = read
		}
		return subsOf(m, &rule{ro: true, anySub: state})
	}
	return subsOf(map[string]*rule{
		"ps": read, "images": read, "logs": read, "inspect": read, "version": read, "info": read, "stats": read, "top": read,
		"port": read, "history": read, "search": read, "events": read, "diff": read,
		"image": only("ls", "list", "inspect", "history"), "container": only("ls", "list", "inspect", "logs", "top", "port", "stats", "diff"),
		"network": only("ls", "list", "inspect"), "volume": only("ls", "list", "inspect"), "context": only("ls", "list", "show", "inspect"),
		"system": only("df", "info", "events"), "buildx": only("ls", "inspect", "version", "du"),
		"compose": only("ps", "logs", "config", "ls", "images", "top", "version", "port", "events"),
	}, &rule{ro: true, anySub: state, valued: []string{"-H", "--host", "-c", "--context", "--config", "-l", "--log-level"}})
}
