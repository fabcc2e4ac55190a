// Package flock takes exclusive cross-process locks on files: flock(2) on
// Unix, LockFileEx on Windows. The kernel drops a lock when its process dies,
// so a crashed holder never leaves a lock behind.
package flock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrTimeout reports that another process held the lock past the timeout.
var ErrTimeout = errors.New("lock is held by another process")

// Lock is a held lock.
type Lock struct{ f *os.File }

// Acquire takes an exclusive lock on path (created if missing, with its
// directory), retrying with backoff until it is free, ctx is done, or timeout
// passes.
func Acquire(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
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
		busy, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !busy {
			return &Lock{f: f}, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (waited %s for %s)", ErrTimeout, timeout, path)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-t.C:
		}
		if wait < 5*time.Millisecond {
			wait *= 2
		}
	}
}

// Release drops the lock; releasing twice, or a nil lock, is harmless.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlock(l.f)
	_ = l.f.Close()
	l.f = nil
}

// TryAcquire takes the lock on path if no other process holds it; ok is
// false when one does.
func TryAcquire(path string) (l *Lock, ok bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, false, fmt.Errorf("lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("lock: %w", err)
	}
	busy, err := tryLock(f)
	if err != nil || busy {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("lock %s: %w", path, err)
		}
		return nil, false, nil
	}
	return &Lock{f: f}, true, nil
}

// FromFile wraps an open file whose lock this process holds already — one
// inherited from the parent that took it — so it can be handed on (File)
// and closed (Close) like a lock this process took.
func FromFile(f *os.File) *Lock { return &Lock{f: f} }

// File returns the locked file, to hand the lock to a child process: on
// Unix a lock belongs to the open file, so a child that inherits it (as
// exec.Cmd.ExtraFiles) holds the lock until it exits, even after this
// process called Close.
func (l *Lock) File() *os.File { return l.f }

// Close closes this process's handle on the lock file without unlocking
// it, leaving the lock to a child that inherited the file.
func (l *Lock) Close() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Close()
	l.f = nil
}
