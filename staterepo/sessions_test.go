package staterepo

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const lineageRoot = "zyxwvutsrqponmlkzyxwvutsrqponmlk"

// shareLines commits n more lines of origin to the lineage in s, after
// the ones it holds.
func shareLines(t *testing.T, s *Store, origin string, n int) string {
	t.Helper()
	cur, _, err := s.ReadLineage(lineageRoot)
	if err != nil {
		t.Fatal(err)
	}
	parent, first := "", int64(1)
	if cur != nil {
		parent, first = cur.Commit, cur.SharedLines(origin)+1
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"origin\":%q,\"n\":%d}\n", origin, first+int64(i))
	}
	files := map[string][]byte{
		SegmentPath(origin, first, int64(n)): []byte(b.String()),
		origin + "/" + LineageRecordFile:     []byte(fmt.Sprintf("{\"lines\":%d}\n", first+int64(n)-1)),
	}
	c, err := s.CommitLineage(ctx(t), lineageRoot, parent, files, "share "+origin)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// lineageText is every origin's lines of the lineage in s, in order.
func lineageText(t *testing.T, s *Store) map[string]string {
	t.Helper()
	lt, ok, err := s.ReadLineage(lineageRoot)
	if err != nil || !ok {
		t.Fatalf("read lineage: %v %v", ok, err)
	}
	out := map[string]string{}
	for _, o := range lt.Origins() {
		var b strings.Builder
		next := int64(1)
		for _, g := range lt.Segments(o) {
			if g.First != next {
				t.Fatalf("%s: segment %s starts at %d, want %d", o, g.Path, g.First, next)
			}
			data, _, err := lt.Read(g.Path)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
			next = g.End() + 1
		}
		out[o] = b.String()
	}
	return out
}

func TestLineagesTravelAndMergeByOrigin(t *testing.T) {
	t.Parallel()
	ea, eb, remote := twoClones(t, false)
	c := ctx(t)
	alice, bob := ea.open("main"), eb.open("main")
	for _, s := range []*Store{alice, bob} {
		if _, err := s.Init(c); err != nil {
			t.Fatal(err)
		}
	}
	shareLines(t, alice, "alice", 3)
	res, err := alice.PushLineages(c, nil)
	if err != nil || !slices.Equal(res.Pushed, []string{lineageRoot}) {
		t.Fatalf("alice push: %+v %v", res, err)
	}
	// Pushing again sends nothing.
	if res, err := alice.PushLineages(c, nil); err != nil || len(res.Pushed) != 0 || res.UpToDate != 1 {
		t.Fatalf("second push: %+v %v", res, err)
	}
	// Bob asks for the one lineage, and one the remote lacks.
	other := "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
	res, err = bob.PullLineages(c, []string{lineageRoot, other})
	if err != nil || !slices.Equal(res.Moved, []string{lineageRoot}) || !slices.Equal(res.Missing, []string{other}) {
		t.Fatalf("bob pull: %+v %v", res, err)
	}
	// Both add lines (bob resumed the lineage): the refs diverge.
	shareLines(t, alice, "alice", 2)
	shareLines(t, bob, "bob", 4)
	if _, err := alice.PushLineages(c, nil); err != nil {
		t.Fatal(err)
	}
	// Bob's push takes alice's new lines first, merges, and pushes.
	res, err = bob.PushLineages(c, nil)
	if err != nil || !slices.Equal(res.Pushed, []string{lineageRoot}) || !slices.Equal(res.Moved, []string{lineageRoot}) {
		t.Fatalf("bob push after alice's: %+v %v", res, err)
	}
	if _, err := alice.PullLineages(c, nil); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Store{"alice": alice, "bob": bob} {
		got := lineageText(t, s)
		if strings.Count(got["alice"], "\n") != 5 || strings.Count(got["bob"], "\n") != 4 {
			t.Errorf("%s has %q", name, got)
		}
	}
	// gc keeps the lineages: they are reachable refs.
	if _, err := alice.GC(c, false); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.Maintain(c, true); err != nil {
		t.Fatal(err)
	}
	if got := lineageText(t, alice); strings.Count(got["bob"], "\n") != 4 {
		t.Errorf("after gc alice has %q", got)
	}
	// The remote is a plain git repo: git fsck is clean and sees the ref.
	out, err := exec.Command("git", "-C", remote, "fsck", "--strict").CombinedOutput()
	if err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
	refs, _ := exec.Command("git", "-C", remote, "for-each-ref", "refs/planq/").Output()
	if !strings.Contains(string(refs), LineageRef(lineageRoot)) {
		t.Fatalf("remote refs: %s", refs)
	}
}

func TestCommitLineageRefusesBadPathsAndMovedRefs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("main")
	c := ctx(t)
	if _, err := s.Init(c); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x", "Alice/record.json", "alice", "alice/../bob/x"} {
		if _, err := s.CommitLineage(c, lineageRoot, "", map[string][]byte{p: []byte("x")}, "m"); err == nil {
			t.Errorf("path %q accepted", p)
		}
	}
	if _, err := s.CommitLineage(c, "not-a-change", "", map[string][]byte{"alice/x": []byte("x")}, "m"); err == nil {
		t.Error("bad root accepted")
	}
	first := shareLines(t, s, "alice", 1)
	shareLines(t, s, "alice", 1)
	if _, err := s.CommitLineage(c, lineageRoot, first, map[string][]byte{"alice/y": []byte("y")}, "m"); err == nil || !strings.Contains(err.Error(), "moved") {
		t.Fatalf("stale parent: %v", err)
	}
}
