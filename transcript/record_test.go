package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A record is validated where it is read: a hand-edited or foreign
// session.json is refused by Load, left out by Roots and named once in its
// error, and never reaches jj; the store's own API refuses to write one.
func TestBadRecords(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	const good, edited, foreign = "kkkkkkkk", "llllllll", "mmmmmmmm"
	for _, r := range []string{good, edited, foreign} {
		if _, err := s.Update(ctx, r, func(sess *Session) error { sess.AddChange("zzzzzzzz"); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(root, from, to string) {
		t.Helper()
		dir, _ := s.Dir(root)
		p := filepath.Join(dir, SessionFile)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out := strings.Replace(string(data), from, to, 1)
		if out == string(data) {
			t.Fatalf("%s has no %s", p, from)
		}
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit(edited, `"zzzzzzzz"`, `"x\") | all() | (\"y"`)     // a change id that is revset text
	edit(foreign, `"root": "mmmmmmmm"`, `"root": "abc123"`) // a root that is no change id
	copied := filepath.Join(s.ProjectDir(), "abc123")       // a lineage directory not named by one
	if err := os.CopyFS(copied, os.DirFS(filepath.Join(s.ProjectDir(), good))); err != nil {
		t.Fatal(err)
	}

	for _, r := range []string{edited, foreign} {
		if _, err := s.Load(r); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "fix or remove") {
			t.Errorf("Load(%s) = %v, want a bad record error that says what to do", r, err)
		}
		if _, err := s.Update(ctx, r, func(sess *Session) error { sess.Task = "more"; return nil }); !errors.Is(err, ErrBadRecord) {
			t.Errorf("Update(%s) over a bad record = %v, want it refused", r, err)
		}
	}
	roots, err := s.Roots()
	if len(roots) != 1 || roots[0].Root != good {
		t.Errorf("Roots = %v, want only %s", roots, good)
	}
	bad := BadRecords(err)
	var paths []string
	for _, b := range bad {
		paths = append(paths, b.Path)
	}
	if len(bad) != 3 || !strings.Contains(strings.Join(paths, " "), edited) || !strings.Contains(strings.Join(paths, " "), foreign) || !strings.Contains(strings.Join(paths, " "), copied) {
		t.Errorf("Roots reported %v (%v), want the edited, foreign and copied records once each", paths, err)
	}

	// The store's own API refuses such ids before writing anything.
	for _, tt := range []struct {
		root string
		fn   func(*Session)
	}{
		{"abc123", func(*Session) {}},
		{"nnnnnnnn", func(sess *Session) { sess.AddChange("abc123") }},
		{"nnnnnnnn", func(sess *Session) { sess.AddAgent(Agent{ID: "s1", Change: "HEAD~1"}) }},
		{"nnnnnnnn", func(sess *Session) { sess.AddWorkspace(Workspace{Name: "w", Change: "all()"}) }},
	} {
		if _, err := s.Update(ctx, tt.root, func(sess *Session) error { tt.fn(sess); return nil }); err == nil {
			t.Errorf("Update(%s) accepted an id jj never writes", tt.root)
		}
	}
	if _, err := os.Stat(filepath.Join(s.ProjectDir(), "nnnnnnnn", SessionFile)); err == nil {
		t.Error("a refused update left a record behind")
	}
}
