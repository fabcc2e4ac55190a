package staterepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// warnings collects what a store reports through Options.Warn.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(m string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, m)
}

func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

// openWarn opens a store whose warnings the test can read.
func (e *env) openWarn(agent string) (*Store, *warnings) {
	e.t.Helper()
	w := &warnings{}
	s, err := Open(Options{Dir: e.repo, Agent: agent, Getenv: e.getenv, LockTimeout: time.Minute, Warn: w.add})
	if err != nil {
		e.t.Fatal(err)
	}
	return s, w
}

// logN logs n entries "<prefix> i" and returns their bodies.
func logN(t *testing.T, s *Store, prefix string, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		body := fmt.Sprintf("%s %d", prefix, i)
		if _, err := s.Log(ctx(t), body, "", ""); err != nil {
			t.Fatalf("log %q: %v", body, err)
		}
		out = append(out, body)
	}
	return out
}

// assertLog checks that the agent's log holds exactly the bodies, once
// each, read both through planq and from the branch with git.
func assertLog(t *testing.T, e *env, s *Store, bodies []string) {
	t.Helper()
	es, probs, err := s.LogEntries(ctx(t), 0)
	if err != nil || len(probs) > 0 {
		t.Fatalf("LogEntries: %v %v", err, probs)
	}
	got := map[string]int{}
	for _, en := range es {
		got[en.Body]++
	}
	for _, b := range bodies {
		if got[b] != 1 {
			t.Errorf("%q appears %d times in the log", b, got[b])
		}
	}
	if len(es) != len(bodies) {
		t.Errorf("log has %d entries, want %d", len(es), len(bodies))
	}
	var onBranch string
	for _, f := range strings.Fields(e.git(s.Bare, "ls-tree", "-r", "--name-only", s.Branch())) {
		if f == ChangelogFile || strings.HasPrefix(f, ArchiveDir+"/changelog-") {
			onBranch += e.git(s.Bare, "show", s.Branch()+":"+f) + "\n"
		}
	}
	for _, b := range bodies {
		if strings.Count(onBranch, "\n"+b+"\n")+strings.Count(onBranch, "\n"+b) == 0 {
			t.Errorf("%q is not on the branch", b)
		}
	}
}

func TestDeletedAgentBranchIsRestoredNotStartedOver(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"ref file removed", "update-ref -d (reflog gone too)", "ref file emptied"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			s, w := e.openWarn("")
			bodies := logN(t, s, "before", 3)
			head := e.git(s.Bare, "rev-parse", "agent-main")
			ref := filepath.Join(s.Bare, "refs", "heads", "agent-main")
			switch how {
			case "ref file removed":
				os.Remove(ref)
			case "update-ref -d (reflog gone too)":
				e.git(s.Bare, "update-ref", "-d", "refs/heads/agent-main")
				if _, err := os.Stat(filepath.Join(s.Bare, "logs", "refs", "heads", "agent-main")); err == nil {
					t.Fatal("git kept the branch's reflog")
				}
			case "ref file emptied":
				os.WriteFile(ref, nil, 0o644)
				if _, _, err := s.LogEntries(ctx(t), 0); err == nil || !strings.Contains(err.Error(), ref) {
					t.Errorf("reading a damaged branch: %v, want an error naming %s", err, ref)
				}
			}
			bodies = append(bodies, logN(t, s, "after", 1)...)
			if !strings.Contains(w.String(), "restored it to "+head[:10]) {
				t.Errorf("warnings = %q, want the restore reported", w)
			}
			assertLog(t, e, s, bodies)
			if n := e.git(s.Bare, "rev-list", "--count", "agent-main"); n != "5" {
				t.Errorf("%s commits, want 5 (create, 3 entries, 1 more)", n)
			}
			if st := e.git(s.Worktree, "status", "--porcelain"); st != "" {
				t.Errorf("worktree not clean:\n%s", st)
			}
			e.git(s.Bare, "fsck", "--strict", "--no-progress")
		})
	}
}

func TestDeletedGlobalIsRestoredOrRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, w := e.openWarn("")
	logN(t, s, "promoted", 2)
	if _, err := s.Promote(ctx(t)); err != nil {
		t.Fatal(err)
	}
	head := e.git(s.Bare, "rev-parse", "global")
	os.Remove(filepath.Join(s.Bare, "refs", "heads", "global"))
	os.Remove(filepath.Join(s.Bare, "logs", "refs", "heads", "global"))
	if _, err := s.Handoff(ctx(t), "over to you", nil, "bob"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "branch global was missing; restored it to "+head[:10]) || !strings.Contains(w.String(), filepath.Join("logs", "HEAD")) {
		t.Errorf("warnings = %q, want global restored from the bare repo's HEAD reflog", w)
	}
	if got := e.git(s.Bare, "show", "global:changelog.md"); !strings.Contains(got, "promoted 1") || !strings.Contains(got, "over to you") {
		t.Errorf("global's changelog lost entries:\n%s", got)
	}
	// With every record gone, planq refuses rather than start global over.
	before := e.git(s.Bare, "rev-parse", "global")
	os.Remove(filepath.Join(s.Bare, "refs", "heads", "global"))
	os.RemoveAll(filepath.Join(s.Bare, "logs"))
	_, err := s.Promote(ctx(t))
	if err == nil || !strings.Contains(err.Error(), "will not start it over") || !strings.Contains(err.Error(), "fsck --lost-found") ||
		!strings.Contains(err.Error(), "update-ref refs/heads/global") {
		t.Fatalf("Promote with global gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.Bare, "refs", "heads", "global")); err == nil {
		t.Error("a refused write created global")
	}
	e.git(s.Bare, "update-ref", "refs/heads/global", before)
	if _, err := s.Promote(ctx(t)); err != nil {
		t.Errorf("after the documented recovery: %v", err)
	}
}

func TestStaleGitLocksAreClearedAndNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, w := e.openWarn("")
	bodies := logN(t, s, "entry", 2)
	old := time.Now().Add(-time.Hour)
	lock := filepath.Join(s.Bare, "refs", "heads", "agent-main.lock")
	os.WriteFile(lock, nil, 0o644)
	os.Chtimes(lock, old, old)
	// Readers do not trip over it.
	if _, err := s.Status(ctx(t)); err != nil {
		t.Errorf("status with a stale ref lock: %v", err)
	}
	if _, _, err := s.Aggregate(ctx(t)); err != nil {
		t.Errorf("log --all with a stale ref lock: %v", err)
	}
	if _, _, err := s.Search(ctx(t), SearchQuery{Query: "entry"}); err != nil {
		t.Errorf("search with a stale ref lock: %v", err)
	}
	if _, err := s.GC(ctx(t), true); err != nil {
		t.Errorf("gc with a stale ref lock: %v", err)
	}
	bodies = append(bodies, logN(t, s, "next", 1)...)
	if !strings.Contains(w.String(), "removed the stale lock file "+lock) {
		t.Errorf("warnings = %q, want the lock named", w)
	}
	// A fresh lock (a live git process, or one killed a moment ago) is
	// waited for, then cleared once it is stale.
	os.WriteFile(lock, nil, 0o644)
	bodies = append(bodies, logN(t, s, "waited", 1)...)
	assertLog(t, e, s, bodies)
	e.git(s.Bare, "fsck", "--strict", "--no-progress")
}

