//go:build !linux && !darwin && !freebsd && !netbsd

package gitstore

import "os"

// statOf returns the stat data git records for st. This platform gives none
// that git uses (Windows has no inodes), so entries carry times and size only.
func statOf(os.FileInfo) (fileStat, bool) { return fileStat{}, false }
