//go:build planqfault && unix

package crash

import (
	"os"
	"syscall"
)

// Point kills the process, as kill -9 would, when PLANQ_CRASH_AT names this
// point. It is compiled only into the binary the fault-injection suite
// builds (-tags planqfault), to land kills on the instants between the
// steps of a write that a random delay rarely hits.
func Point(name string) {
	if os.Getenv("PLANQ_CRASH_AT") == name {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
}

// Armed reports whether Point(name) will kill the process.
func Armed(name string) bool { return os.Getenv("PLANQ_CRASH_AT") == name }
