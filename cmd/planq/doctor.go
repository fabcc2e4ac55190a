package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/version"
	"github.com/planq-dev/planq/jj"
)

// Repo kinds reported by doctor.
const (
	repoJJColocated = "jj colocated"
	repoJJ          = "jj"
	repoGitOnly     = "git only"
	repoNone        = "none"
)

type doctorOptions struct {
	Repo string
	JSON bool
}

// check is one line of doctor's report.
type check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Warn marks a check that is not in order but breaks nothing yet: it
	// does not make the report unhealthy.
	Warn   bool   `json:"warn,omitempty"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // the command that fixes it
}

// doctorReport is doctor's whole report.
type doctorReport struct {
	Version  string      `json:"version"`
	Dir      string      `json:"dir"`
	JJ       string      `json:"jj,omitempty"` // jj's version, when found
	JJPath   string      `json:"jj_path,omitempty"`
	Git      *jj.GitInfo `json:"git,omitempty"` // the git jj runs, when jj is found
	RepoKind string      `json:"repo_kind"`
	RepoRoot string      `json:"repo_root,omitempty"`
	Checks   []check     `json:"checks"`
	Healthy  bool        `json:"healthy"`
}

func newDoctorCmd(a *app) *cobra.Command {
	opts := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check jj, the repo and planq's wiring, and say how to fix what is missing",
		Long: `Check that planq can work here: jj is installed and recent enough, the git jj
runs (its git.executable-path, else git on PATH) can fetch (>= 2.42), the
directory is a jj repo (colocated with git, jj only, git only, or none), the
settings file is valid, the project's state repo is sound (a few seconds of
'git fsck'-grade checks, each problem with its fix), and each agent host planq
is wired into (else each one installed, else Claude Code) will start planq's
server and hooks here: the trust the host needs first, and what it does when
planq's gate cannot run (*-fail-open). planq's local wiring must stay out of
the repo: it fails when a file of it is tracked or changed by a change jj_push
would push. Wiring that sits in a jj change other than the working copy is
named. It also reads the project's session records and names any that are not
valid (hand-edited or foreign), which planq skips, warns (WARN) when Claude
Code's cleanup (cleanupPeriodDays) would delete transcript lines of the
project's sessions that planq has not copied into its store yet (planq vault
copies them), and says how the gate is enforced here. Every problem comes with
the command that fixes it on this platform.

