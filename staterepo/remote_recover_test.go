package staterepo

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A fetch killed while it wrote a remote-tracking ref (go-git, which older
// planq versions fetched with, truncated the file and then wrote it) left
// an empty ref; every later push and pull read it and failed. The next
// write deletes it, the fetch writes it again, and push and pull go on.
func TestPushAndPullGetPastAnEmptyTrackingRef(t *testing.T) {
	t.Parallel()
	ea, _, remote := twoClones(t, false)
	c := ctx(t)
	var mu sync.Mutex
	var warnings []string
	s, err := Open(Options{Dir: ea.repo, Getenv: ea.getenv, LockTimeout: time.Minute, Warn: func(w string) {
		mu.Lock()
		defer mu.Unlock()
		warnings = append(warnings, w)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Log(c, "first", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Push(c); err != nil {
		t.Fatal(err)
	}
	tracking := filepath.Join(s.Bare, "refs", "remotes", "origin", GlobalBranch)
	gone := filepath.Join(s.Bare, "refs", "remotes", "origin", "agent-gone")
	for _, p := range []string{tracking, gone} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Log(c, "second", "", ""); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Push(c); err != nil {
		t.Fatalf("push over an empty tracking ref: %v %+v", err, res)
	}
	if res, err := s.Pull(c, ""); err != nil {
		t.Fatalf("pull: %v %+v", err, res)
	}
	if got, want := strings.TrimSpace(readFile(t, tracking)), ea.git(remote, "rev-parse", GlobalBranch); got != want {
		t.Errorf("refs/remotes/origin/global = %q, want the remote's %s", got, want)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the empty ref of a branch the remote lacks is still there: %v", err)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "deleted the damaged ref refs/remotes/origin/global") {
		t.Errorf("warnings: %q", warnings)
	}
	ea.git(s.Bare, "fsck", "--strict", "--no-progress")
}

// A lineage's ref lock a killed process left (empty: killed before it
// wrote the commit id) is not looked for by every write, but a push
// removes it before go-git reads every ref, and the lineage's next update
// removes it too.
func TestStaleLineageLockStopsNoPushNorUpdate(t *testing.T) {
	t.Parallel()
	ea, _, _ := twoClones(t, false)
	c := ctx(t)
	s := ea.open("main")
	if _, err := s.Log(c, "first", "", ""); err != nil {
		t.Fatal(err)
	}
	first := shareLines(t, s, "alice", 2)
	lock := filepath.Join(s.Bare, "refs", "planq", "sessions", lineageRoot+".lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Log(c, "second", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a plain write looked at the lineages' locks: %v", err)
	}
	if res, err := s.Push(c); err != nil {
		t.Fatalf("push beside a stale lineage lock: %v %+v", err, res)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the push left the stale lock: %v", err)
	}
	// Left again: the lineage's next update takes it over.
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if next := shareLines(t, s, "alice", 1); next == first {
		t.Fatal("the lineage did not move")
	}
}
