//go:build linux || darwin

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// Run runs inv.Command in the sandbox, with stdin and stdout passed
// through, stderr copied (and read for refused writes), and the exit
// status of the command (128+N when a signal N killed it).
//
// Before confining the command it snapshots the project's working copy
// when the command runs jj (jj inside cannot), makes the private TMPDIR,
// and then puts a jj first on PATH that runs the real one with
// --ignore-working-copy, so jj reads what was snapshotted and records
// nothing.
func Run(inv Invocation) int {
	root, err := filepath.EvalSymlinks(inv.Root)
	if err != nil {
		return cannotRun(fmt.Errorf("the project %s: %w", inv.Root, err))
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return cannotRun(fmt.Errorf("the project %s is not a directory", inv.Root))
	}
	tmp, err := privateTemp(root)
	if err != nil {
		return cannotRun(err)
	}
	defer removeUnconfined(tmp)
	env := setEnv(os.Environ(), "TMPDIR", tmp)
	if RunsJJ(inv.Command) {
		if realJJ, err := exec.LookPath("jj"); err == nil {
			snapshot(realJJ, root)
			bin := filepath.Join(tmp, ".planq-bin")
			if err := writeJJShim(bin, realJJ); err != nil {
				return cannotRun(err)
			}
			env = setEnv(env, "PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
		}
	}
	exe, _ := os.Executable()
	pl := NewPlan(Spec{Root: root, TempDir: tmp, Exe: exe, Getenv: os.Getenv})
	shell := pickShell()
	r, w, err := os.Pipe()
	if err != nil {
		return cannotRun(err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	pid, err := start(pl, []string{shell, "-c", inv.Command}, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, w.Fd()}})
	w.Close()
	if err != nil {
		r.Close()
		return cannotRun(err)
	}
	var scan refusalScanner
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				os.Stderr.Write(buf[:n])
				scan.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	done := make(chan syscall.WaitStatus, 1)
	go func() {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		done <- ws
	}()
	var ws syscall.WaitStatus
wait:
	for {
		select {
		case s := <-sigs:
			syscall.Kill(pid, s.(syscall.Signal))
		case ws = <-done:
			break wait
		}
	}
	// A process the command left in the background may hold stderr open;
	// its output after this is lost rather than the answer held up.
	select {
	case <-copied:
	case <-time.After(200 * time.Millisecond):
	}
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	if code != 0 && scan.refused {
		fmt.Fprintln(os.Stderr, Hint(root, inv.Tools))
	}
	return code
}

// removeUnconfined removes the private TMPDIR from another thread than the
// confined one this goroutine is locked to (removing it needs the right to
// write its parent, which the sandbox may not grant).
func removeUnconfined(dir string) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		os.RemoveAll(dir)
	}()
	<-done
}
