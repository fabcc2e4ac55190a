//go:build !darwin

package staterepo

import "os"

// syncFile flushes f to the disk.
func syncFile(f *os.File) error { return f.Sync() }
