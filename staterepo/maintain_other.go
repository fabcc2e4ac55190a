//go:build !unix

package staterepo

import (
	"context"
	"time"
)

// startMaintenance runs incremental maintenance in the foreground: Windows
// cannot hand a child process planq's lock on the maintenance file. It
// still never holds the store's write lock.
func (s *Store) startMaintenance() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, err := s.Maintain(ctx, false)
	return err
}
