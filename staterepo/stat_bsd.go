//go:build darwin || freebsd || netbsd

package staterepo

import (
	"syscall"
	"time"
)

func ctimeOf(sys *syscall.Stat_t) time.Time {
	return time.Unix(int64(sys.Ctimespec.Sec), int64(sys.Ctimespec.Nsec))
}
