package staterepo

import (
	"errors"
	"github.com/planq-dev/planq/project"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

func TestInitCreatesGlobalBranchGitAccepts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	created, err := s.Init(ctx(t))
	if err != nil || !created {
		t.Fatalf("Init = %v, %v; want created", created, err)
	}
	if want := filepath.Join(e.pq, "state-repos", project.Derived(project.MainRoot(e.repo))+".git"); s.Bare != want || !strings.HasPrefix(filepath.Base(s.Bare), "code-") {
		t.Errorf("bare repo at %s, want %s (the directory's name and a hash of its path)", s.Bare, want)
	}
	files := e.git(s.Bare, "ls-tree", "-r", "--name-only", "global")
	for _, f := range []string{"plan.md", "changelog.md", "learnings.md", "decisions.md", "branches/README.md"} {
		if !strings.Contains(files, f) {
			t.Errorf("global lacks %s; has:\n%s", f, files)
		}
	}
	if got := e.git(s.Bare, "symbolic-ref", "HEAD"); got != "refs/heads/global" {
		t.Errorf("HEAD = %s", got)
	}
	e.git(s.Bare, "fsck", "--strict")
	again, err := s.Init(ctx(t))
	if err != nil || again {
		t.Fatalf("second Init = %v, %v; want no-op", again, err)
	}
	if n := e.git(s.Bare, "rev-list", "--count", "global"); n != "1" {
		t.Errorf("global has %s commits after two inits", n)
	}
}

