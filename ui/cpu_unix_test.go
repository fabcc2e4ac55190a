//go:build unix

package ui_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process and its finished children (jj)
// have used so far: what a request costs, whatever else the machine runs.
func cpuTime() (time.Duration, bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0, false
	}
	var d int64
	for _, ru := range []syscall.Rusage{self, children} {
		d += ru.Utime.Nano() + ru.Stime.Nano()
	}
	return time.Duration(d), true
}
