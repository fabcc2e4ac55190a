package staterepo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// staleLockAge is how old a git lock file (refs/heads/<branch>.lock,
// index.lock, packed-refs.lock) must be for planq to remove it. planq only
// takes git locks while it holds its own lock (planq.lock), so no other
// planq process can be writing; git holds a ref lock for milliseconds and
// index.lock for one command. A lock file older than this was left by a
// killed process, and would otherwise block every later write.
const staleLockAge = time.Second

// takeGitLock creates the lock file lock exclusively, as git does. While
// another process holds it, it waits (honouring ctx); a lock file older
// than staleLockAge is removed, with a warning naming it. The error names
// the file.
func takeGitLock(ctx context.Context, lock string, warn func(string)) (*os.File, error) {
	deadline := time.Now().Add(3 * staleLockAge)
	for {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create lock file %s: %w", lock, err)
		}
		if st, serr := os.Lstat(lock); serr == nil && time.Since(st.ModTime()) > staleLockAge {
			if rerr := os.Remove(lock); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				return nil, fmt.Errorf("remove the stale lock file %s: %w", lock, rerr)
			}
			warn(fmt.Sprintf("removed the stale lock file %s (left by an interrupted planq or git process)", lock))
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock file %s is held by another process; if no git command is running there, remove it", lock)
		}
		if err := ctxSleep(ctx, 5*time.Millisecond); err != nil {
			return nil, fmt.Errorf("waiting for lock file %s: %w", lock, err)
		}
	}
}

// commitLockFile finishes git's lock protocol for a lock file f taken by
// takeGitLock: it writes data, fsyncs it when durable, closes it and renames
// it over path. On any failure the lock file is removed, so path keeps its
// old content and the next writer is not blocked.
func commitLockFile(f *os.File, path string, data []byte, durable bool) error {
	lock := f.Name()
	_, err := f.Write(data)
	if err == nil && durable {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock, path)
	}
	if err != nil {
		os.Remove(lock)
	}
	return err
}
