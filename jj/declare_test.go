package jj_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

// onDisk reports whether rel exists in the working copy.
func onDisk(dir, rel string) bool {
	_, err := os.Stat(filepath.Join(dir, rel))
	return err == nil
}

func paths(files []jj.FileChange) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// TestDeclareKeepsTheWorkingCopy walks Declare through every state @ can be
// in when an agent declares, in a clone whose origin has main: nothing is
// taken off the disk without a note saying where it is.
func TestDeclareKeepsTheWorkingCopy(t *testing.T) {
	testenv.Isolate(t)
	ctx := context.Background()
	bare := testenv.RemoteWithMain(t)

	t.Run("empty @ on trunk is described in place", func(t *testing.T) {
		dir := testenv.Clone(t, bare)
		c := jj.New(dir)
		before, _ := c.Current(ctx)
		d, err := jj.Declare(ctx, c, "Add a greeting", "")
		if err != nil {
			t.Fatal(err)
		}
		if !d.InPlace || d.Change.ChangeID != before.ChangeID || d.Base != "trunk()" || !d.Fetched || d.FetchWarn != "" {
			t.Errorf("declared %+v; want @ %s described in place on trunk(), fetched without warning", d, before.ShortID())
		}
		if len(d.Carried) != 0 || len(d.Left) != 0 || len(d.Notes()) != 0 {
			t.Errorf("an empty @ carries nothing and leaves nothing: %+v, notes %q", d, d.Notes())
		}
	})

	t.Run("undescribed work on trunk is carried in place", func(t *testing.T) {
		dir := testenv.Clone(t, bare)
		c := jj.New(dir)
		testenv.WriteFile(t, dir, ".mcp.json", "{}\n")
		before, _ := c.Current(ctx)
		d, err := jj.Declare(ctx, c, "Add a greeting", "")
		if err != nil {
			t.Fatal(err)
		}
		if !d.InPlace || d.Rebased || d.Change.ChangeID != before.ChangeID || !slices.Equal(paths(d.Carried), []string{".mcp.json"}) {
			t.Errorf("declared %+v; want @ described in place carrying .mcp.json", d)
		}
		if !onDisk(dir, ".mcp.json") {
			t.Error(".mcp.json left the disk")
		}
		if n := d.Notes(); len(n) != 1 || !strings.Contains(n[0], ".mcp.json") || !strings.Contains(n[0], "part of this change") {
			t.Errorf("notes = %q; want one saying .mcp.json is now part of the change", n)
		}
	})

	t.Run("undescribed work on an old trunk is rebased onto the fetched one", func(t *testing.T) {
		dir := testenv.Clone(t, bare)
		c := jj.New(dir)
		testenv.WriteFile(t, dir, "notes.txt", "mine\n")
		newer := testenv.PushCommit(t, bare, "CHANGES.md", "newer\n", "Newer main")
		d, err := jj.Declare(ctx, c, "Add a greeting", "")
		if err != nil {
			t.Fatal(err)
		}
		trunk, _ := c.Show(ctx, "trunk()")
		cur, _ := c.Current(ctx)
		if !d.Rebased || d.InPlace || trunk.CommitID != newer || !slices.Equal(cur.Parents, []string{trunk.ChangeID}) {
			t.Errorf("declared %+v, @ parents %v; want @ rebased onto the fetched main %s", d, cur.Parents, newer)
		}
		if !onDisk(dir, "notes.txt") || !onDisk(dir, "CHANGES.md") || cur.Title() != "Add a greeting" {
			t.Errorf("after the rebase: notes.txt %v, CHANGES.md %v, @ %q", onDisk(dir, "notes.txt"), onDisk(dir, "CHANGES.md"), cur.Title())
		}
		if n := strings.Join(d.Notes(), " "); !strings.Contains(n, "notes.txt") || !strings.Contains(n, "rebased onto trunk()") || len(d.Left) != 0 {
			t.Errorf("notes = %q, left %v", n, d.Left)
		}
	})

	t.Run("work that would conflict with the new trunk stays where it is", func(t *testing.T) {
		dir := testenv.Clone(t, bare)
		c := jj.New(dir)
		old, _ := c.Show(ctx, "@-")
		testenv.WriteFile(t, dir, "README.md", "# mine\n")
		testenv.PushCommit(t, bare, "README.md", "# theirs\n", "Rewrite the README")
		d, err := jj.Declare(ctx, c, "Edit the README", "")
		if err != nil {
			t.Fatal(err)
		}
		cur, _ := c.Current(ctx)
		if d.Rebased || d.KeptOn == "" || cur.Conflict || !slices.Equal(cur.Parents, []string{old.ChangeID}) || cur.Title() != "Edit the README" {
			t.Errorf("declared %+v, @ %+v; want @ described on its old parent %s, no conflict", d, cur, old.ShortID())
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(got) != "# mine\n" {
			t.Errorf("README.md = %q, want the user's own", got)
		}
		if n := strings.Join(d.Notes(), " "); !strings.Contains(n, "would conflict") || !strings.Contains(n, "jj rebase -s @ -d trunk()") {
			t.Errorf("notes = %q; want the conflict and the rebase command", n)
		}
	})

	t.Run("described work left behind is named with the command to build on it", func(t *testing.T) {
		dir := testenv.Clone(t, bare)
		c := jj.New(dir)
		testenv.WriteFile(t, dir, "feature.go", "package feature\n")
		if err := c.Describe(ctx, "@", "Feature work"); err != nil {
			t.Fatal(err)
		}
		feature, _ := c.Current(ctx)
		d, err := jj.Declare(ctx, c, "Unrelated fix", "")
		if err != nil {
			t.Fatal(err)
		}
		if d.InPlace || len(d.Left) != 1 || d.Left[0].ChangeID != feature.ChangeID {
			t.Fatalf("declared %+v; want a new change on trunk() leaving %s", d, feature.ShortID())
		}
		if onDisk(dir, "feature.go") {
			t.Error("feature.go is still on disk; the new change should start on trunk()")
		}
		n := strings.Join(d.Notes(), " ")
		if !strings.Contains(n, feature.ShortID()) || !strings.Contains(n, "Feature work") || !strings.Contains(n, "jj rebase -s @ -d "+feature.ShortID()) {
			t.Errorf("notes = %q", n)
		}
		// The hint does what it says.
		testenv.Run(t, dir, "jj", strings.Fields(d.LeftHint)[1:]...)
		if !onDisk(dir, "feature.go") {
			t.Errorf("after %q feature.go is not back", d.LeftHint)
		}
	})
}
