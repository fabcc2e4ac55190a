//go:build darwin

package gitstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFile flushes f to the disk with fsync(2). Go's File.Sync uses
// F_FULLFSYNC on macOS, which also empties the drive's cache and costs tens
// of milliseconds per call; git uses fsync(2) too unless configured otherwise.
func syncFile(f *os.File) error { return unix.Fsync(int(f.Fd())) }