func TestWriteReportsSuccessWhenOnlyTheWorktreeCouldNotBeUpdated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, w := e.openWarn("")
	bodies := logN(t, s, "entry", 1)
	// An index.lock nobody can remove (a directory with a file in it)
	// makes the worktree update fail after the commit.
	lock := filepath.Join(e.worktreeAdmin(s), "index.lock")
	os.MkdirAll(filepath.Join(lock, "x"), 0o755)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(lock, old, old)
	if _, err := s.Log(ctx(t), "committed anyway", "", ""); err != nil {
		t.Fatalf("a committed write failed: %v", err)
	}
	bodies = append(bodies, "committed anyway")
	if !strings.Contains(w.String(), "committed") || !strings.Contains(w.String(), lock) || !strings.Contains(w.String(), "next planq write finishes it") {
		t.Errorf("warnings = %q", w)
	}
	// Readers show the branch while the worktree lags, and status says so.
	assertLog(t, e, s, bodies)
	if st, err := s.Status(ctx(t)); err != nil || !strings.Contains(strings.Join(st.Notes, "\n"), "was interrupted; the next planq write finishes it") {
		t.Errorf("status notes = %q, %v", st.Notes, err)
	}
	os.RemoveAll(lock)
	bodies = append(bodies, logN(t, s, "after", 1)...)
	assertLog(t, e, s, bodies)
	if st := e.git(s.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not repaired:\n%s", st)
	}
}

func TestInterruptedWorktreeUpdatesAreFinished(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	bodies := logN(t, s, "entry", 2)
	admin := e.worktreeAdmin(s)
	wl := filepath.Join(s.Worktree, ChangelogFile)
	before, _ := os.ReadFile(wl)
	idx, _ := os.ReadFile(filepath.Join(admin, "index"))
	bodies = append(bodies, logN(t, s, "lost in the worktree", 2)...)
	after, _ := os.ReadFile(wl)
	// Two writers killed in a row after their commits: the worktree still
	// holds the old file and index, and the second one had appended part
	// of its update (a full disk, say), plus a temporary file.
	os.WriteFile(wl, after[:len(before)+(len(after)-len(before))/2], 0o644)
	os.WriteFile(filepath.Join(admin, "index"), idx, 0o644)
	os.WriteFile(filepath.Join(s.Worktree, ".planq-tmp-0123456789abcdef"), []byte("half"), 0o644)
	os.WriteFile(filepath.Join(admin, syncMarker), []byte(markPending+strings.Repeat("0", 40)+"\n"), 0o644)
	// Readers read the branch meanwhile.
	assertLog(t, e, s, bodies)
	bodies = append(bodies, logN(t, s, "next", 1)...)
	assertLog(t, e, s, bodies)
	if st := e.git(s.Worktree, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("worktree not repaired:\n%s", st)
	}
	// Without the marker (a worktree left by an older planq), the write
	// still builds on the branch, not on the cut-short copy.
	before, _ = os.ReadFile(wl)
	idx, _ = os.ReadFile(filepath.Join(admin, "index"))
	bodies = append(bodies, logN(t, s, "again", 1)...)
	after, _ = os.ReadFile(wl)
	os.WriteFile(wl, after[:len(before)+5], 0o644)
	os.WriteFile(filepath.Join(admin, "index"), idx, 0o644)
	bodies = append(bodies, logN(t, s, "last", 1)...)
	assertLog(t, e, s, bodies)
	e.git(s.Bare, "fsck", "--strict", "--no-progress")
}

func TestHandEditsOnAStaleCopyAreRefusedWithAdviceThatLosesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	logN(t, s, "entry", 1)
	admin := e.worktreeAdmin(s)
	wl := filepath.Join(s.Worktree, ChangelogFile)
	before, _ := os.ReadFile(wl)
	idx, _ := os.ReadFile(filepath.Join(admin, "index"))
	logN(t, s, "newer", 1)
	os.WriteFile(wl, append(before, "my own notes\n"...), 0o644)
	os.WriteFile(filepath.Join(admin, "index"), idx, 0o644)
	_, err := s.Log(ctx(t), "refused", "", "")
	if !errors.Is(err, ErrDirtyConflict) {
		t.Fatalf("err = %v, want ErrDirtyConflict", err)
	}
	for _, want := range []string{"cp " + wl + " " + wl + ".mine", "git -C " + s.Worktree + " checkout HEAD -- changelog.md"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("advice %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "discard") {
		t.Errorf("advice suggests discarding: %q", err)
	}
	// Following it loses neither side.
	os.WriteFile(wl+".mine", append(before, "my own notes\n"...), 0o644)
	e.git(s.Worktree, "checkout", "HEAD", "--", "changelog.md")
	if _, err := s.Log(ctx(t), "accepted", "", ""); err != nil {
		t.Fatal(err)
	}
	if got := e.git(s.Bare, "show", "agent-main:changelog.md"); !strings.Contains(got, "newer 0") || !strings.Contains(got, "accepted") {
		t.Errorf("branch lost entries:\n%s", got)
	}
}

