//go:build !unix

package staterepo

import "syscall"

// errNotDir is what reading a path below a regular file fails with.
var errNotDir = syscall.ENOTDIR

// syncDir is a no-op: Windows cannot open a directory to flush it, and
// NTFS journals its directory entries.
func syncDir(string) error { return nil }
