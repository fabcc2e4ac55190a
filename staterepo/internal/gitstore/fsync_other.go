//go:build !darwin

package gitstore

import "os"

// syncFile flushes f to the disk.
func syncFile(f *os.File) error { return f.Sync() }