Exit status is 0 when everything is in order or only warned about, 1
otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDoctor(cmd, a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "repository to check (default: current directory)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

func runDoctor(cmd *cobra.Command, a *app, opts *doctorOptions) error {
	dir, err := a.repoDir(opts.Repo)
	if err != nil {
		return err
	}
	rep := doctorReport{Version: version.String(), Dir: dir}
	ctx := cmd.Context()

	client := jj.New(dir)
	jjFound := false
	if v, err := client.Version(ctx); err != nil {
		rep.Checks = append(rep.Checks, check{Name: "jj", Detail: "jj is not installed", Fix: installHint(runtime.GOOS, "jj")})
	} else {
		jjFound = true
		rep.JJ = v
		if p, err := a.lookPath("jj"); err == nil {
			rep.JJPath = p
		}
		c := check{Name: "jj", OK: jj.Supported(v), Detail: "jj " + v}
		if !c.OK {
			c.Detail += " is older than " + jj.MinVersion
			c.Fix = installHint(runtime.GOOS, "jj")
		}
		rep.Checks = append(rep.Checks, c)
	}
	if jjFound {
		g, err := client.Git(ctx)
		c := gitCheck(g, runtime.GOOS)
		if err != nil {
			c = check{Name: "git", Detail: "cannot read jj's git.executable-path: " + err.Error(), Fix: "jj config list git"}
		}
		rep.Git = &g
		rep.Checks = append(rep.Checks, c)
	}

	rep.RepoKind, rep.RepoRoot = repoKind(dir)
	repo := check{Name: "repo", Detail: rep.RepoKind}
	switch rep.RepoKind {
	case repoJJColocated, repoJJ:
		repo.OK = true
		repo.Detail = fmt.Sprintf("%s repo at %s", rep.RepoKind, rep.RepoRoot)
	case repoGitOnly:
		repo.Detail = fmt.Sprintf("git repo at %s without jj", rep.RepoRoot)
		repo.Fix = "jj git init --colocate   (run in " + rep.RepoRoot + "; git history is kept)"
	default:
		repo.Detail = "not a repository"
		repo.Fix = "jj git init --colocate   (run in the project directory)"
	}
	rep.Checks = append(rep.Checks, repo)

	root := rep.RepoRoot
	if root == "" {
		root = dir
	}
	if _, err := config.Load(root); err != nil {
		rep.Checks = append(rep.Checks, check{Name: "config", Detail: err.Error(), Fix: "edit " + config.Path(root)})
	} else {
		rep.Checks = append(rep.Checks, check{Name: "config", OK: true, Detail: "settings valid (" + config.File + ")"})
		if rep.RepoRoot != "" {
			rep.Checks = append(rep.Checks, stateChecks(ctx, a, root)...)
		}
	}
	if rep.RepoRoot != "" {
		if c, ok := sessionsCheck(root, a.Getenv); ok {
			rep.Checks = append(rep.Checks, c)
		}
		if c, ok := vaultCheck(root, a.Getenv, time.Now()); ok {
			rep.Checks = append(rep.Checks, c)
		}
	}

	home, _ := a.homeDir()
	var statuses []conffile.Status
	wired := a.hostWiring(root, home)
	for _, hc := range wired {
		wiring := hc.checks
		if jjFound && (rep.RepoKind == repoJJColocated || rep.RepoKind == repoJJ) {
			wiring = wiringInJJ(ctx, jj.New(rep.RepoRoot), wiring)
		}
		rep.Checks = append(rep.Checks, wiring...)
		statuses = append(statuses, hc.statuses...)
	}
	rep.Checks = append(rep.Checks, hookBinaryCheck(ctx, a, statuses))
	if jjFound && (rep.RepoKind == repoJJColocated || rep.RepoKind == repoJJ) {
		if c, ok := localWiringCheck(ctx, rep.RepoRoot, hosts.LocalWiring(a.wiringPlace(rep.RepoRoot, home))); ok {
			rep.Checks = append(rep.Checks, c)
		}
	}
	rep.Checks = append(rep.Checks, enforcementCheck(wired, root, a.Getenv))

	rep.Healthy = true
	for _, c := range rep.Checks {
		rep.Healthy = rep.Healthy && (c.OK || c.Warn)
	}
	if opts.JSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.Stdout, "planq %s in %s\n", rep.Version, rep.Dir)
		for _, c := range rep.Checks {
			mark := "ok  "
			switch {
			case c.Warn:
				mark = "WARN"
			case !c.OK:
				mark = "FAIL"
			}
			fmt.Fprintf(a.Stdout, "  %s %-7s %s\n", mark, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(a.Stdout, "       fix:    %s\n", c.Fix)
			}
		}
	}
	if !rep.Healthy {
		return exitError{1}
	}
	return nil
}

// hostChecks is what doctor says about one host's wiring.
type hostChecks struct {
	host      hosts.Adapter
	statuses  []conffile.Status
	wired     bool // planq is wired in some scope
	installed bool // the host is on this machine
	checks    []check
}

// wiringPlace is where hosts' wiring is looked for: the project, the home
// and $XDG_CONFIG_HOME.
func (a *app) wiringPlace(dir, home string) conffile.Options {
	return conffile.Options{ProjectDir: dir, Home: home, Getenv: a.Getenv}
}

// hostWiring checks the hosts planq is wired into, in any scope. When it
// is wired into none, it checks the hosts installed on this machine (their
// missing wiring fails, naming each), or Claude Code, the default, when
// none is installed either. A host installed but not wired while another
// is wired is reported, not failed.
func (a *app) hostWiring(dir, home string) []hostChecks {
	var all []hostChecks
	anyWired, anyInstalled := false, false
	for _, ad := range hosts.All() {
		hc := hostChecks{host: ad, statuses: ad.Installed(a.wiringPlace(dir, home))}
		hc.wired = slices.ContainsFunc(hc.statuses, conffile.Status.Wired)
		hc.installed = ad.Detect(home, a.lookPath)
		anyWired, anyInstalled = anyWired || hc.wired, anyInstalled || hc.installed
		all = append(all, hc)
	}
	var kept []hostChecks
	for _, hc := range all {
		h := hc.host.Host()
		switch {
		case hc.wired || !anyWired && (hc.installed || !anyInstalled && h.Name == hosts.Default):
			hc.checks = wiringChecks(hc.host, hc.statuses)
		case hc.installed:
			hc.checks = []check{{Name: h.Name, OK: true,
				Detail: fmt.Sprintf("%s is installed, but planq is not wired into it", h.Display),
				Fix:    "planq mcp install --host " + h.Name + "   (if you run your agent in " + h.Display + ")"}}
		default:
			continue
		}
		kept = append(kept, hc)
	}
	return kept
}

