package ui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/planq-dev/planq/transcript"
)

// The catalog re-reads a record the store rewrote (however soon after it
// was read), drops one removed, finds one added, and names a bad one once.
func TestUILineageCatalog(t *testing.T) {
	t.Parallel()
	ts, err := transcript.New(t.TempDir(), "shop-api")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	update := func(root, task string) {
		t.Helper()
		if _, err := ts.Update(ctx, root, func(s *transcript.Session) error { s.Task = task; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	c := newLineageCatalog(ts)
	list := func() lineageList {
		t.Helper()
		ls, err := c.list()
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	const a, b = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", "llllllllllllllllllllllllllllllll"
	if ls := list(); len(ls.All) != 0 || len(ls.Bad) != 0 {
		t.Fatalf("no sessions directory yet: %+v", ls)
	}
	update(a, "first")
	update(b, "other")
	if ls := list(); len(ls.All) != 2 {
		t.Fatalf("two records: %+v", ls)
	}
	update(a, "again") // at once: the same size, maybe the same mtime tick
	ls := list()
	if len(ls.All) != 2 || ls.All[0].Root != a || ls.All[0].Task != "again" {
		t.Errorf("after a rewrite: %+v, want %s first with its new task", ls.All, a)
	}
	dir, _ := ts.Dir(b)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts.ProjectDir(), a, transcript.SessionFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	ls = list()
	if len(ls.All) != 0 || len(ls.Bad) != 1 {
		t.Errorf("after removing one and breaking the other: %+v", ls)
	}
}

func TestUILineageFrom(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sess transcript.Session
		want string
	}{
		{transcript.Session{}, "this machine"},
		{transcript.Session{Agents: []transcript.Agent{{ID: "a"}}}, "this machine"},
		{transcript.Session{Origin: "bea-laptop-3f9a1c", Agents: []transcript.Agent{{ID: "a", Origin: "bea-laptop-3f9a1c"}}}, "bea-laptop-3f9a1c"},
		// Recorded by Bea, resumed here, then by Cam.
		{transcript.Session{Origin: "bea-laptop-3f9a1c", Agents: []transcript.Agent{{ID: "a", Origin: "bea-laptop-3f9a1c"}, {ID: "b"}, {ID: "c", Origin: "cam-desk-0b1c2d"}}},
			"bea-laptop-3f9a1c, cam-desk-0b1c2d and this machine"},
	} {
		if got := fromOf(&tc.sess).String(); got != tc.want {
			t.Errorf("fromOf(%+v) = %q, want %q", tc.sess, got, tc.want)
		}
	}
}
