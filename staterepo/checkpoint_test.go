package staterepo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// jjInit makes the env's code repo a colocated jj repo, skipping the test
// loudly when jj is missing.
func (e *env) jjInit() {
	e.t.Helper()
	if _, err := exec.LookPath("jj"); err != nil {
		e.t.Skip("SKIPPED: jj is not on PATH; run scripts/install-jj.sh")
	}
	for k, v := range map[string]string{"JJ_USER": "Test", "JJ_EMAIL": "test@example.com", "JJ_CONFIG": filepath.Join(e.home, "jj.toml")} {
		e.t.Setenv(k, v)
	}
	e.t.Setenv("HOME", e.home)
	e.jj("git", "init", "--colocate")
}

func (e *env) jj(args ...string) string {
	e.t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, "jj", args...)
	cmd.Dir = e.repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("jj %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestCheckpointRestoreBringsBackStateAndCode(t *testing.T) {
	e := newEnv(t)
	e.jjInit()
	c := ctx(t)
	s := e.open("")
	os.WriteFile(filepath.Join(e.repo, "app.go"), []byte("package app // v1\n"), 0o644)
	e.jj("describe", "-m", "v1")
	if _, err := s.Scratch(c, "plan A", ScratchReplace); err != nil {
		t.Fatal(err)
	}
	first, err := s.Log(c, "before the refactor", "", "")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := s.CreateCheckpoint(c, "before-refactor", OwnerModel)
	if err != nil {
		t.Fatal(err)
	}
	if cp.JJOp == "" || cp.StateCommit == "" {
		t.Fatalf("checkpoint = %+v", cp)
	}
	if _, err := s.CreateCheckpoint(c, "before-refactor", OwnerUser); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("duplicate checkpoint: %v", err)
	}
	// Risky work: code and state change.
	os.WriteFile(filepath.Join(e.repo, "app.go"), []byte("package app // v2, broken\n"), 0o644)
	e.jj("new", "-m", "refactor")
	s.Scratch(c, "plan B went wrong", ScratchReplace)
	s.Log(c, "refactor broke things", "", "")
	res, err := s.RestoreCheckpoint(c, "before-refactor", OwnerModel)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(e.repo, "app.go")); got != "package app // v1\n" {
		t.Errorf("code after restore = %q", got)
	}
	if got := readFile(t, filepath.Join(s.Worktree, ScratchFile)); got != "plan A\n" {
		t.Errorf("scratch after restore = %q", got)
	}
	es, _, _ := s.LogEntries(c, 0)
	if len(es) != 1 || es[0].ID != first.ID {
		t.Errorf("log after restore = %+v", es)
	}
	if st := e.git(s.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean:\n%s", st)
	}
	// History is kept: the restore is a new commit on top.
	if got := e.git(s.Worktree, "log", "-1", "--format=%s"); !strings.HasPrefix(got, `checkpoint: restore "before-refactor"`) {
		t.Errorf("head = %q", got)
	}
	if n := e.git(s.Worktree, "log", "--format=%s", "--grep", "refactor broke things"); n == "" {
		t.Error("the undone log commit is gone from history")
	}
	// The automatic checkpoint brings the undone work back.
	list, err := s.Checkpoints(c)
	if err != nil || len(list) != 2 || list[1].Name != res.Auto.Name || !strings.HasPrefix(res.Auto.Name, "auto-before-before-refactor-") {
		t.Fatalf("checkpoints = %+v, %v", list, err)
	}
	if _, err := s.RestoreCheckpoint(c, res.Auto.Name, OwnerUser); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(e.repo, "app.go")); got != "package app // v2, broken\n" {
		t.Errorf("code after restoring the auto checkpoint = %q", got)
	}
	if got := readFile(t, filepath.Join(s.Worktree, ScratchFile)); got != "plan B went wrong\n" {
		t.Errorf("scratch after restoring the auto checkpoint = %q", got)
	}
	e.git(s.Bare, "fsck", "--strict", "--no-progress")
}

func TestCheckpointOwnership(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	if _, err := s.CreateCheckpoint(c, "users", OwnerUser); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateCheckpoint(c, "models", OwnerModel); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteCheckpoint(c, "users", OwnerModel); !errors.Is(err, ErrNotOwner) {
		t.Errorf("model deleting the user's checkpoint: %v", err)
	}
	if err := s.DeleteCheckpoint(c, "models", OwnerModel); err != nil {
		t.Errorf("model deleting its own: %v", err)
	}
	// The model may restore the user's checkpoint (no jj repo here).
	res, err := s.RestoreCheckpoint(c, "users", OwnerModel)
	if err != nil || !strings.Contains(res.JJ, "not a jj repo") {
		t.Errorf("model restoring the user's checkpoint: %+v %v", res, err)
	}
	if err := s.DeleteCheckpoint(c, "users", OwnerUser); err != nil {
		t.Errorf("user deleting their own: %v", err)
	}
	if err := s.DeleteCheckpoint(c, "nope", OwnerUser); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("deleting a missing checkpoint: %v", err)
	}
	for _, bad := range []string{"../x", "a/b", "-rf", strings.Repeat("c", 300), "x\x01"} {
		if _, err := s.CreateCheckpoint(c, bad, OwnerUser); err == nil {
			t.Errorf("CreateCheckpoint(%q) accepted", bad)
		}
	}
	list, _ := s.Checkpoints(c)
	for _, cp := range list {
		if cp.Name == "users" || cp.Name == "models" {
			t.Errorf("deleted checkpoint %s still listed", cp.Name)
		}
	}
}

