//go:build unix

package staterepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/planq-dev/planq/internal/flock"
)

// startMaintenance starts incremental maintenance in the background: old
// temporary files are removed here, then git's repack runs in its own
// session (so a host that kills this process group leaves it alone),
// holding the maintenance lock through the inherited lock file, with its
// output in planq-maintenance.log. It returns without waiting.
func (s *Store) startMaintenance() error {
	lockPath := filepath.Join(s.Bare, maintenanceLock)
	lk, ok, err := flock.TryAcquire(lockPath)
	if err != nil || !ok {
		return err
	}
	defer lk.Release() // only reached when the child did not start
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	git, err := findGit(ctx)
	if err != nil {
		return err
	}
	removeStaleTemps(s.Bare, tmpLife)
	log, err := os.OpenFile(filepath.Join(s.Bare, maintenanceLog), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(git, repackArgs(false)...)
	cmd.Dir = s.Bare
	cmd.Env = gitEnv()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{lk.File()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	lk.Close() // the child holds the lock now
	go cmd.Wait()
	return nil
}
