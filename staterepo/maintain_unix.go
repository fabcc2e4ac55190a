//go:build unix

package staterepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

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

// inheritedFD is where `planq state gc --auto` finds the maintenance lock
// its parent handed over (the first of exec.Cmd.ExtraFiles).
const inheritedFD = 3

// inheritedLock returns the maintenance lock this process inherited as
// inheritedFD, after checking that the descriptor is that lock file; nil
// when it is not (then the caller takes the lock itself).
func inheritedLock(path string) *flock.Lock {
	// Compared before an os.File owns the descriptor: one that is not the
	// lock (the runtime's own, say) must not be closed by its finalizer.
	var got, want syscall.Stat_t
	if syscall.Fstat(inheritedFD, &got) != nil || syscall.Stat(path, &want) != nil || got.Dev != want.Dev || got.Ino != want.Ino {
		return nil
	}
	return flock.FromFile(os.NewFile(inheritedFD, path))
}

// holdLock makes cmd hold the maintenance lock lk (an inherited open file:
// a flock belongs to the open file, so the lock lasts while any process
// holding it lives) and run in a process group of its own, which a
// cancelled context kills whole, git's own children included.
func holdLock(cmd *exec.Cmd, lk *flock.Lock) {
	if lk != nil {
		cmd.ExtraFiles = []*os.File{lk.File()}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
}

// releaseMaintenance closes this process's handle on the maintenance lock
// without unlocking it: an unlock would free the lock for every process
// sharing it, git processes still running included; closing frees it once
// the last of them has exited.
func releaseMaintenance(lk *flock.Lock) { lk.Close() }

// processAlive reports whether a process with this id exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
