//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// start starts argv (a shell and its -c) confined to pl with Landlock and
// the unix-socket seccomp filter, both applied to the calling goroutine's
// OS thread, which stays locked to it (and confined) for the rest of this
// process's short life: only that thread and the command it forks are
// confined, and the rest of this process (removing the private TMPDIR)
// runs on other threads. The command gets SIGTERM if this process dies
// first (the thread it was forked from is this process's main one), so a
// host that kills the entry point kills the command too.
func start(pl Plan, shell string, argv []string, attr *syscall.ProcAttr) (int, error) {
	e := Detect()
	if e.Kind != KindLandlock {
		return 0, fmt.Errorf("no OS sandbox here: %s", e.Reason)
	}
	pl.Files = append(pl.Files, outputFiles(pl)...)
	runtime.LockOSThread() // never unlocked
	if err := restrictThread(e.ABI, pl); err != nil {
		return 0, err
	}
	if err := restrictSockets(); err != nil {
		return 0, err
	}
	attr.Sys = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	return syscall.ForkExec(shell, argv, attr)
}

// cloexecInherited marks the descriptors above stderr close-on-exec, in
// one close_range(2) (Linux 5.11; a kernel with Landlock ABI 3 has it).
func cloexecInherited() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) != nil {
		cloexecFrom("/proc/self/fd")
	}
}

// forwardSignals is not needed here: the command dies with this process
// (Pdeathsig), and a terminal's signals reach both.
func forwardSignals(pid int) (stop func()) { return func() {} }

// parentShell is the shell that started this process, read from
// /proc/PPID/exe, when it is a POSIX shell, and the name its parent gave
// it (its argv[0], /proc/PPID/cmdline: "bash", "/bin/bash"); "" otherwise
// (a host that started the entry point directly, or a shell that exec'd it
// as its last command, leaves the host as the parent).
func parentShell() (path, argv0 string) {
	proc := fmt.Sprintf("/proc/%d/", os.Getppid())
	exe, err := os.Readlink(proc + "exe")
	if err != nil || !filepath.IsAbs(exe) || !slices.Contains(knownShells, filepath.Base(exe)) {
		return "", ""
	}
	argv0 = exe
	if cmdline, err := os.ReadFile(proc + "cmdline"); err == nil {
		if a, _, _ := strings.Cut(string(cmdline), "\x00"); a != "" {
			argv0 = a
		}
	}
	return exe, argv0
}

// outputFiles are the regular files this process's stdout and stderr write
// (a host that captures a command's output in a file), outside the project
// and the places code is loaded from: the command may reopen them as
// /dev/stdout or /dev/fd/1, as it could unsandboxed.
func outputFiles(pl Plan) []string {
	var out []string
	for fd := 1; fd <= 2; fd++ {
		p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
		if err != nil || !filepath.IsAbs(p) {
			continue
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		if !overlaps(p, pl.Guarded) && !overlaps(p, pl.Code) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
