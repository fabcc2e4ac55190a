//go:build linux

package staterepo

import (
	"os"
	"syscall"
	"time"
)

// statOf returns the stat data git records for st; ok is false when the
// platform gives none.
func statOf(st os.FileInfo) (fileStat, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, false
	}
	return fileStat{
		ctime: time.Unix(int64(sys.Ctim.Sec), int64(sys.Ctim.Nsec)),
		dev:   uint32(sys.Dev), ino: uint32(sys.Ino), uid: sys.Uid, gid: sys.Gid,
	}, true
}