// TestHandEditsThatDropEntriesAreRefused empties or rewrites a log file by
// hand: the next write to it is refused with advice that keeps both,
// nothing is committed, and following the advice loses nothing. Edits that
// keep every entry are committed as before.
func TestHandEditsThatDropEntriesAreRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
		edit func(old string) string
		log  func(s *Store) error
	}{
		{"changelog emptied", ChangelogFile, func(string) string { return "" },
			func(s *Store) error { _, err := s.Log(ctx(t), "x", "", ""); return err }},
		{"changelog rewritten", ChangelogFile, func(string) string { return "# my own summary of the work\n" },
			func(s *Store) error { _, err := s.Log(ctx(t), "x", "", ""); return err }},
		{"one entry cut out", ChangelogFile, func(old string) string {
			i := strings.Index(old, "\n---\nid: pq-")
			return old[:i+1]
		}, func(s *Store) error { _, err := s.Log(ctx(t), "x", "", ""); return err }},
		{"learnings emptied", LearningsFile, func(string) string { return "" },
			func(s *Store) error { _, err := s.Learn(ctx(t), "x", ""); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			s, _ := e.openWarn("")
			logN(t, s, "entry", 2)
			if _, err := s.Learn(ctx(t), "learned", ""); err != nil {
				t.Fatal(err)
			}
			head := e.git(s.Bare, "rev-parse", s.Branch())
			wl := filepath.Join(s.Worktree, tt.file)
			edited := tt.edit(readFile(t, wl))
			os.WriteFile(wl, []byte(edited), 0o644)
			err := tt.log(s)
			if !errors.Is(err, ErrDropsEntries) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want a one-line ErrDropsEntries", err)
			}
			for _, want := range []string{"cp " + wl + " " + wl + ".mine", "git -C " + s.Worktree + " checkout HEAD -- " + tt.file, "commit"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("advice %q lacks %q", err, want)
				}
			}
			if got := e.git(s.Bare, "rev-parse", s.Branch()); got != head {
				t.Errorf("the refused write moved the branch")
			}
			if readFile(t, wl) != edited {
				t.Errorf("the refused write touched the hand edit")
			}
			// Following the advice keeps both.
			os.WriteFile(wl+".mine", []byte(edited), 0o644)
			e.git(s.Worktree, "checkout", "HEAD", "--", tt.file)
			if err := tt.log(s); err != nil {
				t.Fatalf("after following the advice: %v", err)
			}
			got := e.git(s.Bare, "show", s.Branch()+":"+tt.file)
			if tt.file == ChangelogFile && (!strings.Contains(got, "entry 0") || !strings.Contains(got, "entry 1")) || !strings.HasSuffix(got, "\nx") {
				t.Errorf("branch after following the advice:\n%s", got)
			}
		})
	}
	t.Run("an edit that keeps every entry is committed", func(t *testing.T) {
		e := newEnv(t)
		s, _ := e.openWarn("")
		logN(t, s, "entry", 2)
		wl := filepath.Join(s.Worktree, ChangelogFile)
		os.WriteFile(wl, []byte(strings.Replace(readFile(t, wl), "entry 0", "entry 0, corrected by hand", 1)), 0o644)
		if _, err := s.Log(ctx(t), "next", "", ""); err != nil {
			t.Fatal(err)
		}
		if got := e.git(s.Bare, "show", s.Branch()+":"+ChangelogFile); !strings.Contains(got, "corrected by hand") || !strings.Contains(got, "next") {
			t.Errorf("branch:\n%s", got)
		}
	})
}

