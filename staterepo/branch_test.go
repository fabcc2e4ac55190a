package staterepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/text"
)

func TestBranchViews(t *testing.T) {
	// Not parallel: it changes segmentSize, which every store reads.
	old := segmentSize
	segmentSize = 2000
	t.Cleanup(func() { segmentSize = old })
	e := newEnv(t)
	c := ctx(t)

	// This worktree's agent, main: a changelog in segments and a handoff
	// to other, which global records too.
	s := e.open("main")
	var want []string // newest first
	for i := 0; i < 45; i++ {
		msg := fmt.Sprintf("entry %02d with some words to fill the segment", i)
		if _, err := s.Log(c, msg, "", ""); err != nil {
			t.Fatal(err)
		}
		want = append([]string{msg}, want...)
	}
	if _, err := s.Handoff(c, "over to other", []string{"finish it"}, "other"); err != nil {
		t.Fatal(err)
	}
	want = append([]string{"over to other"}, want...)
	if files := e.git(s.Bare, "ls-tree", "-r", "--name-only", "agent-main"); !strings.Contains(files, "archive/changelog-000002.md") {
		t.Fatalf("no archive segments:\n%s", files)
	}
	// Another agent's branch: learnings in archive segments, a scratch and
	// a checkpoint.
	other := e.open("other")
	for i := 0; i < 30; i++ {
		if _, err := other.Learn(c, fmt.Sprintf("learning %02d with words enough to fill segments", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := other.Update(c, "scratch", func(tx *Tx) error { return tx.Write(ScratchFile, []byte("other's notes\n")) }); err != nil {
		t.Fatal(err)
	}
	if _, err := other.CreateCheckpoint(c, "before-refactor", OwnerUser); err != nil {
		t.Fatal(err)
	}

	key, err := s.HeadsKey()
	if err != nil || !strings.Contains(key, "agent-main=") || !strings.Contains(key, "agent-other=") || !strings.Contains(key, "global=") {
		t.Fatalf("HeadsKey = %q, %v\n%s", key, err, e.git(s.Bare, "for-each-ref"))
	}

	// Pages of any size cover the changelog once, newest first; the total
	// is known on the page that reaches the oldest entry.
	for _, size := range []int{1, 7, 46, 100} {
		var got []string
		for off := 0; ; off += size {
			es, total, err := s.BranchEntries(c, "agent-main", ChangelogFile, off, size)
			if err != nil {
				t.Fatal(err)
			}
			for _, en := range es {
				got = append(got, title(en))
			}
			if off+len(es) >= len(want) {
				if total != len(want) {
					t.Errorf("size %d: last page's total = %d, want %d", size, total, len(want))
				}
				break
			}
			if total != -1 || len(es) != size {
				t.Fatalf("size %d offset %d: %d entries, total %d; want a full page and -1", size, off, len(es), total)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("size %d: paged\n%q\nwant\n%q", size, got, want)
		}
	}
	all, total, err := s.BranchEntries(c, "agent-main", ChangelogFile, 0, 0)
	if err != nil || total != len(want) || len(all) != len(want) || title(all[len(all)-1]) != want[len(want)-1] {
		t.Errorf("all entries: %d, total %d, %v", len(all), total, err)
	}
	if es, total, err := s.BranchEntries(c, "agent-main", ChangelogFile, 500, 10); err != nil || len(es) != 0 || total != len(want) {
		t.Errorf("past the end: %d entries, total %d, %v", len(es), total, err)
	}

	// Another agent's branch and global, read from this store.
	ls, total, err := s.BranchEntries(c, "agent-other", LearningsFile, 0, 3)
	if err != nil || len(ls) != 3 || total != -1 || !strings.HasPrefix(title(ls[0]), "learning 29") {
		t.Errorf("other's learnings: %d, total %d, first %q, %v", len(ls), total, titleOf(ls), err)
	}
	gs, total, err := s.BranchEntries(c, GlobalBranch, ChangelogFile, 0, 10)
	if err != nil || total != 1 || len(gs) != 1 || gs[0].Type != changelog.TypeHandoff || gs[0].To != "other" {
		t.Errorf("global's changelog: %+v, total %d, %v", gs, total, err)
	}
	if data, ok, err := s.BranchFile(c, "agent-other", ScratchFile); err != nil || !ok || string(data) != "other's notes\n" {
		t.Errorf("other's scratch = %q, %v, %v", data, ok, err)
	}
	if _, ok, err := s.BranchFile(c, GlobalBranch, ScratchFile); err != nil || ok {
		t.Errorf("global's scratch: ok %v, %v; want none", ok, err)
	}
	cps, err := s.BranchCheckpoints(c, "agent-other")
	if err != nil || len(cps) != 1 || cps[0].Name != "before-refactor" || cps[0].Agent != "other" {
		t.Errorf("other's checkpoints = %+v, %v", cps, err)
	}
	if cps, err := s.BranchCheckpoints(c, "agent-main"); err != nil || len(cps) != 0 {
		t.Errorf("main's checkpoints = %+v, %v", cps, err)
	}

	// The worktree's copy is preferred: a hand edit shows before it is
	// committed, on the branch checked out here only.
	if err := os.WriteFile(filepath.Join(s.Worktree, ScratchFile), []byte("edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(s.Worktree, ChangelogFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changelog.Append(f, changelog.Entry{Type: changelog.TypeImplement, Agent: "main", Timestamp: time.Now(), Body: "added by hand"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if data, _, err := s.BranchFile(c, "agent-main", ScratchFile); err != nil || string(data) != "edited by hand\n" {
		t.Errorf("main's scratch = %q, %v; want the worktree's copy", data, err)
	}
	if es, _, err := s.BranchEntries(c, "agent-main", ChangelogFile, 0, 1); err != nil || len(es) != 1 || title(es[0]) != "added by hand" {
		t.Errorf("newest of main's changelog = %q, %v; want the worktree's entry", titleOf(es), err)
	}
	if again, _ := s.HeadsKey(); again != key {
		t.Errorf("HeadsKey moved without a commit: %q then %q", key, again)
	}
	if _, err := other.Log(c, "other moves on", "", ""); err != nil {
		t.Fatal(err)
	}
	if moved, _ := s.HeadsKey(); moved == key {
		t.Error("HeadsKey did not move when another agent's branch did")
	}

	// Bad names and missing branches are clear errors.
	for _, b := range []string{"main", "agent-", "agent-../x", "refs/heads/global"} {
		if _, _, err := s.BranchEntries(c, b, ChangelogFile, 0, 10); err == nil || !strings.Contains(err.Error(), "state branch") {
			t.Errorf("branch %q: %v, want a naming error", b, err)
		}
	}
	if _, _, err := s.BranchFile(c, "agent-nobody", ScratchFile); !errors.Is(err, ErrNoBranch) {
		t.Errorf("missing branch: %v, want ErrNoBranch", err)
	}
	if _, _, err := s.BranchEntries(c, "agent-main", ScratchFile, 0, 10); err == nil {
		t.Error("entries of scratch.md gave no error")
	}
	if _, _, err := s.BranchFile(c, "agent-main", "../outside"); err == nil {
		t.Error("a path out of the branch gave no error")
	}
}

func TestBranchViewsUninitialised(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	if key, err := s.HeadsKey(); err != nil || key != "" {
		t.Errorf("HeadsKey = %q, %v", key, err)
	}
	if _, _, err := s.BranchEntries(ctx(t), GlobalBranch, ChangelogFile, 0, 10); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("BranchEntries: %v, want ErrNotInitialized", err)
	}
	if s.Initialized() {
		t.Error("a read created the state repo")
	}
}

func titleOf(es []changelog.Entry) string {
	if len(es) == 0 {
		return ""
	}
	return title(es[0])
}

// title is an entry's first body line.
func title(e changelog.Entry) string { return text.FirstLine(e.Body) }
