package gate

import (
	"slices"
	"strings"
)

// Test runners. Running the project's tests is investigating, so the entry
// points listed in gate.tests (config.DefaultTests unless the project says
// otherwise) count as read-only: they run the project's own test code and
// write only caches and build directories. What they are told to write
// still modifies — snapshot updates, coverage and report files, a base
// temp directory — unless it goes outside the project; and a runner pointed
// at code or configuration outside the project (a test file in /tmp, a
// config file elsewhere, a working directory planq cannot follow) is not
// the project's tests, so it is unknown.

// testListed reports whether entry ("go test", "make check") is in
// gate.tests.
func (a *analyzer) testListed(entries ...string) bool {
	for _, e := range entries {
		for _, t := range a.pol.Tests {
			if strings.Join(strings.Fields(t), " ") == e {
				return true
			}
		}
	}
	return false
}

func notListed(entry string) outcome {
	return outcome{mod: true, reason: entry + " runs the project's tests, and gate.tests in .planq/config.yaml does not list it, so it counts as modifying"}
}

// updateFlag matches the names of flags that tell a test suite to rewrite
// its expectations (golden files, snapshots, fixtures).
var updateFlag = updateMatcher{}

// updateMatcher matches update-ish flag names without a regexp, which the
// hook process would compile at start-up.
type updateMatcher struct{}

