//go:build !linux && !darwin

package sandbox

import "fmt"

// parentShell is not known here; pickShell (run.go) asks, though only
// run_unix.go calls pickShell.
//
//lint:ignore U1000 run.go's pickShell refers to it on every platform.
func parentShell() (path, argv0 string) { return "", "" }

// Run fails: there is no OS sandbox here.
func Run(inv Invocation) int {
	return cannotRun(fmt.Errorf("no OS sandbox here: %s", Detect().Reason))
}
