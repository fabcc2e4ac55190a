//go:build unix

package gitstore

import (
	"errors"
	"os"
	"syscall"
)

// syncDir flushes a directory's entries (new and renamed files) to the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err // EINVAL: the file system does not sync directories
	}
	return nil
}
