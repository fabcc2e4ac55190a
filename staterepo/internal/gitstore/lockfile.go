package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleLockAge is how old a git lock file (refs/heads/<branch>.lock,
// index.lock, packed-refs.lock) must be for planq to remove it. planq only
// takes git locks while it holds its own lock (planq.lock), so no other
// planq process can be writing; git holds a ref lock for milliseconds and
// index.lock for one command. A lock file older than this was left by a
// killed process, and would otherwise block every later write.
const StaleLockAge = time.Second

// Waiting for a lock file another process holds: how long, and how often
// to look again.
const (
	lockWait = 3 * StaleLockAge // long enough for a held lock to turn stale
	lockPoll = 5 * time.Millisecond
)

// takeLock creates the lock file lock exclusively, as git does. While
// another process holds it, it waits (honouring ctx); a lock file older
// than StaleLockAge is removed, with a warning naming it (removeStale). The
// error names the file.
func takeLock(ctx context.Context, lock string, warn func(string)) (*os.File, error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create lock file %s: %w", lock, err)
		}
		if gone, err := removeStale(lock, warn); err != nil {
			return nil, err
		} else if gone {
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock file %s is held by another process; if no git command is running there, remove it", lock)
		}
		if err := ctxSleep(ctx, lockPoll); err != nil {
			return nil, fmt.Errorf("waiting for lock file %s: %w", lock, err)
		}
	}
}

// removeStale removes the lock file lock when it is older than
// StaleLockAge, with a warning naming it, and reports whether the lock is
// gone. It is the one rule for stale lock files: takeLock applies it to the
// lock it waits for, ClearStaleLocks to every ref lock at once.
func removeStale(lock string, warn func(string)) (gone bool, err error) {
	st, err := os.Lstat(lock)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil || time.Since(st.ModTime()) <= StaleLockAge {
		return false, nil
	}
	switch err := os.Remove(lock); {
	case err == nil:
		warn(fmt.Sprintf("removed the stale lock file %s (left by an interrupted planq or git process)", lock))
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("remove the stale lock file %s: %w", lock, err)
	}
	return true, nil
}

// ClearStaleLocks removes the ref lock files older than StaleLockAge —
// under refs/, packed-refs.lock and HEAD.lock — with a warning naming each
// (removeStale). The caller holds planq's own lock, so no planq process is
// writing them, and git holds them for milliseconds. A lock that cannot be
// removed is left for the write that needs it to report. It stops when ctx
// is done. The ref directories in skip (e.g. "refs/planq/sessions", which
// may hold thousands of refs) are not looked at: an update of one of their
// refs removes a stale lock it meets itself (takeLock).
func (r *Repo) ClearStaleLocks(ctx context.Context, skip ...string) error {
	var locks []string
	skipped := map[string]bool{}
	for _, d := range skip {
		skipped[r.refPath(strings.TrimSuffix(d, "/"))] = true
	}
	_ = filepath.WalkDir(filepath.Join(r.path, "refs"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir() && skipped[p]:
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".lock"):
			locks = append(locks, p)
		}
		return nil
	})
	locks = append(locks, filepath.Join(r.path, "packed-refs.lock"), filepath.Join(r.path, "HEAD.lock"))
	for _, l := range locks {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("clearing stale lock files: %w", err)
		}
		_, _ = removeStale(l, r.warn)
	}
	return nil
}

// commitLockFile finishes git's lock protocol for a lock file f taken by
// takeLock: it writes data, fsyncs it when durable, closes it and renames
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

// ctxSleep waits d or until ctx is done.
func ctxSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
