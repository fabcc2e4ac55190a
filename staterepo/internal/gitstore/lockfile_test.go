package gitstore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bareRepo makes an empty bare repository with git itself and opens it,
// collecting its warnings.
func bareRepo(t *testing.T) (*Repo, *[]string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "r.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	var warnings []string
	r, err := Open(dir, func(w string) { warnings = append(warnings, w) })
	if err != nil {
		t.Fatal(err)
	}
	return r, &warnings
}

// lockFile creates the lock file rel under the repo, age old.
func lockFile(t *testing.T, r *Repo, rel string, age time.Duration) string {
	t.Helper()
	p := filepath.Join(r.Path(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTakeLockRemovesAStaleLockAndHonoursCtxForAHeldOne(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		exists  bool          // a lock file is there already
		age     time.Duration // and is this old
		ctx     context.Context
		taken   bool
		warning bool
	}{
		{"free", false, 0, context.Background(), true, false},
		{"stale, left by a killed process", true, time.Hour, context.Background(), true, true},
		{"held, and the caller gives up", true, 0, cancelled, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, warnings := bareRepo(t)
			path := filepath.Join(r.Path(), "index.lock")
			if tc.exists {
				lockFile(t, r, "index.lock", tc.age)
			}
			f, err := takeLock(tc.ctx, path, r.warn)
			if tc.taken != (err == nil) {
				t.Fatalf("takeLock: %v, want taken=%v", err, tc.taken)
			}
			if err == nil {
				f.Close()
			} else if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the lock and the cancellation", err)
			}
			if got := len(*warnings) == 1 && strings.Contains((*warnings)[0], path); got != tc.warning {
				t.Errorf("warnings %q, want one naming the lock: %v", *warnings, tc.warning)
			}
		})
	}
}

func TestClearStaleLocksRemovesOnlyStaleOnesAndStopsWithCtx(t *testing.T) {
	t.Parallel()
	r, warnings := bareRepo(t)
	stale := []string{
		lockFile(t, r, "refs/heads/agent-a.lock", time.Hour),
		lockFile(t, r, "packed-refs.lock", time.Hour),
		lockFile(t, r, "HEAD.lock", time.Hour),
	}
	fresh := lockFile(t, r, "refs/heads/agent-b.lock", 0)
	skipped := lockFile(t, r, "refs/planq/sessions/kkkk.lock", time.Hour)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.ClearStaleLocks(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("ClearStaleLocks with a cancelled context: %v, want context.Canceled", err)
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed after the context was done: %v", p, err)
		}
	}

	if err := r.ClearStaleLocks(context.Background(), "refs/planq/sessions"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(skipped); err != nil {
		t.Errorf("%s, in a directory to skip, was removed: %v", skipped, err)
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s still there: %v", p, err)
		}
	}
	if _, err := os.Lstat(fresh); err != nil {
		t.Errorf("fresh %s, maybe held by a running git, was removed: %v", fresh, err)
	}
	if len(*warnings) != len(stale) {
		t.Errorf("warnings %q, want one per stale lock", *warnings)
	}
}