// wiringChecks reports whether the host will start planq's MCP server and
// run its hooks, in any scope, and whether the binary they name exists,
// then what the adapter found besides (a trust the host still needs).
// Claude Code's checks are named server and hooks; other hosts' are
// prefixed with the host's name.
func wiringChecks(ad hosts.Adapter, statuses []conffile.Status) []check {
	h := ad.Host()
	prefix, fix := "", "planq mcp install"
	if h.Name != hosts.Default {
		prefix, fix = h.Name+"-", "planq mcp install --host "+h.Name
	}
	server := check{Name: prefix + "server", Detail: "planq's MCP server is not registered with " + h.Display, Fix: fix}
	for _, st := range statuses {
		if !st.Server {
			continue
		}
		server.Detail = fmt.Sprintf("%s: MCP server registered (%s scope, %s)", h.Display, st.Scope, st.ServerFile)
		if exe := st.ServerExe; exe != "" && !executable(exe) {
			server.Detail += ": but " + exe + " is not an executable"
			server.Fix = fix + "   (re-run to point it at this binary)"
			break
		}
		server.OK, server.Fix = true, ""
		break
	}
	have := map[string]bool{}
	var events []string
	for _, st := range statuses {
		for _, ev := range append(append([]string(nil), st.Hooks...), st.Missing...) {
			if !slices.Contains(events, ev) {
				events = append(events, ev)
			}
		}
		for _, ev := range st.Hooks {
			have[ev] = true
		}
	}
	var missing []string
	for _, ev := range events {
		if !have[ev] {
			missing = append(missing, ev)
		}
	}
	hk := check{Name: prefix + "hooks", OK: len(events) > 0 && len(missing) == 0,
		Detail: fmt.Sprintf("%d of %d %s hooks wired", len(events)-len(missing), len(events), h.Display)}
	if len(missing) > 0 || len(events) == 0 {
		if len(missing) > 0 {
			hk.Detail += "; missing: " + strings.Join(missing, ", ")
		}
		hk.Fix = fix
	}
	checks := []check{server, hk}
	for _, st := range statuses {
		for _, f := range st.Findings {
			c := check{Name: prefix + f.Check, OK: f.OK, Detail: h.Display + ": " + f.Detail, Fix: f.Fix}
			if !slices.Contains(checks, c) {
				checks = append(checks, c)
			}
		}
	}
	return checks
}

// hookBinaryCheck reports the planq-hook binary that serves the tool hooks
// (beside this planq, and wherever the wiring points) and the planq-sandbox
// beside this planq that locked shell commands start: each must be of
// planq's version, or the hooks and the sandbox follow other rules.
func hookBinaryCheck(ctx context.Context, a *app, statuses []conffile.Status) check {
	c := check{Name: "hook-bin", OK: true}
	var bins []string
	var lean string // planq-sandbox beside planq
	if exe, err := a.Executable(); err == nil {
		if p := conffile.HookBinaryBeside(exe); p != "" {
			bins = append(bins, p)
		}
		lean = sandboxBeside(exe)
	}
	for _, st := range statuses {
		for _, exe := range st.ToolHookExes {
			if strings.HasPrefix(filepath.Base(exe), conffile.HookBinary) && !slices.Contains(bins, exe) {
				bins = append(bins, exe)
			}
		}
	}
	// Each binary planq starts, and what it is there for.
	type companion struct{ path, does string }
	var cs []companion
	var details []string
	if len(bins) == 0 {
		details = append(details, conffile.HookBinary+" is not installed beside planq; the tool hooks run `planq hook …`, which starts several times slower")
		c.Fix = "make install   (builds and installs planq and planq-hook), then planq mcp install"
	}
	for _, b := range bins {
		cs = append(cs, companion{b, "serves the tool hooks"})
	}
	if lean != "" {
		cs = append(cs, companion{lean, "runs locked shell commands"})
	}
	for _, b := range cs {
		if !executable(b.path) {
			c.OK = false
			details = append(details, b.path+" is wired but is not an executable")
			c.Fix = "make install, then planq mcp install"
			continue
		}
		switch v, err := binaryVersion(ctx, b.path); {
		case err != nil:
			c.OK = false
			details = append(details, fmt.Sprintf("%s does not run (%v)", b.path, err))
			c.Fix = "make install"
		case v != version.String():
			c.OK = false
			details = append(details, fmt.Sprintf("%s is version %s, planq is %s", b.path, v, version.String()))
			c.Fix = "make install   (installs matching planq, planq-hook and planq-sandbox)"
		default:
			details = append(details, fmt.Sprintf("%s %s %s", b.path, v, b.does))
		}
	}
	c.Detail = strings.Join(details, "; ")
	return c
}

