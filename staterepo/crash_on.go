//go:build planqfault && unix

package staterepo

import (
	"os"
	"syscall"
)

// crashPoint kills the process, as kill -9 would, when PLANQ_CRASH_AT names
// this point. It is compiled only into the binary the fault-injection suite
// builds (-tags planqfault), to land kills on the instants between the
// steps of a write that a random delay rarely hits.
func crashPoint(name string) {
	if os.Getenv("PLANQ_CRASH_AT") == name {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}

// crashing reports whether crashPoint(name) will kill the process.
func crashing(name string) bool { return os.Getenv("PLANQ_CRASH_AT") == name }
