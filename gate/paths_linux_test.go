package gate

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// TestPathsSecondMountOfTheProject: a bind mount of the project elsewhere
// is the project under another name. A write through it is judged by the
// identity of the directories above it (device and inode), not by its
// name. The mount is made in a mount namespace of the test's own thread,
// so nothing outside the test sees it; the test skips where the kernel
// does not let it (not root, or a container that forbids mounts).
func TestPathsSecondMountOfTheProject(t *testing.T) {
	t.Parallel()
	w := newPathWorld(t)
	mnt := filepath.Join(w.out, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	skip := make(chan string, 1)
	go func() {
		defer close(skip)
		// The thread never returns to the scheduler: it ends with the
		// goroutine, and its mount namespace with it.
		runtime.LockOSThread()
		if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
			skip <- "cannot make a mount namespace here: " + err.Error()
			return
		}
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			skip <- "cannot make mounts private: " + err.Error()
			return
		}
		if err := syscall.Mount(w.repo, mnt, "", syscall.MS_BIND, ""); err != nil {
			skip <- "cannot bind-mount here: " + err.Error()
			return
		}
		if _, err := os.Stat(filepath.Join(mnt, "notes.txt")); err != nil {
			t.Errorf("the bind mount does not show the project: %v", err)
			return
		}
		for _, tt := range []struct {
			cwd, path string
			modifies  bool
		}{
			{w.repo, filepath.Join(mnt, "notes.txt"), true},
			{w.repo, filepath.Join(mnt, "sub", "new.txt"), true},
			{w.repo, filepath.Join(mnt, "new-dir", "a", "b.txt"), true},
			{mnt, "notes.txt", true},
			{w.repo, filepath.Join(w.out, "x.txt"), false},
			{w.repo, filepath.Join(mnt, "outlink", "x.txt"), false}, // through the project's link out
		} {
			if got := w.modifiesEverywhere(t, w.repo, tt.cwd, tt.path); got != tt.modifies {
				t.Errorf("%s from %s: modifies=%v, want %v", tt.path, tt.cwd, got, tt.modifies)
			}
		}
	}()
	if why, ok := <-skip; ok {
		t.Skip("SKIPPED: " + why)
	}
}