func TestFirstWriteCreatesMainAgentAndWorktreeGitAccepts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	if s.Agent != "main" {
		t.Fatalf("default agent = %q", s.Agent)
	}
	_, err := s.Update(ctx(t), "scratch: replace", func(tx *Tx) error {
		return tx.Write(ScratchFile, []byte("investigating the auth bug\n"))
	})
	if err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(e.repo, ".planq", "agent")
	if got := readFile(t, filepath.Join(wt, "scratch.md")); got != "investigating the auth bug\n" {
		t.Errorf("scratch.md = %q", got)
	}
	for _, d := range []string{"artifacts", "notes", "checkpoints"} {
		if st, err := os.Stat(filepath.Join(wt, d)); err != nil || !st.IsDir() {
			t.Errorf("%s missing: %v", d, err)
		}
	}
	// The git CLI accepts the worktree planq wrote.
	if got := e.git(wt, "status", "--porcelain"); got != "" {
		t.Errorf("worktree not clean:\n%s", got)
	}
	if got := e.git(wt, "log", "--format=%s"); got != "scratch: replace\ncreate agent main" {
		t.Errorf("log = %q", got)
	}
	if got := e.git(wt, "rev-parse", "--abbrev-ref", "HEAD"); got != "agent-main" {
		t.Errorf("HEAD = %s", got)
	}
	list := e.git(s.Bare, "worktree", "list", "--porcelain")
	if !strings.Contains(list, "worktree "+wt) || !strings.Contains(list, "branch refs/heads/agent-main") {
		t.Errorf("worktree list:\n%s", list)
	}
	e.git(s.Bare, "fsck", "--strict")
	// The code repo does not see the state files.
	if got := e.git(e.repo, "status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Errorf("code repo status shows state files:\n%s", got)
	}
	// A commit made by hand in the worktree works, and planq builds on it.
	if err := os.WriteFile(filepath.Join(wt, "notes", "auth.md"), []byte("token expiry matters\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.git(wt, "add", "notes/auth.md")
	e.git(wt, "commit", "-q", "-m", "notes: auth by hand")
	_, err = s.Update(ctx(t), "scratch: append", func(tx *Tx) error {
		return tx.Append(ScratchFile, []byte("second line\n"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.git(wt, "log", "--format=%s", "-3"); got != "scratch: append\nnotes: auth by hand\nscratch: replace" {
		t.Errorf("log after hand commit = %q", got)
	}
	if got := e.git(wt, "status", "--porcelain"); got != "" {
		t.Errorf("worktree not clean after append:\n%s", got)
	}
	if got := e.git(wt, "show", "HEAD:scratch.md"); got != "investigating the auth bug\nsecond line" {
		t.Errorf("scratch at HEAD = %q", got)
	}
	e.git(s.Bare, "fsck", "--strict")
}

func TestHandEditsAreCommittedWithTheNextWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	if _, err := s.Update(ctx(t), "scratch", func(tx *Tx) error { return tx.Write(ScratchFile, []byte("a\n")) }); err != nil {
		t.Fatal(err)
	}
	wt := s.Worktree
	if err := os.WriteFile(filepath.Join(wt, ScratchFile), []byte("a\nedited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx(t), "scratch: append", func(tx *Tx) error { return tx.Append(ScratchFile, []byte("b\n")) }); err != nil {
		t.Fatal(err)
	}
	if got := e.git(wt, "show", "HEAD:scratch.md"); got != "a\nedited by hand\nb" {
		t.Errorf("HEAD:scratch.md = %q", got)
	}
	if got := e.git(wt, "status", "--porcelain"); got != "" {
		t.Errorf("worktree not clean:\n%s", got)
	}
}

func TestStaleWorktreeCopyDoesNotLoseCommittedEntries(t *testing.T) {
	t.Parallel()
	// A writer that died between its commit and its worktree update leaves
	// the old file on disk; the next write must build on the branch.
	e := newEnv(t)
	s := e.open("")
	if _, err := s.Update(ctx(t), "one", func(tx *Tx) error { return tx.Append(ScratchFile, []byte("one\n")) }); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join(s.Worktree, ScratchFile))
	idx, _ := os.ReadFile(filepath.Join(e.worktreeAdmin(s), "index"))
	if _, err := s.Update(ctx(t), "two", func(tx *Tx) error { return tx.Append(ScratchFile, []byte("two\n")) }); err != nil {
		t.Fatal(err)
	}
	// Simulate the crash: put back the old file and index.
	os.WriteFile(filepath.Join(s.Worktree, ScratchFile), []byte(before), 0o644)
	os.WriteFile(filepath.Join(e.worktreeAdmin(s), "index"), idx, 0o644)
	if _, err := s.Update(ctx(t), "three", func(tx *Tx) error { return tx.Append(ScratchFile, []byte("three\n")) }); err != nil {
		t.Fatal(err)
	}
	if got := e.git(s.Worktree, "show", "HEAD:scratch.md"); got != "one\ntwo\nthree" {
		t.Errorf("HEAD:scratch.md = %q", got)
	}
	if got := readFile(t, filepath.Join(s.Worktree, ScratchFile)); got != "one\ntwo\nthree\n" {
		t.Errorf("worktree scratch.md = %q", got)
	}
}

func (e *env) worktreeAdmin(s *Store) string {
	w, err := gitstore.WorktreeAt(s.Bare, s.Worktree)
	if err != nil || w == nil {
		e.t.Fatalf("no worktree: %v", err)
	}
	return w.Admin
}

func TestCreateRemoveAndNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	res, err := s.Create(ctx(t), "add-auth", false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "agent-add-auth" || res.Switched != "" {
		t.Errorf("Create = %+v", res)
	}
	if got := e.git(s.Worktree, "rev-parse", "--abbrev-ref", "HEAD"); got != "agent-add-auth" {
		t.Errorf("worktree HEAD = %s", got)
	}
	// The worktree's branch becomes the current agent.
	if s2 := e.open(""); s2.Agent != "add-auth" {
		t.Errorf("current agent = %q (%s)", s2.Agent, s2.AgentSource)
	}
	if _, err := s.Create(ctx(t), "add-auth", false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second create: %v", err)
	}
	for _, bad := range []string{"../x", "a/b", "-rf", strings.Repeat("x", 300), "a\x00b", "tab\there", "", ".hidden", "x.lock"} {
		_, err := s.Create(ctx(t), bad, false)
		if err == nil {
			t.Errorf("Create(%q) succeeded", bad)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Create(%q) error is not one line: %q", bad, err)
		}
	}
	// Switching to a new agent refuses while there are uncommitted edits.
	os.WriteFile(filepath.Join(s.Worktree, ScratchFile), []byte("dirty\n"), 0o644)
	if _, err := s.Create(ctx(t), "second", false); err == nil || !strings.Contains(err.Error(), "uncommitted") {
		t.Errorf("create while dirty: %v", err)
	}
	if out := e.git(s.Bare, "branch", "--list", "agent-second"); out != "" {
		t.Errorf("refused create left a branch: %s", out)
	}
	os.WriteFile(filepath.Join(s.Worktree, ScratchFile), nil, 0o644)
	res, err = s.Create(ctx(t), "second", false)
	if err != nil || res.Switched != "add-auth" {
		t.Fatalf("Create second = %+v, %v", res, err)
	}
	if got := e.git(s.Worktree, "status", "--porcelain"); got != "" {
		t.Errorf("not clean after switch:\n%s", got)
	}
	if err := s.Remove(ctx(t), "add-auth", false); err == nil || !strings.Contains(err.Error(), "no worktree here") {
		t.Errorf("remove of an agent not checked out: %v", err)
	}
	if err := s.Remove(ctx(t), "second", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Worktree); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree still there: %v", err)
	}
	if got := e.git(s.Bare, "worktree", "list", "--porcelain"); strings.Contains(got, s.Worktree) {
		t.Errorf("git still lists the worktree:\n%s", got)
	}
	if got := e.git(s.Bare, "branch", "--list", "agent-second"); got == "" {
		t.Error("remove deleted the branch")
	}
	e.git(s.Bare, "fsck", "--strict")
}

func TestJJNeverShowsStateFiles(t *testing.T) {
	t.Run("colocated", func(t *testing.T) {
		e := newEnv(t)
		e.jjInit()
		s := e.open("")
		if _, err := s.Log(ctx(t), "state entry", "", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Scratch(ctx(t), "notes", ScratchReplace); err != nil {
			t.Fatal(err)
		}
		if st := e.jj("st"); strings.Contains(st, ".planq/agent") || strings.Contains(st, "scratch.md") {
			t.Errorf("jj st shows state files:\n%s", st)
		}
		if files := e.jj("file", "list"); strings.Contains(files, ".planq/agent") {
			t.Errorf("jj tracks state files:\n%s", files)
		}
		if ex := readFile(t, filepath.Join(e.repo, ".git", "info", "exclude")); !strings.Contains(ex, "/.planq/agent/") {
			t.Errorf("info/exclude = %q", ex)
		}
	})
	t.Run("not colocated", func(t *testing.T) {
		e := newEnv(t)
		os.RemoveAll(filepath.Join(e.repo, ".git"))
		if _, err := exec.LookPath("jj"); err != nil {
			t.Skip("SKIPPED: jj is not on PATH")
		}
		for k, v := range map[string]string{"JJ_USER": "Test", "JJ_EMAIL": "test@example.com", "JJ_CONFIG": filepath.Join(e.home, "jj.toml"), "HOME": e.home} {
			t.Setenv(k, v)
		}
		e.jj("git", "init", "--no-colocate")
		s := e.open("")
		if _, err := s.Log(ctx(t), "state entry", "", ""); err != nil {
			t.Fatal(err)
		}
		// The rule goes to the exclude file of the git directory behind jj,
		// never to a .gitignore the change would carry.
		if _, err := os.Stat(filepath.Join(e.repo, ".gitignore")); err == nil {
			t.Errorf("planq wrote a .gitignore into the working copy")
		}
		if ex := readFile(t, filepath.Join(e.repo, ".jj", "repo", "store", "git", "info", "exclude")); !strings.Contains(ex, "/.planq/agent/") {
			t.Errorf("the backing git directory's info/exclude = %q", ex)
		}
		st := e.jj("st")
		if strings.Contains(st, ".planq/agent") || strings.Contains(st, "changelog.md") {
			t.Errorf("jj st shows state files:\n%s", st)
		}
		if files := e.jj("file", "list"); strings.Contains(files, ".planq/agent") {
			t.Errorf("jj tracks state files:\n%s", files)
		}
		if got := e.git(s.Worktree, "status", "--porcelain"); got != "" {
			t.Errorf("state worktree not clean:\n%s", got)
		}
	})
}
