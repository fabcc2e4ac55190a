package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/jj"
)

// Repo kinds reported by doctor.
const (
	repoJJColocated = "jj colocated"
	repoJJ          = "jj"
	repoGitOnly     = "git only"
	repoNone        = "none"
)

// minJJ is the oldest jj planq supports.
const minJJMajor, minJJMinor = 0, 30

type doctorOptions struct {
	Repo string
	JSON bool
}

// check is one line of doctor's report.
type check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // the command that fixes it
}

// doctorReport is doctor's whole report.
type doctorReport struct {
	Version  string  `json:"version"`
	Dir      string  `json:"dir"`
	JJ       string  `json:"jj,omitempty"` // jj's version, when found
	JJPath   string  `json:"jj_path,omitempty"`
	RepoKind string  `json:"repo_kind"`
	RepoRoot string  `json:"repo_root,omitempty"`
	Checks   []check `json:"checks"`
	Healthy  bool    `json:"healthy"`
}

func newDoctorCmd(a *app) *cobra.Command {
	opts := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check jj, the repo and planq's wiring, and say how to fix what is missing",
		Long: `Check that planq can work here: jj is installed and recent enough, the directory
is a jj repo (colocated with git, jj only, git only, or none), and the settings
file is valid. Every problem comes with the command that fixes it.

Exit status is 0 when everything is in order, 1 otherwise.`,
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
	rep := doctorReport{Version: buildVersion(), Dir: dir}
	ctx := cmd.Context()

	client := jj.New(dir)
	jjOK := false
	if v, err := client.Version(ctx); err != nil {
		rep.Checks = append(rep.Checks, check{Name: "jj", Detail: "jj is not installed", Fix: "make install   (or: bash scripts/install-jj.sh)"})
	} else {
		rep.JJ = v
		if p, err := lookPath("jj"); err == nil {
			rep.JJPath = p
		}
		jjOK = versionAtLeast(v, minJJMajor, minJJMinor)
		c := check{Name: "jj", OK: jjOK, Detail: "jj " + v}
		if !jjOK {
			c.Detail += fmt.Sprintf(" is older than %d.%d", minJJMajor, minJJMinor)
			c.Fix = "bash scripts/install-jj.sh   (or upgrade jj: https://jj-vcs.github.io/jj/latest/install-and-setup/)"
		}
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
	}

	home := a.Getenv("HOME")
	statuses := hooks.Installed(root, home)
	rep.Checks = append(rep.Checks, wiringChecks(statuses)...)
	rep.Checks = append(rep.Checks, hookBinaryCheck(ctx, a, statuses))

	rep.Healthy = true
	for _, c := range rep.Checks {
		rep.Healthy = rep.Healthy && c.OK
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
			if !c.OK {
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

// wiringChecks reports whether Claude Code will start planq's MCP server
// and run its hooks, in any scope, and whether the binary they name exists.
func wiringChecks(statuses []hooks.Status) []check {
	server := check{Name: "server", Detail: "planq's MCP server is not registered with Claude Code", Fix: "planq mcp install"}
	for _, st := range statuses {
		if !st.Server {
			continue
		}
		server.Detail = fmt.Sprintf("MCP server registered (%s scope, %s)", st.Scope, st.ServerFile)
		if exe := st.ServerExe; exe != "" && !executable(exe) {
			server.Detail += ": but " + exe + " is not an executable"
			server.Fix = "planq mcp install   (re-run to point it at this binary)"
			break
		}
		server.OK, server.Fix = true, ""
		break
	}
	have := map[string]string{}
	for _, st := range statuses {
		for _, ev := range st.Hooks {
			if have[ev] == "" {
				have[ev] = st.Scope
			}
		}
	}
	var missing []string
	for _, h := range hooks.Hooks {
		if have[h.Event] == "" {
			missing = append(missing, h.Event)
		}
	}
	hk := check{Name: "hooks", OK: len(missing) == 0, Detail: fmt.Sprintf("%d of %d Claude Code hooks wired", len(hooks.Hooks)-len(missing), len(hooks.Hooks))}
	if len(missing) > 0 {
		hk.Detail += "; missing: " + strings.Join(missing, ", ")
		hk.Fix = "planq mcp install"
	}
	return []check{server, hk}
}

// hookBinaryCheck reports the planq-hook binary that serves the tool hooks:
// beside this planq, and wherever the wiring points; its version must be
// planq's.
func hookBinaryCheck(ctx context.Context, a *app, statuses []hooks.Status) check {
	c := check{Name: "hook-bin", OK: true}
	var bins []string
	if exe, err := a.Executable(); err == nil {
		if p := hooks.HookBinaryBeside(exe); p != "" {
			bins = append(bins, p)
		}
	}
	for _, st := range statuses {
		for _, exe := range st.ToolHookExes {
			if strings.HasPrefix(filepath.Base(exe), hooks.HookBinary) && !slices.Contains(bins, exe) {
				bins = append(bins, exe)
			}
		}
	}
	if len(bins) == 0 {
		c.Detail = hooks.HookBinary + " is not installed beside planq; the tool hooks run `planq hook …`, which starts several times slower"
		c.Fix = "make install   (builds and installs planq and planq-hook), then planq mcp install"
		return c
	}
	var details []string
	for _, b := range bins {
		if !executable(b) {
			c.OK = false
			details = append(details, b+" is wired but is not an executable")
			c.Fix = "make install, then planq mcp install"
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := exec.CommandContext(ctx, b, "version").Output()
		cancel()
		v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), hooks.HookBinary))
		switch {
		case err != nil:
			c.OK = false
			details = append(details, fmt.Sprintf("%s does not run (%v)", b, err))
			c.Fix = "make install"
		case v != buildVersion():
			c.OK = false
			details = append(details, fmt.Sprintf("%s is version %s, planq is %s", b, v, buildVersion()))
			c.Fix = "make install   (installs matching planq and planq-hook)"
		default:
			details = append(details, fmt.Sprintf("%s %s serves the tool hooks", b, v))
		}
	}
	c.Detail = strings.Join(details, "; ")
	return c
}

// executable reports whether path is an executable file.
func executable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

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

// versionAtLeast reports whether a "major.minor.patch" version is at least
// major.minor.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// lookPath finds an executable on PATH.
func lookPath(name string) (string, error) { return exec.LookPath(name) }