func TestPromoteIsAUnionAndIdempotentThenGC(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := ctx(t)
	s := e.open("")
	if _, err := s.Create(c, "worker", false); err != nil {
		t.Fatal(err)
	}
	w := e.open("")
	if w.Agent != "worker" {
		t.Fatalf("agent = %s", w.Agent)
	}
	w.Log(c, "did a thing", "", "")
	w.Learn(c, "jj op restore brings back code", "")
	w.Decide(c, "Keep checkpoints as files", []string{"refs"}, "readable and pushed")
	w.Handoff(c, "next: docs", nil, "")
	if _, err := w.SetBranchContext(c, "feature/auth", "JWT auth for the CLI"); err != nil {
		t.Fatal(err)
	}
	res, err := w.Promote(c)
	if err != nil || !res.Committed || res.Added[LearningsFile] != 1 || res.Added[DecisionsFile] != 1 || res.Added[ChangelogFile] != 2 || len(res.Branches) != 1 {
		t.Fatalf("promote = %+v, %v", res, err)
	}
	again, err := w.Promote(c)
	if err != nil || again.Committed || !again.UpToDate {
		t.Fatalf("second promote = %+v, %v", again, err)
	}
	if n := e.git(w.Bare, "rev-list", "--count", "global"); n != "2" {
		t.Errorf("global has %s commits after two promotes", n)
	}
	if got := e.git(w.Bare, "show", "global:branches/feature/auth.md"); got != "JWT auth for the CLI" {
		t.Errorf("branch context on global = %q", got)
	}
	// gc keeps a checked-out agent, deletes it once removed.
	out, err := w.GC(c, false)
	if err != nil || len(out) != 1 || out[0].Deleted || !strings.Contains(out[0].Reason, "checked out") {
		t.Fatalf("gc with worktree = %+v, %v", out, err)
	}
	if _, err := w.Log(c, "late, unpromoted entry", "", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Remove(c, "worker", false); err != nil {
		t.Fatal(err)
	}
	out, err = w.GC(c, false)
	if err != nil || len(out) != 1 || out[0].Deleted || !strings.Contains(out[0].Reason, "changelog.md are not in global") {
		t.Fatalf("gc of a removed agent with an unpromoted entry = %+v, %v", out, err)
	}
	if _, err := w.Promote(c); err != nil {
		t.Fatal(err)
	}
	if out, _ = w.GC(c, true); len(out) != 1 || out[0].Deleted || !strings.Contains(out[0].Reason, "dry run") {
		t.Errorf("dry run = %+v", out)
	}
	if out, _ = w.GC(c, false); len(out) != 1 || !out[0].Deleted {
		t.Errorf("gc of a removed, promoted agent = %+v", out)
	}
	if got := e.git(w.Bare, "branch", "--list", "agent-worker"); got != "" {
		t.Errorf("agent-worker still exists")
	}
	e.git(w.Bare, "fsck", "--strict", "--no-progress")
}

func TestPackTurnsLooseBlobsIntoOnePack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	for i := 0; i < 60; i++ {
		if _, err := s.Log(c, strings.Repeat("a line of log text ", 20)+string(rune('a'+i%26)), "", ""); err != nil {
			t.Fatal(err)
		}
	}
	// A blob only the worktree's index knows must survive.
	os.WriteFile(filepath.Join(s.Worktree, "notes", "staged.md"), []byte("staged by hand\n"), 0o644)
	e.git(s.Worktree, "add", "notes/staged.md")
	res, err := s.Maintain(c, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.LooseBefore < 100 || res.LooseAfter > 0 || res.PacksAfter == 0 || res.Bytes == 0 {
		t.Errorf("pack = %+v", res)
	}
	e.git(s.Bare, "fsck", "--strict", "--no-progress")
	if got := e.git(s.Worktree, "show", ":notes/staged.md"); got != "staged by hand" {
		t.Errorf("staged blob after pack = %q", got)
	}
	es, _, err := s.LogEntries(c, 0)
	if err != nil || len(es) != 60 {
		t.Fatalf("entries after pack: %d, %v", len(es), err)
	}
	if _, err := s.Log(c, "after the pack", "", ""); err != nil {
		t.Fatal(err)
	}
	if st := e.git(s.Worktree, "status", "--porcelain"); st != "A  notes/staged.md" {
		t.Errorf("worktree status = %q", st)
	}
}

// TestGCNeverDeletesContentThatExistsNowhereElse removes agents whose
// entries are all promoted but that hold a scratch pad, a checkpoint or a
// note: gc archives each under a ref it keeps, naming the files, and only
// deletes the branch of an agent with nothing of its own; full maintenance
// afterwards keeps the archived content.
func TestGCNeverDeletesContentThatExistsNowhereElse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := ctx(t)
	base := e.open("")
	if _, err := base.Log(c, "main's work", "", ""); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		agent string
		write func(s *Store) error
		file  string // what gc must name; "" means nothing of its own
	}{
		{"scratcher", func(s *Store) error { _, err := s.Scratch(c, "half-finished idea", ScratchReplace); return err }, ScratchFile},
		{"saver", func(s *Store) error { _, err := s.CreateCheckpoint(c, "before-refactor", OwnerUser); return err }, "checkpoints/before-refactor.yaml"},
		{"noter", func(s *Store) error {
			_, err := s.Update(c, "note", func(tx *Tx) error { return tx.Write("notes/design.md", []byte("the design\n")) })
			return err
		}, "notes/design.md"},
		{"idle", func(s *Store) error { return nil }, ""},
	}
	for _, tc := range cases {
		if _, err := base.Create(c, tc.agent, false); err != nil {
			t.Fatal(err)
		}
		s := e.open(tc.agent)
		if _, err := s.Log(c, tc.agent+" logged", "", ""); err != nil {
			t.Fatal(err)
		}
		if err := tc.write(s); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Promote(c); err != nil {
			t.Fatal(err)
		}
		if err := s.Remove(c, tc.agent, false); err != nil {
			t.Fatal(err)
		}
	}
	heads := map[string]string{}
	for _, tc := range cases {
		heads[tc.agent] = e.git(base.Bare, "rev-parse", "agent-"+tc.agent)
	}
	dry, err := base.GC(c, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range dry {
		if r.Deleted || r.Archived != "" {
			t.Errorf("dry run changed %+v", r)
		}
	}
	if got := e.git(base.Bare, "branch", "--list", "agent-scratcher"); got == "" {
		t.Fatal("the dry run removed a branch")
	}
	res, err := base.GC(c, false)
	if err != nil {
		t.Fatal(err)
	}
	byAgent := map[string]GCResult{}
	for _, r := range res {
		byAgent[r.Agent] = r
	}
	for _, tc := range cases {
		r := byAgent[tc.agent]
		if !r.Deleted {
			t.Errorf("%s kept: %+v", tc.agent, r)
			continue
		}
		if got := e.git(base.Bare, "branch", "--list", "agent-"+tc.agent); got != "" {
			t.Errorf("%s: branch still there", tc.agent)
		}
		if tc.file == "" {
			if r.Archived != "" || !strings.Contains(r.Reason, "everything on it is in global") {
				t.Errorf("%s, with nothing of its own: %+v", tc.agent, r)
			}
			continue
		}
		if !strings.HasPrefix(r.Archived, ArchivePrefix+"agent-"+tc.agent+"/") || !strings.Contains(r.Reason, tc.file) || !strings.Contains(r.Reason, "git -C ") {
			t.Errorf("%s: %+v; want it archived, naming %s and the way back", tc.agent, r, tc.file)
		}
	}
	// Full maintenance keeps what the archive refs hold.
	if _, err := base.Maintain(c, true); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases[:3] {
		ref := byAgent[tc.agent].Archived
		if got := e.git(base.Bare, "rev-parse", ref); got != heads[tc.agent] {
			t.Errorf("%s points at %s, want the branch's last commit %s", ref, got, heads[tc.agent])
		}
		e.git(base.Bare, "cat-file", "-e", ref+":"+tc.file)
		if log := e.git(base.Bare, "reflog", "show", "--format=%gs", ref); !strings.Contains(log, "create agent "+tc.agent) {
			t.Errorf("%s lost the branch's reflog:\n%s", ref, log)
		}
	}
	if got := e.git(base.Bare, "show", byAgent["scratcher"].Archived+":"+ScratchFile); got != "half-finished idea" {
		t.Errorf("archived scratch = %q", got)
	}
	e.git(base.Bare, "fsck", "--strict", "--no-progress")
	// Bringing a branch back as the message says.
	e.git(base.Bare, "branch", "agent-scratcher", byAgent["scratcher"].Archived)
	if got := e.git(base.Bare, "show", "agent-scratcher:"+ScratchFile); got != "half-finished idea" {
		t.Errorf("restored scratch = %q", got)
	}
}
