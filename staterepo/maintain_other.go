//go:build !unix

package staterepo

import (
	"errors"
	"os/exec"

	"github.com/planq-dev/planq/internal/flock"
)

// startMaintenance does not start a background process on Windows (no
// sessions to detach it into); AutoMaintain then runs maintenance itself.
func (s *Store) startMaintenance() error {
	return errors.New("background maintenance needs a Unix session")
}

// inheritedLock is nil: no lock is handed to a child on Windows.
func inheritedLock(string) *flock.Lock { return nil }

// holdLock does nothing: Windows has no inheritable lock files, and
// maintenance runs in the process that holds the lock.
func holdLock(*exec.Cmd, *flock.Lock) {}

// releaseMaintenance releases the maintenance lock.
func releaseMaintenance(lk *flock.Lock) { lk.Release() }

// processAlive cannot tell on Windows; a repack's temporary files are then
// judged by their age alone.
func processAlive(int) bool { return false }
