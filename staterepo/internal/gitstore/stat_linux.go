//go:build linux

package gitstore

import (
	"syscall"
	"time"
)

func ctimeOf(sys *syscall.Stat_t) time.Time {
	return time.Unix(int64(sys.Ctim.Sec), int64(sys.Ctim.Nsec))
}