// binaryVersion asks one of planq's binaries its version (`NAME version`
// prints "NAME VERSION").
func binaryVersion(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return "", fmt.Errorf("it printed no version")
	}
	return f[len(f)-1], nil
}

// sandboxBeside returns the planq-sandbox installed beside exe, or "".
func sandboxBeside(exe string) string {
	p := filepath.Join(filepath.Dir(exe), sandbox.LeanBinary)
	if strings.EqualFold(filepath.Ext(exe), ".exe") {
		p += ".exe"
	}
	if executable(p) {
		return p
	}
	return ""
}

// executable reports whether path is an executable file (on Windows, where
// files carry no execute bits, any regular file).
func executable(path string) bool { return conffile.Executable(path) }

// repoKind classifies dir by walking up to the nearest .jj or .git.
func repoKind(dir string) (kind, root string) {
	for d := dir; ; d = filepath.Dir(d) {
		hasJJ := isDir(filepath.Join(d, ".jj"))
		_, gitErr := os.Stat(filepath.Join(d, ".git"))
		switch {
		case hasJJ && gitErr == nil:
			return repoJJColocated, d
		case hasJJ:
			return repoJJ, d
		case gitErr == nil:
			return repoGitOnly, d
		}
		if filepath.Dir(d) == d {
			return repoNone, ""
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// installHint is the command that installs tool ("jj" or "git", a git jj
// can fetch with) on the platform goos (runtime.GOOS).
func installHint(goos, tool string) string {
	switch tool + "/" + goos {
	case "jj/darwin":
		return "brew install jj"
	case "jj/windows":
		return "winget install jj-vcs.jj"
	case "jj/linux":
		return "make install   (Debian: installs jj from Debian forky, see scripts/install-jj.sh; elsewhere: https://jj-vcs.github.io/jj/latest/install-and-setup/)"
	case "git/darwin":
		return `brew install git && jj config set --user git.executable-path "$(brew --prefix)/bin/git"`
	case "git/windows":
		return "winget install Git.Git   (Git for Windows >= " + jj.MinGitVersion + "; then restart the terminal)"
	case "git/linux":
		return "make install   (Debian 12: bash scripts/install-git.sh; elsewhere install git >= " + jj.MinGitVersion + " and run: jj config set --user git.executable-path /path/to/git)"
	}
	if tool == "jj" {
		return "install jj >= " + jj.MinVersion + ": https://jj-vcs.github.io/jj/latest/install-and-setup/"
	}
	return "install git >= " + jj.MinGitVersion + " and run: jj config set --user git.executable-path /path/to/git"
}

// gitCheck judges the git jj runs: jj 0.46 fetches with `git fetch
// --porcelain`, which needs git >= jj.MinGitVersion.
func gitCheck(g jj.GitInfo, goos string) check {
	c := check{Name: "git", OK: g.Suitable()}
	where := "git on PATH"
	if g.Setting != "git" {
		where = "git.executable-path"
	}
	switch {
	case c.OK:
		c.Detail = fmt.Sprintf("jj runs %s (%s)", g, where)
		return c
	case g.Path == "":
		c.Detail = fmt.Sprintf("jj runs %q (%s), which is not installed; jj fetches and pushes with git >= %s", g.Setting, where, jj.MinGitVersion)
	default:
		c.Detail = fmt.Sprintf("jj runs %s (%s); jj needs git >= %s to fetch (`git fetch --porcelain`)", g, where, jj.MinGitVersion)
	}
	c.Fix = installHint(goos, "git")
	return c
}

// localWiringCheck says whether planq's local wiring (files, repo-relative)
// stays out of the repo: no file tracked, none changed by a change of the
// stack jj_push would push (hosts.FindLeaks). ok is false when there is
// no local wiring to check.
func localWiringCheck(ctx context.Context, root string, files []string) (check, bool) {
	if len(files) == 0 {
		return check{}, false
	}
	c := check{Name: "local-wiring", OK: true,
		Detail: fmt.Sprintf("planq's local wiring (%s) is in no change and untracked", strings.Join(files, ", "))}
	leaks, err := hosts.FindLeaks(ctx, jj.New(root), root, files)
	switch {
	case err != nil:
		c.OK, c.Detail, c.Fix = false, "cannot tell whether planq's local wiring stays out of the repo: "+err.Error(), "jj status   (then planq doctor again)"
	case len(leaks) > 0:
		var where []string
		for _, l := range leaks {
			where = append(where, l.String())
		}
		c.OK = false
		c.Detail = "planq's local wiring is in the repo, so it goes into your changes and jj_push would push it: " + strings.Join(where, "; ")
		c.Fix = hosts.LeakFix(leaks)
	}
	return c, true
}

// wiringFiles are the project-scope files that hold planq's wiring.
var wiringFiles = []string{".mcp.json", ".claude/settings.json"}

// wiringInJJ adds, to wiring checks that failed, where planq's project-scope
// wiring went when it is in a jj change the working copy does not include
// (a `jj new` elsewhere took it off the disk), and the fixes.
func wiringInJJ(ctx context.Context, c *jj.Client, checks []check) []check {
	failed := false
	for _, ch := range checks {
		failed = failed || !ch.OK
	}
	if !failed {
		return checks
	}
	var sets []string
	for _, f := range wiringFiles {
		sets = append(sets, fmt.Sprintf("files(root-file:%q)", f))
	}
	held, err := c.Log(ctx, "latest(("+strings.Join(sets, " | ")+") ~ ::@)")
	if err != nil || len(held) == 0 {
		return checks
	}
	ch := held[0]
	for i := range checks {
		if checks[i].OK {
			continue
		}
		checks[i].Detail += fmt.Sprintf("; planq's wiring (%s) is in change %s %q, not in the working copy", strings.Join(wiringFiles, ", "), ch.ShortID(), ch.Title())
		checks[i].Fix = fmt.Sprintf("planq mcp install   (local scope: kept out of every change; or bring the files back: jj restore --from %s %s)", ch.ShortID(), strings.Join(wiringFiles, " "))
	}
	return checks
}

// enforcementCheck says how the gate holds locked shell commands here, per
// host where they differ: in the OS sandbox (the project read-only) for a
// host that applies rewritten commands on a machine with one, else by the
// parser alone, and why (also when the user turned the sandbox off with
// PLANQ_SANDBOX=off here or gate.sandbox: off in root's configuration). It
// is reported, not failed: a parser-only gate is still a gate.
func enforcementCheck(hcs []hostChecks, root string, getenv func(string) string) check {
	by := map[string][]string{}
	var order []string
	for _, hc := range hcs {
		how, _ := session.Enforcement(hc.host.Host(), root, getenv)
		if _, ok := by[how]; !ok {
			order = append(order, how)
		}
		by[how] = append(by[how], hc.host.Host().Display)
	}
	c := check{Name: "gate", OK: true}
	var parts []string
	for _, how := range order {
		parts = append(parts, how+" for "+strings.Join(by[how], ", "))
	}
	c.Detail = strings.Join(parts, "; ")
	e := sandbox.Detect()
	off := gate.SandboxOff(getenv, gate.LoadProject(root).Policy)
	switch entry, err := sandbox.Entry(); {
	case e.Available() && strings.HasPrefix(off, gate.SandboxEnv):
		c.Fix = "unset " + gate.SandboxEnv + " where the agent host starts, to run locked shell commands in the OS sandbox again"
	case e.Available() && off != "":
		c.Fix = "remove gate.sandbox: off from " + config.File + " (once the change is declared), to run locked shell commands in the OS sandbox again"
	case e.Available() && getenv(gate.SandboxEnv) != "" && !strings.EqualFold(strings.TrimSpace(getenv(gate.SandboxEnv)), "on"):
		c.Detail += "; " + gate.SandboxEnv + "=" + getenv(gate.SandboxEnv) + " is neither on nor off: the OS sandbox stays on"
		c.Fix = gate.SandboxEnv + "=off turns it off (the parser-only gate); unset it otherwise"
	case !e.Available() && runtime.GOOS == "linux":
		c.Fix = "a Linux 6.2 or later kernel with Landlock enabled (lsm= boot parameter) gives locked shell commands the OS sandbox"
	case e.Available() && err == nil && filepath.Base(entry[0]) != sandbox.LeanBinary:
		// Works, but every sandboxed command starts a bigger binary.
		c.Detail += "; sandboxed commands start " + strings.Join(entry, " ") + " (" + sandbox.LeanBinary + " is not installed beside planq)"
		c.Fix = "make install (it puts " + sandbox.LeanBinary + " beside planq: each sandboxed command starts faster)"
	}
	return c
}
