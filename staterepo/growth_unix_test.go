//go:build unix

package staterepo

import (
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// allocated is the disk space st's file takes.
func allocated(st fs.FileInfo) int64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int64(sys.Blocks) * 512
	}
	return st.Size()
}

// peakRSS is a finished process's peak resident memory in bytes, the
// largest of it and the children it waited for (git, for planq).
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes there, kilobytes elsewhere
	}
	return int64(ru.Maxrss) * 1024
}
