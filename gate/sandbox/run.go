package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/planq-dev/planq/gate/dirs"
)

// ExitCannotRun is the entry point's exit status when the command did not
// run at all (bad arguments, no sandbox here, the sandbox could not be
// made), as a shell's 126; the reason is one line on stderr.
const ExitCannotRun = 126

// Main is the entry point a rewritten command runs (planq-hook sandbox
// ARGS, planq hook sandbox ARGS): it runs the invocation ParseArgs reads
// from args and returns the command's exit status. It confines its own
// process, so it runs once per process.
func Main(args []string) int {
	// A short life with little memory: no garbage collection, and one
	// processor, so that no thread spins up to look for work while the
	// command runs (each costs this process CPU time and the machine a
	// context switch; measured: a third of the entry point's CPU time).
	debug.SetGCPercent(-1)
	runtime.GOMAXPROCS(1)
	inv, err := ParseArgs(args)
	if err != nil {
		return cannotRun(err)
	}
	return Run(inv)
}

func cannotRun(err error) int {
	fmt.Fprintf(os.Stderr, "planq sandbox: %s; the command did not run\n", err)
	return ExitCannotRun
}

// Hint is the line a sandboxed command that failed on a refused write adds
// to its stderr: why, and the tools that declare the change.
func Hint(root string, tools []string) string {
	next := "declare the change with planq's jj_init tool"
	switch len(tools) {
	case 0:
	case 1:
		next = "call " + tools[0]
	default:
		next = "call " + strings.Join(tools[:len(tools)-1], ", then ") + ", then " + tools[len(tools)-1]
	}
	return "planq: the project " + root + " is read-only until the change is declared (no jj change describes this work yet): " +
		next + " with a one-line description of what you are about to do, then run this again."
}

// refusalScanner watches a stream for the words of a refused write, across
// the boundaries of the chunks it is given.
type refusalScanner struct {
	tail    []byte
	refused bool
}

// refusals are how programs report EACCES, EPERM, EROFS and EXDEV (what
// Landlock answers a link or rename out of the project), lowercased.
var refusals = []string{"permission denied", "operation not permitted", "read-only file system", "invalid cross-device link", "eacces", "eperm", "erofs", "exdev"}

const refusalKeep = len("invalid cross-device link") - 1

func (s *refusalScanner) Write(p []byte) {
	if s.refused {
		return
	}
	b := append(s.tail, p...)
	low := strings.ToLower(string(b))
	for _, w := range refusals {
		if strings.Contains(low, w) {
			s.refused = true
			return
		}
	}
	if len(b) > refusalKeep {
		b = b[len(b)-refusalKeep:]
	}
	s.tail = append(s.tail[:0], b...)
}

// snapshot records the working copy in the project's jj repository, so
// that jj in the sandbox, which cannot, reads it as it is now. A failure
// is left to the jj command in the sandbox to report.
func snapshot(jjBin, root string) {
	if st, err := os.Stat(filepath.Join(root, ".jj")); err != nil || !st.IsDir() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, jjBin, "util", "snapshot")
	c.Dir = root
	_ = c.Run()
}

// writeJJShim makes bin/jj: a script that runs the real jj with
// --ignore-working-copy, so that no jj command in the sandbox snapshots or
// updates the working copy (which it could not write anyway).
func writeJJShim(bin, realJJ string) error {
	if err := os.Mkdir(bin, 0o700); err != nil {
		return err
	}
	script := "#!/bin/sh\nexec " + quote(realJJ) + " --ignore-working-copy \"$@\"\n"
	return os.WriteFile(filepath.Join(bin, "jj"), []byte(script), 0o700)
}

// tempWritable reports whether the temporary directory a command uses
// (tmpdir, its TMPDIR, else /tmp) is writable under pl, so that it needs no
// private one.
func tempWritable(pl Plan, tmpdir string) bool {
	if tmpdir == "" {
		tmpdir = "/tmp"
	}
	if !filepath.IsAbs(tmpdir) {
		return false
	}
	r := resolve(tmpdir)
	for _, d := range pl.Dirs {
		if within(d, r) {
			return true
		}
	}
	return false
}

// privateTemp makes the run's own TMPDIR in the first temporary directory
// outside the project.
func privateTemp(root string) (string, error) {
	cands := append([]string{os.Getenv("TMPDIR")}, dirs.Temp...)
	for _, c := range cands {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		r := resolve(c)
		// A temporary directory holding the project still serves: the
		// private directory is made beside the project, not in it.
		if st, err := os.Stat(r); err != nil || !st.IsDir() || within(root, r) {
			continue
		}
		d, err := os.MkdirTemp(r, "planq-sandbox-")
		if err == nil {
			return d, nil
		}
	}
	return "", errors.New("no temporary directory outside the project to give the command")
}

func setEnv(env []string, k, v string) []string {
	env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
	return append(env, k+"="+v)
}

// knownShells are the shells whose -c the entry point runs a command with.
var knownShells = []string{"bash", "zsh", "sh", "dash", "ksh", "mksh", "ash", "yash", "posh"}

// pickShell is the shell to run the command with, and the name to give it
// ($0, which its error messages start with): the one the host named
// (Invocation.Shell: "bash", "/bin/bash") when it is a POSIX shell; else
// the one that ran the entry point (the host's choice, with its dialect),
// named as its parent named it, when the platform can tell; else $SHELL
// when it is a POSIX shell, else bash, else /bin/sh.
func pickShell(named string) (path, argv0 string) {
	if named != "" && slices.Contains(knownShells, filepath.Base(named)) {
		if p, err := exec.LookPath(named); err == nil {
			return p, named
		}
	}
	if s, arg0 := parentShell(); s != "" {
		return s, arg0
	}
	if s := os.Getenv("SHELL"); filepath.IsAbs(s) && slices.Contains(knownShells, filepath.Base(s)) {
		if _, err := os.Stat(s); err == nil {
			return s, s
		}
	}
	if s, err := exec.LookPath("bash"); err == nil {
		return s, s
	}
	return "/bin/sh", "/bin/sh"
}
