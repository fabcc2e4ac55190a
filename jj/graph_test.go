package jj_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

// graphRepo builds A, then B-C and D and D2 on A, a three-parent merge M of
// C, D and D2, E on M, and X on the root; @ is X. It returns the repo and
// the change ids by description.
func graphRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	c := jj.New(dir)
	ctx := context.Background()
	ids := map[string]string{}
	step := func(desc string, parents ...string) {
		t.Helper()
		ch, err := c.New(ctx, desc, parents...)
		if err != nil {
			t.Fatal(err)
		}
		ids[desc] = ch.ChangeID
	}
	if err := c.Describe(ctx, "@", "A"); err != nil {
		t.Fatal(err)
	}
	cur, err := c.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids["A"] = cur.ChangeID
	testenv.WriteFile(t, dir, "a.txt", "one\ntwo\n") // snapshot into A by the next command
	step("B")
	testenv.WriteFile(t, dir, "a.txt", "one\n")
	testenv.WriteFile(t, dir, "b.txt", "b\n") // into B
	step("C")
	step("D", ids["A"])
	step("D2", ids["A"])
	step("M", ids["C"], ids["D"], ids["D2"])
	step("E")
	step("X", "root()")
	return dir, ids
}

func titles(rows []jj.GraphRow) []string {
	var out []string
	for _, r := range rows {
		if r.Change != nil {
			out = append(out, r.Change.Title())
		}
	}
	return out
}

