package jj_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

// TestSnapshotsSince: the files written on disk while @ was undeclared are
// listed, whatever jj did meanwhile; what jj itself did to the files (a
// checkout, a rebase onto a moved trunk) and what was written while @ was
// declared are not.
func TestSnapshotsSince(t *testing.T) {
	testenv.Isolate(t)
	ctx := context.Background()

	heads := func(t *testing.T, dir string) []string {
		t.Helper()
		h, err := jj.OpHeads(dir)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	check := func(t *testing.T, c *jj.Client, since []string, want ...string) jj.Snapshots {
		t.Helper()
		got, err := c.SnapshotsSince(ctx, since)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Complete || !slices.Equal(got.Files, want) {
			t.Errorf("SnapshotsSince = %+v, want complete with files %q", got, want)
		}
		if h := heads(t, c.Dir); got.Head == "" || !slices.Contains(h, got.Head) {
			t.Errorf("Head = %q, want the operation head %q", got.Head, h)
		}
		return got
	}

	t.Run("clean session", func(t *testing.T) {
		dir := testenv.JJRepo(t)
		c := jj.New(dir)
		testenv.WriteFile(t, dir, "before.txt", "written before the session started\n")
		testenv.Run(t, dir, "jj", "status")
		base := heads(t, dir)
		testenv.Run(t, dir, "jj", "log") // reads change nothing
		testenv.Run(t, dir, "jj", "describe", "-m", "Declared")
		check(t, c, base)
	})

	t.Run("files written while locked, through jj moving", func(t *testing.T) {
		dir := testenv.JJRepo(t)
		c := jj.New(dir)
		base := heads(t, dir)
		testenv.WriteFile(t, dir, "a.txt", "escape one\n")
		testenv.Run(t, dir, "jj", "status") // someone's jj snapshots it
		testenv.WriteFile(t, dir, "sub/b.txt", "escape two\n")
		// jj new moves the work away from the working copy: still named.
		testenv.Run(t, dir, "jj", "new")
		testenv.WriteFile(t, dir, "c.txt", "escape three\n")
		testenv.Run(t, dir, "jj", "describe", "-m", "Declared") // snapshots c.txt first
		// Written after the declaration: not while locked.
		testenv.WriteFile(t, dir, "d.txt", "allowed\n")
		testenv.Run(t, dir, "jj", "status")
		got := check(t, c, base, "a.txt", "sub/b.txt", "c.txt")
		// The next check starts where this one ended.
		check(t, c, []string{got.Head})
	})

	t.Run("a deleted and a renamed file", func(t *testing.T) {
		dir := testenv.JJRepo(t)
		c := jj.New(dir)
		testenv.WriteFile(t, dir, "keep.txt", "kept\n")
		testenv.WriteFile(t, dir, "old.txt", "to move\n")
		testenv.Run(t, dir, "jj", "commit", "-m", "Base")
		base := heads(t, dir)
		if err := os.Remove(filepath.Join(dir, "keep.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")); err != nil {
			t.Fatal(err)
		}
		testenv.Run(t, dir, "jj", "describe", "-m", "Declared")
		got, err := c.SnapshotsSince(ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got.Files)
		if want := []string{"keep.txt", "new.txt", "old.txt"}; !slices.Equal(got.Files, want) {
			t.Errorf("files = %q, want %q", got.Files, want)
		}
	})

	t.Run("a rebase onto a moved trunk is bookkeeping", func(t *testing.T) {
		bare := testenv.RemoteWithMain(t)
		dir := testenv.Clone(t, bare)
		c := jj.New(dir)
		testenv.Run(t, dir, "jj", "status")
		base := heads(t, dir)
		testenv.PushCommit(t, bare, "upstream.txt", "from someone else\n", "Upstream work")
		testenv.Run(t, dir, "jj", "git", "fetch")
		testenv.Run(t, dir, "jj", "rebase", "-d", "main@origin")
		if _, err := os.Stat(filepath.Join(dir, "upstream.txt")); err != nil {
			t.Fatalf("the rebase did not check out upstream.txt: %v", err)
		}
		testenv.Run(t, dir, "jj", "describe", "-m", "Declared")
		check(t, c, base)
	})

	t.Run("another workspace's writes are its own", func(t *testing.T) {
		dir := testenv.JJRepo(t)
		c := jj.New(dir)
		ws := filepath.Join(t.TempDir(), "ws2")
		testenv.Run(t, dir, "jj", "workspace", "add", ws)
		testenv.Run(t, dir, "jj", "status")
		base := heads(t, dir)
		testenv.WriteFile(t, ws, "theirs.txt", "another agent's work\n")
		testenv.Run(t, ws, "jj", "status")
		testenv.WriteFile(t, dir, "mine.txt", "escape\n")
		testenv.Run(t, dir, "jj", "describe", "-m", "Declared")
		check(t, c, base, "mine.txt")
	})

	t.Run("no start", func(t *testing.T) {
		dir := testenv.JJRepo(t)
		got, err := jj.New(dir).SnapshotsSince(ctx, nil)
		if err != nil || got.Complete || len(got.Files) != 0 {
			t.Errorf("SnapshotsSince(nil) = %+v, %v; want nothing checked", got, err)
		}
	})

	t.Run("start not found", func(t *testing.T) {
		dir := testenv.JJRepo(t)
		testenv.WriteFile(t, dir, "a.txt", "escape\n")
		testenv.Run(t, dir, "jj", "describe", "-m", "Declared")
		got, err := jj.New(dir).SnapshotsSince(ctx, []string{"0123456789abcdef"})
		if err != nil || got.Complete || !slices.Equal(got.Files, []string{"a.txt"}) {
			t.Errorf("SnapshotsSince(unknown op) = %+v, %v; want incomplete, naming a.txt", got, err)
		}
	})
}
