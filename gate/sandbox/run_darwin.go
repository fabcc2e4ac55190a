//go:build darwin

package sandbox

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// start starts argv (a shell and its -c) under sandbox-exec with pl's
// profile (SeatbeltProfile); this process stays unconfined. Never run in
// planq's tests (they run on Linux).
func start(pl Plan, shell string, argv []string, attr *syscall.ProcAttr) (int, error) {
	if e := Detect(); e.Kind != KindSeatbelt {
		return 0, fmt.Errorf("no OS sandbox here: %s", e.Reason)
	}
	// sandbox-exec execs its arguments by path: the shell's name ($0) is
	// its path here.
	argv = append([]string{sandboxExec, "-p", SeatbeltProfile(pl), shell}, argv[1:]...)
	return syscall.ForkExec(sandboxExec, argv, attr)
}

// cloexecInherited marks the descriptors above stderr close-on-exec.
func cloexecInherited() { cloexecFrom("/dev/fd") }

// forwardSignals passes the signals that stop a command on to it: this
// process is not its only way to learn of them, but a host may signal the
// entry point alone.
func forwardSignals(pid int) (stop func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				syscall.Kill(pid, s.(syscall.Signal))
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(sigs); close(done) }
}

// parentShell is unknown on macOS without cgo: $SHELL decides.
func parentShell() (path, argv0 string) { return "", "" }
