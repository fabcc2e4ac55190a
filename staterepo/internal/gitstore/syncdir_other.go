//go:build !unix

package gitstore

// syncDir is a no-op: Windows cannot open a directory to flush it, and
// NTFS journals its directory entries.
func syncDir(string) error { return nil }
