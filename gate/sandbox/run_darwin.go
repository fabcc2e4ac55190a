//go:build darwin

package sandbox

import (
	"fmt"
	"syscall"
)

// start starts argv (a shell and its -c) under sandbox-exec with pl's
// profile (SeatbeltProfile); this process stays unconfined. Never run in
// planq's tests (they run on Linux).
func start(pl Plan, argv []string, attr *syscall.ProcAttr) (int, error) {
	if e := Detect(); e.Kind != KindSeatbelt {
		return 0, fmt.Errorf("no OS sandbox here: %s", e.Reason)
	}
	argv = append([]string{sandboxExec, "-p", SeatbeltProfile(pl)}, argv...)
	return syscall.ForkExec(sandboxExec, argv, attr)
}

// parentShell is unknown on macOS without cgo: $SHELL decides.
func parentShell() string { return "" }
