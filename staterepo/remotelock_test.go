package staterepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A git receive-pack killed on the state remote while it held a ref's lock
// leaves the lock file there, and git refuses the ref's next update. The
// next push names the file and what to do while it may still be held (one
// line), and removes it, with a warning, once it is stale; both the
// session lineages and the agent branches get past it.
func TestPushGetsPastALockFileLeftOnTheRemote(t *testing.T) {
	t.Parallel()
	ea, _, remote := twoClones(t, false)
	s, warns := ea.openWarn("main")
	if _, err := s.Log(ctx(t), "first", "", ""); err != nil {
		t.Fatal(err)
	}
	shareLines(t, s, "alice", 3)
	if _, err := s.PushLineages(ctx(t), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Push(ctx(t)); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		ref  string
		more func()
		push func() error
	}{
		{"a session lineage", LineageRef(lineageRoot),
			func() { shareLines(t, s, "alice", 2) },
			func() error { _, err := s.PushLineages(ctx(t), nil); return err }},
		{"an agent branch", "refs/heads/" + AgentPrefix + "main",
			func() {
				if _, err := s.Log(ctx(t), "second", "", ""); err != nil {
					t.Fatal(err)
				}
			},
			func() error { _, err := s.Push(ctx(t)); return err }},
	}
	for _, tt := range tests {
		tt.more()
		lock := filepath.Join(remote, filepath.FromSlash(tt.ref)+".lock")
		if err := os.WriteFile(lock, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		err := tt.push()
		if err == nil || !strings.Contains(err.Error(), lock+" exists") || !strings.Contains(err.Error(), "rm "+lock) ||
			!strings.Contains(err.Error(), "planq state push") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: push while %s may be held: %v; want one line naming it and its fix", tt.name, lock, err)
		}
		if _, err := os.Stat(lock); err != nil {
			t.Fatalf("%s: a lock file that may be held was removed: %v", tt.name, err)
		}

		old := time.Now().Add(-time.Minute)
		if err := os.Chtimes(lock, old, old); err != nil {
			t.Fatal(err)
		}
		if err := tt.push(); err != nil {
			t.Fatalf("%s: push past a stale lock file on the remote: %v", tt.name, err)
		}
		if _, err := os.Stat(lock); !os.IsNotExist(err) {
			t.Errorf("%s: the stale lock file is still there: %v", tt.name, err)
		}
		if !strings.Contains(warns.String(), "removed the stale lock file "+lock) {
			t.Errorf("%s: warnings %q; want one naming %s", tt.name, warns, lock)
		}
		r, err := s.openRepo()
		if err != nil {
			t.Fatal(err)
		}
		ours, _, err := r.ReadRef(tt.ref)
		if err != nil {
			t.Fatal(err)
		}
		if got := ea.git(remote, "rev-parse", tt.ref); got != ours.String() {
			t.Errorf("%s: the remote's %s is %s, want %s", tt.name, tt.ref, got, ours)
		}
	}
}
