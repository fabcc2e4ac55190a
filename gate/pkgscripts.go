package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// pkgScript judges npm run, npm test, yarn NAME, pnpm NAME and bun run:
// the package manager runs the script's own text from package.json with
// sh -c, with the arguments given after the script's name appended, after
// its pre script and before its post script. planq judges that text the
// way it judges any command; a script missing from package.json makes the
// package manager fail (yarn, pnpm and bun then run the binary of that
// name). A script that runs a program planq does not know is still
// read-only when gate.tests lists the entry (npm test), unless its
// arguments tell it to rewrite expected output.
func (c *cmdCtx) pkgScript(tool, name, script string, passed []arg, fallbackBin bool) outcome {
	entries := []string{tool + " run " + script}
	if script == "test" {
		entries = append(entries, tool+" test")
	}
	listed := c.a.testListed(entries...)
	scripts, dir, pkgDir, ok := c.a.packageScripts()
	if !ok {
		if listed {
			return c.trustedEntry(name, passed) // a test entry point, as make test
		}
		return unknownOutcome(c, name+" runs a package script, and planq cannot read the project's package.json")
	}
	text, has := scripts[script]
	if !has {
		if fallbackBin && script != "" {
			return c.run(append([]arg{staticArg(script)}, passed...))
		}
		if tool == "npm" && script == "start" {
			return unknownOutcome(c, name+" runs node server.js when package.json has no start script")
		}
		return outcome{} // the package manager fails: no such script
	}
	var b strings.Builder
	b.WriteString(text)
	for _, p := range passed {
		if !p.static {
			return outcome{mod: true, reason: name + " passes the script an argument computed at run time"}
		}
		b.WriteString(" " + shellQuote(p.val))
	}
	parts := []string{scripts["pre"+script], b.String(), scripts["post"+script]}
	for _, part := range parts {
		if strings.TrimSpace(part) == "" {
			continue
		}
		f := c.a.judgeScript(part, "the "+script+" script in "+dir+"package.json", c.depth+1, pkgDir)
		if f == nil {
			continue
		}
		if f.unknown && listed {
			if o := c.trustedEntry(name, passed); o.mod {
				return o
			}
			continue
		}
		return outcome{mod: true, unknown: f.unknown, reason: name + " runs `" + f.part + "`: " + f.reason}
	}
	return outcome{}
}

// trustedEntry judges the arguments given to a test entry point planq
// trusts without seeing what it runs: they must not ask the tests to
// rewrite their expectations or write reports.
func (c *cmdCtx) trustedEntry(name string, passed []arg) outcome {
	for _, p := range passed {
		if !p.static {
			return outcome{mod: true, reason: name + " passes an argument computed at run time"}
		}
		if strings.HasPrefix(p.val, "-") && (updateFlag.MatchString(p.val) || p.val == "-u" || strings.HasPrefix(p.val, "--coverage") || strings.HasPrefix(p.val, "--output")) {
			return outcome{mod: true, reason: name + " " + p.val + " tells the tests to write files or rewrite their expected output"}
		}
	}
	return outcome{}
}

// packageScripts reads the scripts of the package.json nearest the
// working directory, within the project, and returns them with the
// package's directory (relative to the project, and absolute).
func (a *analyzer) packageScripts() (map[string]string, string, string, bool) {
	if len(a.cwds) != 1 {
		return nil, "", "", false
	}
	if p, ok := a.packages[a.cwds[0]]; ok {
		return p.scripts, p.rel, p.dir, p.ok
	}
	scripts, rel, dir, ok := a.readPackageScripts(a.cwds[0])
	if a.packages == nil {
		a.packages = map[string]packageInfo{}
	}
	a.packages[a.cwds[0]] = packageInfo{scripts, rel, dir, ok}
	return scripts, rel, dir, ok
}

// packageInfo is a package.json's scripts, read once per command.
type packageInfo struct {
	scripts  map[string]string
	rel, dir string
	ok       bool
}

func (a *analyzer) readPackageScripts(cwd string) (map[string]string, string, string, bool) {
	a.step(256)
	for d := cwd; ; d = filepath.Dir(d) {
		if a.where.Root != "" && !within(a.where.Root, d) {
			return nil, "", "", false
		}
		data, err := os.ReadFile(filepath.Join(d, "package.json"))
		if err == nil && len(data) < 4<<20 {
			var pkg struct {
				Scripts map[string]string `json:"scripts"`
			}
			if err := json.Unmarshal(data, &pkg); err != nil {
				return nil, "", "", false
			}
			rel := ""
			if a.where.Root != "" {
				if r, err := filepath.Rel(a.where.Root, d); err == nil && r != "." {
					rel = r + string(filepath.Separator)
				}
			}
			return pkg.Scripts, rel, d, true
		}
		if filepath.Dir(d) == d || a.where.Root == "" {
			return nil, "", "", false
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// scriptRule judges `npm run NAME` (and run-script), and `npm test`,
// `yarn NAME`, `pnpm NAME`, where the subcommand names the script.
func scriptRule(tool string) *rule {
	r := &rule{ro: true, valued: []string{"-w", "--workspace", "--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "--script-shell"}}
	r.check = func(c *cmdCtx, name string, args []arg, _ *rule) outcome {
		sub := name[strings.LastIndexByte(name, ' ')+1:]
		var script string
		var passed []arg
		fallback := tool == "yarn" || tool == "pnpm" || tool == "bun"
		if sub == "run" || sub == "run-script" || sub == "rum" || sub == "urn" {
			flags, pos, rest := scan(args, r, true)
			if o := pmFlags(c, name, flags); o.mod {
				return o
			}
			if len(pos) == 0 {
				return outcome{} // lists the scripts
			}
			if !pos[0].static {
				return outcome{mod: true, reason: name + " runs a script named at run time"}
			}
			script, passed = pos[0].val, rest
			name += " " + script
		} else {
			script, passed = sub, args
			switch sub {
			case "t", "tst":
				script = "test"
			}
			fallback = fallback && sub != "test"
		}
		var pass []arg
		for i, p := range passed {
			if p.static && p.val == "--" {
				pass = append(pass, passed[i+1:]...)
				break
			}
			if isFlag(p) && tool == "npm" {
				continue // npm's own options (--silent)
			}
			pass = append(pass, p)
		}
		return c.pkgScript(tool, name, script, pass, fallback)
	}
	return r
}

// pmFlags refuses package manager options that run scripts elsewhere or
// with another shell.
func pmFlags(c *cmdCtx, name string, flags []flagArg) outcome {
	for _, f := range flags {
		switch f.name {
		case "-w", "--workspace", "--workspaces", "--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "-r", "--recursive":
			return unknownOutcome(c, name+" "+f.name+" runs scripts of another package")
		case "--script-shell", "--userconfig", "--globalconfig", "--node-options", "--shell-emulator":
			return outcome{mod: true, reason: name + " " + f.name + " changes how scripts run"}
		}
	}
	return outcome{}
}
