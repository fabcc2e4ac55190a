package staterepo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/planq-dev/planq/internal/flock"
)

// ErrLockTimeout reports that another planq process held the state repo's
// lock for longer than the store's lock timeout.
var ErrLockTimeout = errors.New("state repo is busy: another planq process holds its lock")

// fileLock is the store's exclusive write lock.
type fileLock = flock.Lock

// acquireLock takes an exclusive flock on path, waiting until ctx is done or
// timeout passes.
func acquireLock(ctx context.Context, path string, timeout time.Duration) (*fileLock, error) {
	l, err := flock.Acquire(ctx, path, timeout)
	if errors.Is(err, flock.ErrTimeout) {
		return nil, fmt.Errorf("%w (waited %s for %s); retry, or check for a hung planq process", ErrLockTimeout, timeout, path)
	}
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("waiting for the state repo lock: %w", ctx.Err())
	}
	return l, err
}

// lock takes the store's write lock.
func (s *Store) lock(ctx context.Context) (*fileLock, error) {
	return acquireLock(ctx, filepath.Join(s.Bare, lockFile), s.lockTimeout)
}