func TestLinksInTheWorktreeAreNeverFollowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	if _, err := s.Scratch(ctx(t), "the real notes", ScratchReplace); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(e.home, "secret")
	os.WriteFile(outside, []byte("root:x:0:0:secret\n"), 0o644)
	scratch := filepath.Join(s.Worktree, ScratchFile)
	os.Remove(scratch)
	os.Symlink(outside, scratch)
	sum, err := s.Context(ctx(t), ContextOptions{NoDetect: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sum.Markdown(), "secret") || sum.Scratch != "the real notes" {
		t.Errorf("context followed the link: scratch %q", sum.Scratch)
	}
	if !strings.Contains(strings.Join(sum.Problems, "\n"), "symbolic link") {
		t.Errorf("problems = %q, want the link reported", sum.Problems)
	}
	if data, _ := s.ReadFile(ScratchFile); strings.Contains(string(data), "secret") {
		t.Errorf("ReadFile followed the link: %q", data)
	}
	if _, err := s.Scratch(ctx(t), "more", ScratchAppend); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a write through the link: %v", err)
	}
	if got := readFile(t, outside); got != "root:x:0:0:secret\n" {
		t.Errorf("the link's target changed: %q", got)
	}
	os.Remove(scratch)

	// A checkpoints/ link: create is refused before anything is written.
	elsewhere := filepath.Join(e.home, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	cps := filepath.Join(s.Worktree, CheckpointDir)
	os.RemoveAll(cps)
	os.Symlink(elsewhere, cps)
	head := e.git(s.Bare, "rev-parse", "agent-main")
	if _, err := s.CreateCheckpoint(ctx(t), "cp1", OwnerUser); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("checkpoint through a link: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) > 0 {
		t.Errorf("wrote into the link's target: %v", ents)
	}
	if got := e.git(s.Bare, "rev-parse", "agent-main"); got != head {
		t.Error("a refused checkpoint committed")
	}

	// A symlinked .planq/agent is refused with a clear error.
	e2 := newEnv(t)
	real := filepath.Join(e2.home, "real-agent")
	os.MkdirAll(real, 0o755)
	os.MkdirAll(filepath.Join(e2.repo, ".planq"), 0o755)
	os.Symlink(real, filepath.Join(e2.repo, ".planq", "agent"))
	s2 := e2.open("")
	if _, err := s2.Log(ctx(t), "x", "", ""); err == nil || !strings.Contains(err.Error(), ".planq/agent is a symbolic link") {
		t.Errorf("write with a symlinked worktree: %v", err)
	}
	if ents, _ := os.ReadDir(real); len(ents) > 0 {
		t.Errorf("wrote through the symlinked worktree: %v", ents)
	}
}

func TestMalformedEntriesAreReportedByEveryRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	logN(t, s, "good", 2)
	wl := filepath.Join(s.Worktree, ChangelogFile)
	data := readFile(t, wl)
	data += "\n---\nid: pq-12345678\ntimestamp: not a time\nagent: main\ntype: implement\n---\n\nbroken by hand\n"
	os.WriteFile(wl, []byte(data), 0o644)
	line := strings.Count(data[:strings.LastIndex(data, "\n---\nid: pq-1234")+1], "\n") + 1
	want := fmt.Sprintf("changelog.md:%d:", line)
	_, probs, err := s.LogEntries(ctx(t), 20)
	if err != nil || len(probs) != 1 || probs[0].Error()[:len(want)] != want {
		t.Errorf("LogEntries(20) problems = %v, %v; want one at %s", probs, err, want)
	}
	sum, err := s.Context(ctx(t), ContextOptions{NoDetect: true})
	if err != nil || !strings.Contains(strings.Join(sum.Problems, "\n"), want) {
		t.Errorf("context problems = %q, want %s", sum.Problems, want)
	}
	if !strings.Contains(sum.Markdown(), want) {
		t.Errorf("context Markdown does not show the problem")
	}
	hits, probs, err := s.Search(ctx(t), SearchQuery{Query: "good"})
	if err != nil || len(hits) != 2 || len(probs) != 1 || !strings.HasPrefix(probs[0].Error(), want) {
		t.Errorf("Search: %d hits, problems %v, %v; want 2 hits and the problem at %s", len(hits), probs, err, want)
	}
	x := NewSearcher(s)
	for _, state := range []string{"cold", "warm"} {
		if _, err := x.Search(ctx(t), SearchQuery{Query: "good"}); err != nil {
			t.Fatal(err)
		}
		if probs := x.Problems(); len(probs) != 1 || !strings.HasPrefix(probs[0].Error(), want) {
			t.Errorf("Searcher (%s) problems = %v; want the one at %s", state, probs, want)
		}
		if err := x.Refresh(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(wl, []byte(readFile(t, wl)[:strings.LastIndex(data, "\n---\nid: pq-1234")+1]), 0o644) // fixed by hand
	if _, err := x.Search(ctx(t), SearchQuery{Query: "good"}); err != nil || len(x.Problems()) != 0 {
		t.Errorf("after the fix the warm searcher still reports %v (%v)", x.Problems(), err)
	}
}

func TestDamagedObjectErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	logN(t, s, "entry", 1)
	tree := e.git(s.Bare, "rev-parse", "agent-main^{tree}")
	obj := filepath.Join(s.Bare, "objects", tree[:2], tree[2:])
	data, _ := os.ReadFile(obj)
	os.Chmod(obj, 0o644)
	os.WriteFile(obj, data[:len(data)/2], 0o644)
	_, err := s.Log(ctx(t), "x", "", "")
	if err == nil || !strings.Contains(err.Error(), obj) {
		t.Errorf("write over a truncated tree: %v, want the file named", err)
	}
	os.Remove(obj)
	_, _, err = s.Search(ctx(t), SearchQuery{Query: "entry"})
	if err == nil || !strings.Contains(err.Error(), tree) || !strings.Contains(err.Error(), "fsck") {
		t.Errorf("search with a missing tree: %v", err)
	}
}

func TestGCDropsOldGarbageAndKeepsWhatIsFresh(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	logN(t, s, "entry", 5)
	hash := func(content string) string {
		p := filepath.Join(e.home, "blob")
		os.WriteFile(p, []byte(content), 0o644)
		return e.git(s.Bare, "hash-object", "-w", p)
	}
	oldBlob, freshBlob := hash("unreachable and old\n"), hash("unreachable and fresh\n")
	weeks := time.Now().Add(-3 * 7 * 24 * time.Hour)
	os.Chtimes(filepath.Join(s.Bare, "objects", oldBlob[:2], oldBlob[2:]), weeks, weeks)
	oldTmp := filepath.Join(s.Bare, "objects", "ab", "tmp_obj_old")
	freshTmp := filepath.Join(s.Bare, "objects", "ab", "tmp_obj_fresh")
	oldPack := filepath.Join(s.Bare, "objects", "pack", "tmp_pack_old")
	os.MkdirAll(filepath.Dir(oldPack), 0o755)
	os.MkdirAll(filepath.Dir(oldTmp), 0o755)
	for _, p := range []string{oldTmp, freshTmp, oldPack} {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	hours := time.Now().Add(-2 * time.Hour)
	os.Chtimes(oldTmp, hours, hours)
	os.Chtimes(oldPack, hours, hours)
	res, err := s.Maintain(ctx(t), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.TmpRemoved != 2 || res.LooseAfter != 0 {
		t.Errorf("result %+v", res)
	}
	for p, want := range map[string]bool{oldTmp: false, oldPack: false, freshTmp: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", p, err == nil, want)
		}
	}
	if _, err := e.gitErr(s.Bare, "cat-file", "-e", oldBlob); err == nil {
		t.Error("an unreachable object three weeks old survived gc")
	}
	if _, err := e.gitErr(s.Bare, "cat-file", "-e", freshBlob); err != nil {
		t.Error("gc dropped a fresh unreachable object (a concurrent writer's)")
	}
	e.git(s.Bare, "fsck", "--strict", "--no-progress")
}

func TestReadersAndWritersNeverFailDuringMaintenance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	bodies := logN(t, s, "seed", 30)
	c, cancel := context.WithCancel(ctx(t))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	wg.Add(2)
	go func() { // a writer
		defer wg.Done()
		for i := 0; c.Err() == nil; i++ {
			body := fmt.Sprintf("during %d", i)
			if _, err := s.Log(context.Background(), body, "", ""); err != nil {
				fail(fmt.Errorf("log: %w", err))
				return
			}
			mu.Lock()
			bodies = append(bodies, body)
			mu.Unlock()
		}
	}()
	go func() { // readers, each a fresh process's view
		defer wg.Done()
		for c.Err() == nil {
			r := e.open("")
			if _, _, err := r.LogEntries(context.Background(), 0); err != nil {
				fail(fmt.Errorf("log: %w", err))
			}
			if _, _, err := r.Search(context.Background(), SearchQuery{Query: "during seed"}); err != nil {
				fail(fmt.Errorf("search: %w", err))
			}
			if _, err := r.Context(context.Background(), ContextOptions{NoDetect: true}); err != nil {
				fail(fmt.Errorf("context: %w", err))
			}
		}
	}()
	for i := range 8 {
		if _, err := s.Maintain(ctx(t), i%2 == 0); err != nil {
			fail(fmt.Errorf("maintain: %w", err))
		}
	}
	cancel()
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	assertLog(t, e, s, bodies)
	e.git(s.Bare, "fsck", "--strict", "--no-progress")
}

