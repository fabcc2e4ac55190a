//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// mountTmpfs mounts a tmpfs of size bytes at a new directory, or skips the
// test saying why (it needs root and a kernel that allows it).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED: mounting a tmpfs for the full-disk and read-only cases needs root")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("SKIPPED: cannot mount a tmpfs here (%v: %s); the full-disk and read-only cases need one", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// free returns the free bytes of the file system holding dir.
func free(t *testing.T, dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// fill leaves about leave bytes free on dir's file system, with a file it
// returns.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, chunk := range [][]byte{make([]byte, 64<<10), make([]byte, 4<<10), make([]byte, 256)} {
		for free(t, dir) >= leave+int64(len(chunk)) {
			if _, err := f.Write(chunk); err != nil {
				break
			}
		}
	}
	if leave == 0 { // up to the last byte
		for {
			if _, err := f.Write([]byte{0}); err != nil {
				break
			}
		}
	}
	return p
}

// TestFullDiskLosesNothingAndTheNextWriteWorks fills a tmpfs to different
// levels, so writes run out of space at different steps — objects, the
// ref, the worktree's files, its index — then frees the space: every write
// that failed said so in one line, every acknowledged entry is there once,
// and the next write works with no hand repair. The tmpfs holds either
// everything (PLANQ_HOME and the code repo with its state worktree) or only
// the code repo, so that commits succeed and only the worktree update runs
// out of space.
func TestFullDiskLosesNothingAndTheNextWriteWorks(t *testing.T) {
	t.Parallel()
	for _, layout := range []string{"everything on the full disk", "only the worktree on the full disk"} {
		t.Run(layout, func(t *testing.T) {
			full := mountTmpfs(t, 8<<20)
			w := newStateWorldAt(t, full)
			if layout == "only the worktree on the full disk" {
				w.env["PLANQ_HOME"] = filepath.Join(t.TempDir(), "planq")
			}
			w.env["PLANQ_GC_AUTO"] = "0"
			w.ok("log", "add", "before the disk filled up")
			acked := map[string]bool{"before the disk filled up": true}
			attempted := map[string]bool{"before the disk filled up": true}
			failures, warned := 0, 0
			n := 0
			for _, leave := range []int64{0, 4 << 10, 8 << 10, 12 << 10, 16 << 10, 24 << 10, 32 << 10, 48 << 10, 64 << 10, 96 << 10} {
				filler := fill(t, full, leave)
				for range 6 {
					n++
					body := fmt.Sprintf("entry %03d%s", n, strings.Repeat(" words to take space", 100))
					attempted[body] = true
					_, errs, code := w.planq("", "log", "add", body)
					if code == 0 {
						acked[body] = true
						if strings.Contains(errs, "no space left on device") {
							warned++
						}
						continue
					}
					failures++
					if !strings.Contains(errs, "no space left on device") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
						t.Errorf("a failed write with %d bytes free said %q, want one line naming the full disk", leave, errs)
					}
				}
				os.Remove(filler)
				n++
				body := fmt.Sprintf("entry %03d after freeing space", n)
				attempted[body] = true
				if _, errs, code := w.planq("", "log", "add", body); code != 0 {
					t.Fatalf("the write after freeing space (%d bytes had been left) failed: %s", leave, errs)
				}
				acked[body] = true
			}
			if failures+warned == 0 {
				t.Fatal("no write ran out of space; the test did not test anything")
			}
			t.Logf("%d writes failed for lack of space, %d committed and warned that the worktree could not be updated", failures, warned)
			bare := w.bare()
			w.git(bare, "fsck", "--strict", "--no-progress")
			checkAcknowledged(t, w, acked, attempted)
			if st := w.git(filepath.Join(w.repo, ".planq", "agent"), "status", "--porcelain", "--untracked-files=all"); st != "" {
				t.Errorf("worktree does not match its branch:\n%s", st)
			}
		})
	}
}

// TestReadOnlyStateRepoFailsClearlyAndReadsStillWork remounts PLANQ_HOME
// read-only: writes fail with one line naming the file system, reads
// still answer, and once it is writable again nothing was lost.
func TestReadOnlyStateRepoFailsClearlyAndReadsStillWork(t *testing.T) {
	t.Parallel()
	home := mountTmpfs(t, 16<<20)
	w := newStateWorld(t)
	w.env["PLANQ_HOME"] = home
	w.env["PLANQ_GC_AUTO"] = "0"
	w.ok("log", "add", "written before")
	if out, err := exec.Command("mount", "-o", "remount,ro", home).CombinedOutput(); err != nil {
		t.Skipf("SKIPPED: cannot remount the tmpfs read-only: %v: %s", err, out)
	}
	for _, args := range [][]string{{"log", "add", "refused"}, {"checkpoint", "create", "x"}, {"state", "gc"}, {"state", "gc", "--auto"}} {
		_, errs, code := w.planq("", args...)
		if code == 0 {
			t.Errorf("planq %v on a read-only PLANQ_HOME succeeded", args)
			continue
		}
		if !strings.Contains(errs, "read-only file system") || !strings.Contains(errs, home) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("planq %v said %q, want one line naming the read-only path", args, errs)
		}
		if strings.Contains(errs, "already running") || strings.Contains(errs, "wait for") {
			t.Errorf("planq %v blames a maintenance run that does not exist: %q", args, errs)
		}
	}
	for _, args := range [][]string{{"log"}, {"context", "show"}, {"state", "status"}, {"search", "written"}, {"log", "--all"}} {
		out, errs, code := w.planq("", args...)
		if code != 0 {
			t.Errorf("planq %v on a read-only PLANQ_HOME: exit %d: %s", args, code, errs)
		}
		if args[0] == "log" && len(args) == 1 && !strings.Contains(out, "written before") {
			t.Errorf("planq log = %q", out)
		}
	}
	if out, err := exec.Command("mount", "-o", "remount,rw", home).CombinedOutput(); err != nil {
		t.Fatalf("remount rw: %v: %s", err, out)
	}
	w.ok("log", "add", "written after")
	out := w.ok("log")
	if !strings.Contains(out, "written before") || !strings.Contains(out, "written after") || strings.Contains(out, "refused") {
		t.Errorf("log after the read-only spell:\n%s", out)
	}
	w.git(w.bare(), "fsck", "--strict", "--no-progress")
}
