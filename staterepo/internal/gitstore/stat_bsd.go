//go:build darwin || freebsd || netbsd

package gitstore

import (
	"syscall"
	"time"
)

func ctimeOf(sys *syscall.Stat_t) time.Time {
	return time.Unix(int64(sys.Ctimespec.Sec), int64(sys.Ctimespec.Nsec))
}
