//go:build unix

package staterepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/planq-dev/planq/internal/flock"
)

// startMaintenance starts `planq state gc --auto` for this repo in the
// background and returns without waiting: in its own session (so a host
// that kills this process group leaves it alone), with its output in
// planq-maintenance.log, and holding the maintenance lock, which this
// process takes first and hands over (a lock belongs to the open file the
// child inherits), so no maintenance runs twice and whoever waits for the
// lock waits for the child. It does nothing while maintenance runs.
func (s *Store) startMaintenance() error {
	lk, ok, err := flock.TryAcquire(filepath.Join(s.Bare, maintenanceLock))
	if err != nil || !ok {
		return err
	}
	defer lk.Release() // only reached with the lock when the child did not start
	log, err := os.OpenFile(filepath.Join(s.Bare, maintenanceLog), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(s.maintainer, "state", "gc", "--auto", "--repo", s.Root)
	cmd.Env = append(os.Environ(), "PLANQ_HOME="+s.Home, "PLANQ_AGENT="+s.Agent, heldEnv+"=1")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{lk.File()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	lk.Close()    // the child holds the lock now
	go cmd.Wait() // reaped by a long-lived process (the MCP server); a CLI exits first
	return nil
}
