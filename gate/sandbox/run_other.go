//go:build !linux && !darwin

package sandbox

import (
	"fmt"
	"syscall"
)

// start fails: there is no OS sandbox here, and the gate never rewrites a
// command to run one (Detect says so).
func start(pl Plan, argv []string, attr *syscall.ProcAttr) (int, error) {
	return 0, fmt.Errorf("no OS sandbox here: %s", Detect().Reason)
}

func parentShell() string { return "" }

// Run fails: there is no OS sandbox here.
func Run(inv Invocation) int {
	return cannotRun(fmt.Errorf("no OS sandbox here: %s", Detect().Reason))
}