func TestRestoreKeepsNewerEntriesInTheAutomaticCheckpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, _ := e.openWarn("")
	logN(t, s, "old", 1)
	if _, err := s.CreateCheckpoint(ctx(t), "before", OwnerUser); err != nil {
		t.Fatal(err)
	}
	logN(t, s, "newer", 2)
	res, err := s.RestoreCheckpoint(ctx(t), "before", OwnerUser)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dropped[ChangelogFile]) != 2 {
		t.Fatalf("dropped = %v, want the 2 newer entries", res.Dropped)
	}
	kept := e.git(s.Bare, "show", res.Auto.StateCommit+":"+ChangelogFile)
	for _, id := range res.Dropped[ChangelogFile] {
		if !strings.Contains(kept, "id: "+id) {
			t.Errorf("%s is not in the automatic checkpoint %s", id, res.Auto.Name)
		}
	}
	es, _, _ := s.LogEntries(ctx(t), 0)
	if len(es) != 1 || es[0].Body != "old 0" {
		t.Errorf("log after restore = %+v", es)
	}
}

func TestWritesMaintainTheRepo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.vars["PLANQ_GC_AUTO"] = "256"
	s, w := e.openWarn("")
	bodies := logN(t, s, "entry", 200)
	waitMaintenance(t, s)
	packs, _ := objectSizes(s.Bare)
	if packs == 0 {
		t.Fatalf("no pack after 200 writes with PLANQ_GC_AUTO=256 (%d loose objects)", countLoose(s.Bare))
	}
	if n := countLoose(s.Bare); n > 200*4/2 {
		t.Errorf("%d loose objects left after background maintenance", n)
	}
	if p := maintenanceProblem(s.Bare); p != "" {
		t.Errorf("background maintenance reported %q", p)
	}
	if w.String() != "" {
		t.Errorf("warnings: %s", w)
	}
	assertLog(t, e, s, bodies)
	e.git(s.Bare, "fsck", "--strict", "--no-progress")
	// Turned off, it stays off.
	e2 := newEnv(t)
	e2.vars["PLANQ_GC_AUTO"] = "0"
	s2 := e2.open("")
	logN(t, s2, "entry", 100)
	if packs, _ := objectSizes(s2.Bare); packs != 0 {
		t.Errorf("PLANQ_GC_AUTO=0 still packed")
	}
}
