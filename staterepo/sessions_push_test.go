package staterepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A lineage whose objects are damaged here is not pushed, and the error
// says what git found, not that a pipe closed.
func TestPushOfADamagedLineageSaysWhy(t *testing.T) {
	t.Parallel()
	ea, _, remote := twoClones(t, false)
	s := ea.open("main")
	if _, err := s.Init(ctx(t)); err != nil {
		t.Fatal(err)
	}
	shareLines(t, s, "alice", 3)
	lt, _, err := s.ReadLineage(lineageRoot)
	if err != nil {
		t.Fatal(err)
	}
	seg := lt.Segments("alice")[0]
	blob := lt.files[seg.Path].Hash.String()
	if err := os.Remove(filepath.Join(s.Bare, "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	_, err = s.PushLineages(ctx(t), nil)
	if err == nil || !strings.Contains(err.Error(), "fatal: unable to read "+blob) || !strings.Contains(err.Error(), "fsck") {
		t.Fatalf("push of a lineage missing a blob: %v", err)
	}
	if refs := ea.git(remote, "for-each-ref", SessionsRefPrefix); refs != "" {
		t.Errorf("the remote got the lineage anyway: %s", refs)
	}
}

// A state remote planq creates keeps the packs pushes send, so that a
// lineage's segments are fetched as they were sent, never compressed
// again, and searches no deltas between transcript segments.
func TestCreatedRemoteKeepsPushedPacks(t *testing.T) {
	t.Parallel()
	ea, _, remote := twoClones(t, false)
	s := ea.open("main")
	if _, err := s.Log(ctx(t), "first", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Push(ctx(t)); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"receive.unpackLimit", "1"}, {"core.bigFileThreshold", bigObject}} {
		if got := ea.git(remote, "config", kv[0]); got != kv[1] {
			t.Errorf("the remote's %s = %q, want %q", kv[0], got, kv[1])
		}
	}
	shareLines(t, s, "alice", 5)
	if _, err := s.PushLineages(ctx(t), nil); err != nil {
		t.Fatal(err)
	}
	if loose := ea.git(remote, "count-objects"); !strings.HasPrefix(loose, "0 objects") {
		t.Errorf("the remote unpacked the pushes: %s", loose)
	}
	ea.git(remote, "fsck", "--strict", "--no-progress")
}
