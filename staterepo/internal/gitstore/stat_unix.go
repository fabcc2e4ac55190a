//go:build linux || darwin || freebsd || netbsd

package gitstore

import (
	"os"
	"syscall"
)

// statOf returns the stat data git records for st; ok is false when the
// platform gives none.
func statOf(st os.FileInfo) (fileStat, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, false
	}
	return fileStat{
		ctime: ctimeOf(sys),
		dev:   uint32(sys.Dev), ino: uint32(sys.Ino), uid: sys.Uid, gid: sys.Gid,
	}, true
}
