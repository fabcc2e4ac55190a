// Package atomicfile replaces a file's content in one step: the data goes
// to a temporary file beside it, is synced, and is renamed over the file,
// so a reader sees the old content or the new, never half of it, and a
// crash or a full disk leaves the old file as it was. It imports only the
// standard library, so every package that writes a whole file (config,
// host config editing, transcripts, the state repo's exclude line, the
// gate's baseline and cache) shares this one rule. WriteUnsynced skips the
// sync, for a file that only saves work and may be lost in a crash.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path with mode perm, atomically: through a
// temporary file in path's directory (made if missing), synced, then
// renamed into place. On an error path is left as it was and no
// temporary file stays behind.
func Write(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

// WriteUnsynced is Write without the sync, for a file that only saves work
// (a cache a reader checks and rebuilds): it costs no disk flush on a hot
// path. A reader still sees the old content or the new, never half of it,
// but after a crash the file may be empty or old.
func WriteUnsynced(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm fs.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
