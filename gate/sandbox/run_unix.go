//go:build linux || darwin

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Run runs inv.Command in the sandbox, with stdin and stdout passed
// through, stderr copied (and read for refused writes), no other
// descriptor passed on, and the exit status of the command (128+N when a
// signal N killed it).
//
// Before confining the command it snapshots the project's working copy
// when the command runs jj (jj inside cannot) and puts a jj first on PATH
// that runs the real one with --ignore-working-copy, so jj reads what was
// snapshotted and records nothing. The command keeps its TMPDIR when the
// sandbox lets it write there; otherwise (the temporary directory holds
// the project or the home directory) and for the jj shim, it gets a
// private one, made beside the project and removed afterwards.
func Run(inv Invocation) int {
	// Only stdin, stdout and stderr reach the command: Landlock judges a
	// file when it is opened, so a descriptor this process inherited (one
	// the host or its shell left open on a project file, or on a socket
	// to a daemon) would write past the sandbox.
	cloexecInherited()
	root, err := filepath.EvalSymlinks(inv.Root)
	if err != nil {
		return cannotRun(fmt.Errorf("the project %s: %w", inv.Root, err))
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return cannotRun(fmt.Errorf("the project %s is not a directory", inv.Root))
	}
	exe, _ := os.Executable()
	pl := NewPlan(Spec{Root: root, Exe: exe, Getenv: os.Getenv})
	env := os.Environ()
	realJJ := ""
	if RunsJJ(inv.Command) {
		realJJ, _ = exec.LookPath("jj")
	}
	if realJJ != "" || !tempWritable(pl, os.Getenv("TMPDIR")) {
		// A private TMPDIR, beside the project when the temporary
		// directory holds it: for the jj shim, or because the command's
		// own temporary directory cannot be writable.
		tmp, err := privateTemp(root)
		if err != nil {
			return cannotRun(err)
		}
		defer removeUnconfined(tmp)
		if !pl.grant(resolve(tmp)) {
			return cannotRun(fmt.Errorf("the private temporary directory %s cannot be made writable (it lies in the project's repository)", tmp))
		}
		env = setEnv(env, "TMPDIR", tmp)
		if realJJ != "" {
			snapshot(realJJ, root)
			bin := filepath.Join(tmp, ".planq-bin")
			if err := writeJJShim(bin, realJJ); err != nil {
				return cannotRun(err)
			}
			env = setEnv(env, "PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
		}
	}
	shell, argv0 := pickShell(inv.Shell)
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		return cannotRun(err)
	}
	r, w := p[0], p[1]
	syscall.CloseOnExec(r)
	pid, err := start(pl, shell, []string{argv0, "-c", inv.Command}, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, uintptr(w)}})
	syscall.Close(w)
	if err != nil {
		syscall.Close(r)
		return cannotRun(err)
	}
	stop := forwardSignals(pid)
	defer stop()
	var scan refusalScanner
	ws := copyUntilExit(r, pid, &scan)
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if code != 0 && scan.refused {
		fmt.Fprintln(os.Stderr, Hint(root, inv.Tools))
	}
	return code
}

// copyUntilExit copies the command's stderr (the pipe r) to this
// process's, through scan, until it ends, and reaps the command. It uses
// the pipe directly, with poll(2), in the calling goroutine, which is
// locked to its thread (start): Go's poller would wait for another thread
// to notice the pipe, milliseconds on a busy machine. A poll waits at most
// 50 ms, then the command is looked at. A process the command left in the
// background may hold stderr open; 200 ms after the command exits, its
// output is dropped rather than the answer held up.
func copyUntilExit(r, pid int, scan *refusalScanner) syscall.WaitStatus {
	defer syscall.Close(r)
	var ws syscall.WaitStatus
	exited := false
	var grace time.Time
	buf := make([]byte, 32<<10)
	fds := []unix.PollFd{{Fd: int32(r), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 50)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break
		}
		if n > 0 {
			m, err := syscall.Read(r, buf)
			if m > 0 {
				os.Stderr.Write(buf[:m])
				scan.Write(buf[:m])
				continue
			}
			if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
				continue
			}
			break // EOF: every writer is gone
		}
		if !exited {
			if p, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); p == pid {
				exited, grace = true, time.Now().Add(200*time.Millisecond)
			}
		}
		if exited && time.Now().After(grace) {
			break
		}
	}
	for !exited {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		exited = !errors.Is(err, syscall.EINTR)
	}
	return ws
}

// cloexecFrom marks every descriptor above stderr listed in dir (the
// process's own descriptors: /proc/self/fd, /dev/fd) close-on-exec.
func cloexecFrom(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// removeUnconfined removes the private TMPDIR from another thread than the
// confined one the caller is locked to (removing it needs the right to
// write its parent, which the sandbox may not grant).
func removeUnconfined(dir string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		os.RemoveAll(dir)
	}()
	<-done
}