func TestLogGraph(t *testing.T) {
	dir, ids := graphRepo(t)
	c := jj.New(dir)
	ctx := context.Background()

	all, more, err := c.LogGraph(ctx, "all()", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if more {
		t.Error("more = true for an unlimited listing")
	}
	want := []string{"X", "E", "M", "D2", "D", "C", "B", "A", ""}
	if got := titles(all); !slices.Equal(got, want) {
		t.Fatalf("changes = %q, want %q", got, want)
	}
	var drawing []string
	for _, r := range all {
		drawing = append(drawing, r.Graph)
		if r.Change != nil && !strings.ContainsAny(r.Graph, "@○◆") {
			t.Errorf("node row %q of %q has no node symbol", r.Graph, r.Change.Title())
		}
	}
	// The merge's node line is followed by the edge line that fans out to
	// its three parents, as jj draws it.
	m := slices.IndexFunc(all, func(r jj.GraphRow) bool { return r.Change != nil && r.Change.Title() == "M" })
	if m < 0 || m+1 >= len(all) || all[m+1].Change != nil || strings.Count(all[m+1].Graph, "┬")+strings.Count(all[m+1].Graph, "╮") != 2 {
		t.Fatalf("no fan-out line after the merge:\n%s", strings.Join(drawing, "\n"))
	}
	if got := all[m].Change.Parents; len(got) != 3 || !slices.Contains(got, ids["D2"]) {
		t.Errorf("merge parents = %v, want C, D and D2", got)
	}
	if !all[0].Change.WorkingCopy || !strings.HasPrefix(all[0].Graph, "@") {
		t.Errorf("first row = %q %+v, want @ drawn as the working copy", all[0].Graph, all[0].Change)
	}

	// Each page size walks the listing in pages; together the pages hold
	// every change once, and their lines are the full drawing's.
	for size := 1; size <= 4; size++ {
		var got []jj.GraphRow
		for skip := 0; ; skip += size {
			page, more, err := c.LogGraph(ctx, "all()", skip, size)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(titles(page)); n > size || n == 0 {
				t.Fatalf("size %d skip %d: %d changes", size, skip, n)
			}
			got = append(got, page...)
			if !more {
				break
			}
		}
		if g := titles(got); !slices.Equal(g, want) {
			t.Errorf("size %d: paged changes = %q, want %q", size, g, want)
		}
		var paged []string
		for _, r := range got {
			paged = append(paged, r.Graph)
		}
		if !slices.Equal(paged, drawing) {
			t.Errorf("size %d: paged drawing\n%s\nwant\n%s", size, strings.Join(paged, "\n"), strings.Join(drawing, "\n"))
		}
	}
	if page, more, err := c.LogGraph(ctx, "all()", 100, 10); err != nil || more || len(page) != 0 {
		t.Errorf("past the end: %d rows, more %v, err %v", len(page), more, err)
	}

	// Changes whose parents the revset leaves out end in jj's "~" lines.
	part, _, err := c.LogGraph(ctx, ids["M"]+"|"+ids["A"], 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := titles(part); !slices.Equal(got, []string{"M", "A"}) {
		t.Fatalf("partial listing = %q", got)
	}
	elided := slices.IndexFunc(part, func(r jj.GraphRow) bool { return r.Elided })
	if elided < 0 || part[elided].Graph != "~" {
		t.Errorf("no elided-revisions line between M and A: %+v", part)
	}
	if last := part[len(part)-1]; last.Change != nil || last.Graph != "~" {
		t.Errorf("last line = %+v, want A's elided parent drawn as ~", last)
	}

	if _, _, err := c.LogGraph(ctx, "all(", 0, 10); err == nil {
		t.Error("a bad revset gave no error")
	}
}

func TestStats(t *testing.T) {
	dir, ids := graphRepo(t)
	c := jj.New(dir)
	ctx := context.Background()
	rows, _, err := c.LogGraph(ctx, ids["A"]+"|"+ids["B"]+"|"+ids["E"], 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var commits []string
	for _, r := range rows {
		if r.Change != nil {
			commits = append(commits, r.Change.CommitID)
		}
	}
	stats, err := c.Stats(ctx, strings.Join(commits, "|"))
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 3 {
		t.Fatalf("Stats = %v, want 3 entries", stats)
	}
	for _, r := range rows {
		if r.Change == nil {
			continue
		}
		want := map[string]jj.CompactStat{"A": {Files: 1, Insertions: 2}, "B": {Files: 2, Insertions: 1, Deletions: 1}, "E": {}}[r.Change.Title()]
		if got := stats[r.Change.CommitID]; got != want {
			t.Errorf("Stats[%s] = %+v, want %+v", r.Change.Title(), got, want)
		}
	}
}

// LogGraphWithStats draws what LogGraph draws, page by page, with the
// stats Stats reads, from one jj process.
func TestLogGraphWithStats(t *testing.T) {
	dir, _ := graphRepo(t)
	c := jj.New(dir)
	ctx := context.Background()
	for _, page := range []struct{ skip, limit int }{{0, 0}, {0, 3}, {2, 3}} {
		plain, more, err := c.LogGraph(ctx, "all()", page.skip, page.limit)
		if err != nil {
			t.Fatal(err)
		}
		rows, moreS, err := c.LogGraphWithStats(ctx, "all()", page.skip, page.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(plain) || more != moreS {
			t.Fatalf("%+v: %d rows (more %v), LogGraph %d (more %v)", page, len(rows), moreS, len(plain), more)
		}
		var commits []string
		for i, r := range rows {
			if r.Graph != plain[i].Graph || (r.Change == nil) != (plain[i].Change == nil) || r.Elided != plain[i].Elided {
				t.Errorf("%+v row %d = %q %v, LogGraph's %q", page, i, r.Graph, r.Change, plain[i].Graph)
			}
			if r.Change != nil {
				commits = append(commits, r.Change.CommitID)
				if r.Stat == nil || r.Change.CommitID != plain[i].Change.CommitID {
					t.Errorf("%+v row %d: change %v, stat %v", page, i, r.Change, r.Stat)
				}
			}
		}
		stats, err := c.Stats(ctx, strings.Join(commits, "|"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Change != nil && r.Stat != nil && *r.Stat != stats[r.Change.CommitID] {
				t.Errorf("%s: stat %+v, Stats says %+v", r.Change.Title(), *r.Stat, stats[r.Change.CommitID])
			}
		}
	}
}

func TestOpHeadsKey(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	before, err := jj.OpHeadsKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := jj.OpHeadsKey(dir); again != before {
		t.Errorf("key moved without an operation: %q then %q", before, again)
	}
	if err := jj.New(dir).Describe(context.Background(), "@", "task"); err != nil {
		t.Fatal(err)
	}
	if after, err := jj.OpHeadsKey(dir); err != nil || after == before {
		t.Errorf("key after jj describe = %q, %v; want a new key", after, err)
	}
	if _, err := jj.OpHeadsKey(t.TempDir()); err == nil {
		t.Error("a directory without .jj gave a key")
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  jj.CompactStat
		short string
	}{
		{"2 files changed, 5 insertions(+), 1 deletion(-)", jj.CompactStat{2, 5, 1}, "2 files +5 -1"},
		{"1 file changed, 8 insertions(+), 0 deletions(-)", jj.CompactStat{1, 8, 0}, "1 file +8 -0"},
		{"0 files changed, 0 insertions(+), 0 deletions(-)", jj.CompactStat{}, "-"},
		{"", jj.CompactStat{}, "-"},
		{"garbage, 3 apples", jj.CompactStat{}, "-"},
	}
	for _, tt := range tests {
		got := jj.ParseStat(tt.in)
		if got != tt.want || got.String() != tt.short {
			t.Errorf("ParseStat(%q) = %+v (%q), want %+v (%q)", tt.in, got, got, tt.want, tt.short)
		}
	}
}

func TestChangeIDsRevset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ids  []string
		want string
	}{
		{nil, "none()"},
		{[]string{"kkkkkkkkkkkk", "zyxwvutsrqponmlk"}, "change_id(kkkkkkkkkkkk) | change_id(zyxwvutsrqponmlk)"},
		// Short (jj fails a revset on an ambiguous prefix), not jj's alphabet, revset text: left out.
		{[]string{"kkkk", "abcdefabcdef", `x") | all() | ("y`, "KKKKKKKKKKKK", "kkkkkkkkkkkk"}, "change_id(kkkkkkkkkkkk)"},
	}
	for _, tt := range tests {
		if got := jj.ChangeIDsRevset(tt.ids); got != tt.want {
			t.Errorf("ChangeIDsRevset(%q) = %q, want %q", tt.ids, got, tt.want)
		}
	}
}

func TestResolveChangeIDs(t *testing.T) {
	dir, ids := graphRepo(t)
	c := jj.New(dir)
	a, b := ids["A"], ids["B"]
	got, err := c.ResolveChangeIDs(context.Background(), []string{a[:12], b, strings.Repeat("k", 32), "abc", a[:4]})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[a[:12]] != a || got[b] != b {
		t.Errorf("ResolveChangeIDs = %v, want %s and %s resolved, nothing else", got, a[:12], b)
	}
}