func (updateMatcher) MatchString(s string) bool {
	s = strings.ToLower(s)
	for _, w := range []string{"update", "golden", "regen", "record", "overwrite", "accept", "bless", "rewrite", "snapshot", "fix"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// runner describes a test runner's options.
type runner struct {
	entry    string   // its gate.tests entry
	valued   []string // options that take a value
	writes   []string // options that write (credited when their value is outside the project)
	paths    []string // options whose value names code or configuration that is run
	runs     []string // options that run a program or code planq cannot see
	long     []string // the complete long options, when abbreviations are accepted
	goFlags  bool     // Go-style single-dash long flags
	passArgs bool     // arguments after -- go to the test program: update flags there write
	abbrev   bool     // the runner accepts abbreviated long options (argparse)
}

func testRunner(rn runner) *rule {
	r := &rule{ro: true, valued: rn.valued, goFlags: rn.goFlags, long: rn.long, cfg: true, modFlags: rn.writes, exact: !rn.abbrev}
	r.check = func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		return c.runTests(name, rn, r, args)
	}
	return r
}

func (c *cmdCtx) runTests(name string, rn runner, r *rule, args []arg) outcome {
	if !c.a.testListed(rn.entry) {
		return notListed(rn.entry)
	}
	var after []arg
	if i := slices.IndexFunc(args, func(a arg) bool { return a.static && a.val == "--" }); i >= 0 && rn.passArgs {
		args, after = args[:i], args[i+1:]
	}
	flags, pos, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(c, name, flags); ok && o.mod {
		return o
	}
	for _, f := range flags {
		switch {
		case slices.Contains(rn.runs, f.name):
			return outcome{mod: true, reason: name + " " + f.name + " runs a program planq cannot see into"}
		case slices.Contains(rn.paths, f.name):
			if o := c.testPath(name, f.name, f.val); o.mod {
				return o
			}
		case f.hasVal && !f.val.static:
			return unknownOutcome(c, name+" "+f.name+" has a value computed at run time")
		}
	}
	return c.testOperands(name, pos, after)
}

// testOperands judges what a test runner is given besides its own options:
// operands must name tests in the project (testPath), and arguments passed
// through to the tests must not ask them to rewrite their expected output.
func (c *cmdCtx) testOperands(name string, pos, passed []arg) outcome {
	for _, p := range pos {
		if o := c.testPath(name, "", p); o.mod {
			return o
		}
	}
	for _, a := range passed {
		if a.static && strings.HasPrefix(a.val, "-") && updateFlag.MatchString(a.val) {
			return outcome{mod: true, reason: name + " " + a.val + " tells the tests to rewrite their expected output"}
		}
	}
	return outcome{}
}

// testPath judges a test operand or an option naming code: it must be in
// the project. An operand that is not a path (a package pattern, a test
// name) resolves inside.
func (c *cmdCtx) testPath(name, flag string, p arg) outcome {
	shown := strings.TrimSpace(flag + " " + p.raw)
	if !p.static {
		return unknownOutcome(c, name+" "+shown+" names tests computed at run time")
	}
	if strings.HasPrefix(p.val, "{") {
		return unknownOutcome(c, name+" "+shown+" gives configuration inline")
	}
	v := p
	v.glob = false
	if p.tilde || isAbsPath(p.val) || slices.Contains(strings.Split(strings.ReplaceAll(p.val, `\`, "/"), "/"), "..") {
		if c.a.where.Root == "" || c.a.pathKind(v) != pathInside {
			return unknownOutcome(c, name+" "+shown+" runs code or configuration from outside the project")
		}
	}
	return outcome{}
}

func testRunnerRules(t table) {
	t["pytest"] = testRunner(runner{entry: "pytest", abbrev: true,
		valued: []string{"-k", "-m", "-p", "-c", "--config-file", "--rootdir", "--basetemp", "--confcutdir", "-o", "--override-ini", "--junitxml", "--junit-xml",
			"--log-file", "--cov", "--cov-report", "--cov-config", "--html", "--json-report-file", "--tb", "--maxfail", "-n", "--numprocesses", "--durations",
			"--deselect", "--ignore", "--ignore-glob", "--import-mode", "--capture", "-W", "--pythonwarnings", "--timeout", "-r", "--log-level", "--log-cli-level",
			"--log-format", "--log-date-format", "--log-file-level", "--dist", "--reruns", "--count", "--randomly-seed", "--durations-min", "--pyargs", "--junit-prefix",
			"--result-log", "--resultlog", "--pastebin", "--debug", "--cache-dir", "--rootdir"},
		writes: []string{"--basetemp", "--junitxml", "--junit-xml", "--log-file", "--html", "--json-report-file", "--result-log", "--resultlog", "--debug",
			"--cov", "--cov-report", "--snapshot-update", "--force-regen", "--regen-all", "--update-snapshots", "--inline-snapshot", "--cache-dir"},
		paths: []string{"-c", "--config-file", "--rootdir", "--confcutdir", "--cov-config", "--ignore", "--deselect"},
		runs:  []string{"-o", "--override-ini", "--pastebin", "--pdb", "--trace"},
	})
	t["py.test"] = t["pytest"]
	jest := testRunner(runner{entry: "jest",
		valued: []string{"-c", "--config", "-t", "--testNamePattern", "--outputFile", "--reporters", "--maxWorkers", "-w", "--testPathPattern", "--testTimeout",
			"--shard", "--selectProjects", "--rootDir", "--roots", "--env", "--testEnvironment", "--coverageDirectory", "--testResultsProcessor", "--setupFiles",
			"--setupFilesAfterEnv", "--globalSetup", "--globalTeardown", "--testRunner", "--testSequencer", "--resolver", "--snapshotResolver", "--prettierPath",
			"--watchPlugins", "--preset", "--projects", "--moduleDirectories", "--modulePaths", "--cacheDirectory", "--testPathIgnorePatterns", "--transform", "--seed"},
		writes: []string{"-u", "--updateSnapshot", "--update-snapshot", "--outputFile", "--coverage", "--collectCoverage", "--collect-coverage", "--coverageDirectory",
			"--init", "--ci=false", "--no-ci", "--cacheDirectory", "--watch", "--watchAll"},
		paths: []string{"-c", "--config", "--rootDir", "--roots", "--testEnvironment", "--env", "--testResultsProcessor", "--setupFiles", "--setupFilesAfterEnv",
			"--globalSetup", "--globalTeardown", "--testRunner", "--testSequencer", "--resolver", "--snapshotResolver", "--prettierPath", "--watchPlugins", "--preset",
			"--projects", "--moduleDirectories", "--modulePaths", "--reporters", "--transform"},
	})
	t["jest"] = &rule{ro: true, cfg: true, check: func(c *cmdCtx, name string, args []arg, r *rule) outcome {
		for _, a := range args {
			if a.static && (a.val == "--ci=false" || a.val == "--no-ci") {
				return outcome{mod: true, reason: name + " " + a.val + " writes new snapshots"}
			}
		}
		return jest.check(c, name, args, jest)
	}}
	vitestRun := testRunner(runner{entry: "vitest",
		valued: []string{"-c", "--config", "-t", "--testNamePattern", "--outputFile", "--reporter", "--root", "-r", "--dir", "--project", "--shard", "--pool",
			"--environment", "--globalSetup", "--setupFiles", "--coverage.reportsDirectory", "--cache.dir", "--workspace"},
		writes: []string{"-u", "--update", "--outputFile", "--coverage", "--coverage.enabled", "--coverage.reportsDirectory", "--ui", "--open", "--watch", "-w"},
		paths:  []string{"-c", "--config", "--root", "-r", "--dir", "--reporter", "--globalSetup", "--setupFiles", "--workspace", "--environment"},
	})
	t["vitest"] = subsOf(map[string]*rule{
		"run": vitestRun, "watch": vitestRun, "dev": vitestRun, "bench": vitestRun, "related": vitestRun, "list": vitestRun,
		"init": mod(whyWrites),
	}, &rule{ro: true, cfg: true, noSub: vitestRun, anySub: vitestRun, valued: vitestRun.valued}) // vitest <filter>
	t["mocha"] = testRunner(runner{entry: "mocha",
		valued: []string{"-r", "--require", "--file", "--config", "--package", "-R", "--reporter", "-O", "--reporter-option", "--reporter-options", "-g", "--grep",
			"-f", "--fgrep", "-t", "--timeout", "--slow", "--spec", "--extension", "--ignore", "--exclude", "--ui", "-u", "--jobs", "-j"},
		writes: []string{"-O", "--reporter-option", "--reporter-options", "-w", "--watch"},
		paths:  []string{"-r", "--require", "--file", "--config", "--package", "-R", "--reporter", "--spec", "--ui", "-u"},
	})
	t["ava"] = testRunner(runner{entry: "ava", valued: []string{"-m", "--match", "-c", "--concurrency", "-T", "--timeout", "--config", "--node-arguments"},
		writes: []string{"-u", "--update-snapshots", "-w", "--watch"}, paths: []string{"--config"}, runs: []string{"--node-arguments"}})
	t["tap"] = testRunner(runner{entry: "tap", valued: []string{"-R", "--reporter", "-t", "--timeout", "-j", "--jobs", "--coverage-report", "--node-arg", "--test-arg", "--save"},
		writes: []string{"-S", "--snapshot", "--save", "--coverage-report"}, runs: []string{"--node-arg"}})
	t["karma"] = subsOf(map[string]*rule{
		"start": testRunner(runner{entry: "karma", valued: []string{"--browsers", "--reporters", "--port", "--log-level"}}),
		"run":   testRunner(runner{entry: "karma", valued: []string{"--port"}}),
	}, &rule{ro: true, cfg: true, anySub: mod(whyWrites)})
	playwrightTest := testRunner(runner{entry: "playwright test",
		valued: []string{"-c", "--config", "-g", "--grep", "--grep-invert", "--output", "--project", "--reporter", "-j", "--workers", "--retries", "--repeat-each",
			"--shard", "--timeout", "--global-timeout", "--max-failures", "--trace", "--browser", "--tsconfig", "--update-source-method"},
		writes: []string{"-u", "--update-snapshots", "--output", "--ui", "--debug", "--ui-host", "--ui-port"},
		paths:  []string{"-c", "--config", "--reporter", "--tsconfig"},
	})
	t["playwright"] = subsOf(map[string]*rule{
		"test": playwrightTest, "show-report": ro(), "show-trace": ro(), "merge-reports": mod("writes a merged report"),
		"install": mod(whyInstalls), "install-deps": mod(whyInstalls), "uninstall": mod(whyInstalls), "codegen": mod(whyWrites),
		"screenshot": mod(whyWrites), "pdf": mod(whyWrites), "open": ro(), "cr": ro(), "ff": ro(), "wk": ro(),
	}, &rule{ro: true, cfg: true, roFlags: []string{"--version", "-V"}, anySub: mod("is a playwright command planq does not know")})
	t["ctest"] = testRunner(runner{entry: "ctest", valued: []string{"-R", "-E", "-L", "-LE", "-j", "--parallel", "-C", "--build-config", "--test-dir", "-O", "--output-log",
		"--output-junit", "-T", "-D", "-M", "--timeout", "--repeat", "-I", "--resource-spec-file", "-S", "-SP"},
		writes: []string{"-O", "--output-log", "--output-junit", "-T", "-D", "-M"}, paths: []string{"--test-dir"}, runs: []string{"-S", "-SP"}})
	t["phpunit"] = testRunner(runner{entry: "phpunit", valued: []string{"-c", "--configuration", "--bootstrap", "--filter", "--group", "--exclude-group", "--testsuite",
		"--coverage-html", "--coverage-clover", "--coverage-xml", "--coverage-text", "--coverage-php", "--coverage-cobertura", "--log-junit", "--log-teamcity", "--testdox-html", "--testdox-text", "--cache-directory"},
		writes: []string{"--coverage-html", "--coverage-clover", "--coverage-xml", "--coverage-php", "--coverage-cobertura", "--log-junit", "--log-teamcity", "--testdox-html", "--testdox-text", "--cache-directory", "--generate-baseline", "--migrate-configuration", "--generate-configuration"},
		paths:  []string{"-c", "--configuration", "--bootstrap"}})
	t["rspec"] = testRunner(runner{entry: "rspec", valued: []string{"-o", "--out", "-f", "--format", "-r", "--require", "-I", "-e", "--example", "-t", "--tag", "--seed", "-O", "--options", "--default-path", "-P", "--pattern"},
		writes: []string{"-o", "--out", "--init"}, paths: []string{"-r", "--require", "-I", "-O", "--options", "--default-path"}})
	t["bats"] = testRunner(runner{entry: "bats", valued: []string{"-f", "--filter", "-F", "--formatter", "-o", "--output", "--report-formatter", "-j", "--jobs", "--setup-suite-file", "--gather-test-outputs-in"},
		writes: []string{"-o", "--output", "--report-formatter", "--gather-test-outputs-in"}, paths: []string{"--setup-suite-file", "-F", "--formatter"}})
	t["gotestsum"] = &rule{ro: true, cfg: true, check: gotestsumCheck}
}

// gotestsum runs go test with the flags after --, unless --raw-command
// gives it another command.
func gotestsumCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	r := &rule{valued: []string{"-f", "--format", "--junitfile", "--jsonfile", "--packages", "--raw-command", "--post-run-command", "--rerun-fails",
		"--rerun-fails-report", "--rerun-fails-max-failures", "--junitfile-testsuite-name", "--junitfile-testcase-classname", "--format-icons", "--hide-summary",
		"--jsonfile-timing-events", "--watch-chdir", "--max-fails"},
		modFlags: []string{"--junitfile", "--jsonfile", "--rerun-fails-report", "--jsonfile-timing-events"}}
	if !c.a.testListed("gotestsum") {
		return notListed("gotestsum")
	}
	var goArgs []arg
	if i := slices.IndexFunc(args, func(a arg) bool { return a.static && a.val == "--" }); i >= 0 {
		args, goArgs = args[:i], args[i+1:]
	}
	flags, _, _ := scan(args, r, false)
	if o, ok := r.flagOutcome(c, name, flags); ok && o.mod {
		return o
	}
	for _, f := range flags {
		if f.name == "--raw-command" || f.name == "--post-run-command" {
			return outcome{mod: true, reason: name + " " + f.name + " runs a command planq cannot see into"}
		}
		if f.name == "--packages" {
			if o := c.testPath(name, f.name, f.val); o.mod {
				return o
			}
		}
	}
	return goTest(c, name, goArgs, "gotestsum")
}

// lddCheck: ldd may run the program it inspects (through its own
// interpreter), so it is trusted on the project's binaries and the
// system's, not on files a command could have put elsewhere.
func lddCheck(c *cmdCtx, name string, args []arg, _ *rule) outcome {
	for _, a := range args {
		if isFlag(a) {
			continue
		}
		if !a.static || c.a.pathKind(a) == pathOutside {
			return unknownOutcome(c, name+" may run the program "+a.raw+" to list its libraries")
		}
	}
	return outcome{}
}

// makeRule: make runs the recipes of the targets it is given. Only the
// targets listed in gate.tests (make test, make check) count as read-only;
// make -n, -q and -p still expand $(shell …) and remake included
// makefiles, so they modify like any other make.
func makeRule() *rule {
	r := &rule{why: "runs build recipes that write files", cfg: true,
		valued: []string{"-C", "--directory", "-f", "--file", "--makefile", "-j", "--jobs", "-l", "--load-average", "-o", "--old-file", "--assume-old",
			"-W", "--what-if", "--new-file", "--assume-new", "-I", "--include-dir", "--eval", "-O", "--output-sync", "--debug", "--jobserver-style", "--shuffle"},
		long: []string{"--always-make", "--directory", "--debug", "--environment-overrides", "--eval", "--file", "--makefile", "--help", "--ignore-errors",
			"--include-dir", "--jobs", "--keep-going", "--load-average", "--check-symlink-times", "--just-print", "--dry-run", "--recon", "--old-file",
			"--assume-old", "--output-sync", "--print-data-base", "--question", "--no-builtin-rules", "--no-builtin-variables", "--shuffle", "--silent",
			"--quiet", "--no-silent", "--stop", "--no-keep-going", "--touch", "--trace", "--version", "--print-directory", "--no-print-directory",
			"--what-if", "--new-file", "--assume-new", "--warn-undefined-variables", "--jobserver-style", "--jobserver-auth"}}
	r.check = func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		flags, pos, _ := scan(args, r, false)
		for _, f := range flags {
			switch f.name {
			case "-v", "--version", "-h", "--help":
				return outcome{}
			}
		}
		for _, f := range flags {
			switch f.name {
			case "--eval":
				return outcome{mod: true, reason: name + " --eval evaluates make code given on the command line"}
			case "-t", "--touch":
				return outcome{mod: true, reason: name + " " + f.name + " touches the targets"}
			case "-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir":
				if o := c.testPath(name, f.name, f.val); o.mod {
					return o
				}
			}
		}
		var targets []string
		for _, p := range pos {
			if !p.static {
				return outcome{mod: true, reason: name + " has a target or variable computed at run time"}
			}
			if n, v, ok := strings.Cut(p.val, "="); ok {
				n = strings.TrimRight(n, ":+?!")
				if !c.a.harmlessAssign(n, staticArg(v)) && n != "V" && n != "VERBOSE" && n != "Q" {
					return unknownOutcome(c, name+" "+p.raw+" overrides a make variable, which can change what the recipes run")
				}
				continue
			}
			targets = append(targets, p.val)
		}
		if len(targets) == 0 {
			return outcome{mod: true, reason: name + " " + r.why + " (the default target)"}
		}
		for _, tg := range targets {
			if !c.a.testListed("make " + tg) {
				return outcome{mod: true, reason: name + " " + tg + " runs build recipes; only the targets gate.tests lists (make test, make check) count as read-only"}
			}
		}
		return outcome{}
	}
	return r
}
