package staterepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrLockTimeout reports that another planq process held the state repo's
// lock for longer than the store's lock timeout.
var ErrLockTimeout = errors.New("state repo is busy: another planq process holds its lock")

// fileLock is an exclusive flock on a file. The kernel releases it when the
// process dies, so a crashed writer never leaves the repo locked.
type fileLock struct{ f *os.File }

// acquireLock takes an exclusive flock on path, polling until ctx is done or
// timeout passes.
func acquireLock(ctx context.Context, path string, timeout time.Duration) (*fileLock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	deadline := time.Now().Add(timeout)
	wait := 200 * time.Microsecond
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &fileLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (waited %s for %s); retry, or check for a hung planq process", ErrLockTimeout, timeout, path)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("waiting for the state repo lock: %w", ctx.Err())
		case <-t.C:
		}
		if wait < 5*time.Millisecond {
			wait *= 2
		}
	}
}

// release drops the lock.
func (l *fileLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	_ = l.f.Close()
	l.f = nil
}

// lock takes the store's write lock.
func (s *Store) lock(ctx context.Context) (*fileLock, error) {
	return acquireLock(ctx, filepath.Join(s.Bare, lockFile), s.lockTimeout)
}
