package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/staterepo"
)

// stateWorld is a code repo with a private HOME and PLANQ_HOME.
type stateWorld struct {
	t    *testing.T
	repo string
	env  map[string]string
}

func newStateWorld(t *testing.T) *stateWorld {
	t.Helper()
	return newStateWorldAt(t, t.TempDir())
}

// newStateWorldAt is newStateWorld under the directory base.
func newStateWorldAt(t *testing.T, base string) *stateWorld {
	t.Helper()
	w := &stateWorld{t: t, repo: filepath.Join(base, "code"), env: map[string]string{
		"HOME": filepath.Join(base, "home"), "PLANQ_HOME": filepath.Join(base, "planq"),
	}}
	os.MkdirAll(w.env["HOME"], 0o755)
	os.MkdirAll(w.repo, 0o755)
	w.git(w.repo, "init", "-q", "-b", "main")
	return w
}

// planq runs the CLI in-process in the code repo.
func (w *stateWorld) planq(stdin string, args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	var out, errb bytes.Buffer
	a := &app{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv:     func(k string) string { return w.env[k] },
		Getwd:      func() (string, error) { return w.repo, nil },
		Executable: os.Executable,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code = run(ctx, a, args)
	return out.String(), errb.String(), code
}

// ok runs planq and fails the test unless it exits 0.
func (w *stateWorld) ok(args ...string) string {
	w.t.Helper()
	out, errs, code := w.planq("", args...)
	if code != 0 {
		w.t.Fatalf("planq %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// bare returns the path of the code repo's state repo.
func (w *stateWorld) bare() string {
	w.t.Helper()
	s, err := staterepo.Open(staterepo.Options{Dir: w.repo, Getenv: func(k string) string { return w.env[k] }})
	if err != nil {
		w.t.Fatal(err)
	}
	return s.Bare
}

func (w *stateWorld) git(dir string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+w.env["HOME"], "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestStateInitWritesProjectAndIsIdempotent(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	out := w.ok("state", "init", "--project", "shop")
	if !strings.Contains(out, "Created state repo for project shop") {
		t.Errorf("init said %q", out)
	}
	cfg, _ := os.ReadFile(filepath.Join(w.repo, ".planq", "config.yaml"))
	if !strings.Contains(string(cfg), "project: shop") {
		t.Errorf("config.yaml = %q", cfg)
	}
	bare := filepath.Join(w.env["PLANQ_HOME"], "state-repos", "shop.git")
	if got := w.git(bare, "branch", "--list"); !strings.Contains(got, "global") {
		t.Errorf("branches: %s", got)
	}
	if out := w.ok("state", "init"); !strings.Contains(out, "already exists") {
		t.Errorf("second init said %q", out)
	}
	if _, errs, code := w.planq("", "state", "init", "--project", "other"); code == 0 || !strings.Contains(errs, `already belongs to project "shop"`) {
		t.Errorf("renaming init: exit %d, %s", code, errs)
	}
	if _, errs, code := w.planq("", "state", "init", "--project", "../evil"); code == 0 || strings.Count(errs, "\n") != 1 {
		t.Errorf("bad project: exit %d, %q", code, errs)
	}
}

func TestLogAddListAndContextShow(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	w.ok("log", "add", "Add Redis backend", "--status", "completed")
	w.ok("log", "add", "--type", "plan", "Plan the cache")
	if _, _, code := w.planq("Wire the cache\n\ninto the middleware\n", "log", "add", "-"); code != 0 {
		t.Fatal("log add - failed")
	}
	out := w.ok("log")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], "Wire the cache") || !strings.Contains(out, "implement/completed") || !strings.Contains(out, "Add Redis backend") {
		t.Errorf("planq log:\n%s", out)
	}
	var es []map[string]any
	if err := json.Unmarshal([]byte(w.ok("log", "--json", "-n", "2")), &es); err != nil || len(es) != 2 || es[0]["type"] != "implement" || es[1]["type"] != "plan" {
		t.Errorf("log --json: %v %v", es, err)
	}
	ctxOut := w.ok("context", "show")
	if !strings.Contains(ctxOut, "agent main") || !strings.Contains(ctxOut, "Wire the cache") {
		t.Errorf("context show:\n%s", ctxOut)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(w.ok("context", "show", "--json")), &sum); err != nil || sum["agent"] != "main" || len(sum["log"].([]any)) != 3 {
		t.Errorf("context show --json: %v %v", sum, err)
	}
	all := w.ok("log", "--all")
	if !strings.Contains(all, "| main |") {
		t.Errorf("log --all:\n%s", all)
	}
	// The code repo never shows the state files.
	if st := w.git(w.repo, "status", "--porcelain", "--untracked-files=all"); strings.Contains(st, ".planq/agent") {
		t.Errorf("git status shows state files:\n%s", st)
	}
}

func TestCLIBadInputIsOneLine(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	cases := [][]string{
		{"create", "../x"}, {"create", "a/b"}, {"create", "--", "-rf"}, {"create", strings.Repeat("n", 300)}, {"create", "bad\x07name"},
		{"log", "add", ""}, {"log", "add", "x", "--type", "bogus"}, {"log", "add", "x", "--status", "done"},
		{"log", "-n", "-1"},
		{"remove", "nobody"},
	}
	for _, args := range cases {
		out, errs, code := w.planq("", args...)
		if code == 0 {
			t.Errorf("planq %q succeeded: %s", args, out)
			continue
		}
		if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "planq: ") {
			t.Errorf("planq %q: stderr is not one line: %q", args, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(w.bare(), "refs", "heads", "agent-x")); err == nil {
		t.Error("a refused create made a branch")
	}
}

func TestCreateSwitchesAndRemoveKeepsBranch(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	w.ok("log", "add", "main's work")
	out := w.ok("create", "add-auth")
	if !strings.Contains(out, "Created agent add-auth") || !strings.Contains(out, "held agent main") {
		t.Errorf("create said %q", out)
	}
	w.ok("log", "add", "auth work")
	wt := filepath.Join(w.repo, ".planq", "agent")
	if got := w.git(wt, "log", "-1", "--format=%s"); got != `log: implement "auth work"` {
		t.Errorf("auth branch head = %q", got)
	}
	st := w.ok("state", "status")
	if !strings.Contains(st, "add-auth") || !strings.Contains(st, "main ") {
		t.Errorf("status:\n%s", st)
	}
	w.ok("remove", "add-auth")
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("worktree still exists: %v", err)
	}
	bare := w.bare()
	if got := w.git(bare, "branch", "--list", "agent-add-auth"); got == "" {
		t.Error("remove deleted the branch")
	}
}

func TestStatePushPullThroughALocalRemote(t *testing.T) {
	t.Parallel()
	a, b := newStateWorld(t), newStateWorld(t)
	remote := filepath.Join(t.TempDir(), "team-state.git")
	for _, w := range []*stateWorld{a, b} {
		w.ok("state", "init", "--project", "shop")
		if out := w.ok("state", "remote", remote); !strings.Contains(out, remote) {
			t.Errorf("remote said %q", out)
		}
	}
	a.env["PLANQ_AGENT"], b.env["PLANQ_AGENT"] = "alice", "bob"
	a.ok("log", "add", "alice was here")
	b.ok("log", "add", "bob was here")
	if out := a.ok("state", "push"); !strings.Contains(out, "agent-alice") || !strings.Contains(out, "pushed") {
		t.Errorf("push said:\n%s", out)
	}
	if out := b.ok("state", "pull"); !strings.Contains(out, "agent-alice") || !strings.Contains(out, "created") {
		t.Errorf("pull said:\n%s", out)
	}
	b.ok("state", "push")
	a.ok("state", "pull")
	a.env["PLANQ_AGENT"] = "bob"
	if out := a.ok("log"); !strings.Contains(out, "bob was here") {
		t.Errorf("a does not see bob's log:\n%s", out)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(a.ok("state", "status", "--json")), &st); err != nil || len(st["agents"].([]any)) != 2 {
		t.Errorf("status --json: %v %v", st, err)
	}
}

func TestCheckpointSearchPromoteGCCommands(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	w.ok("log", "add", "Implemented JWT validation")
	if out := w.ok("checkpoint", "create", "safe-point"); !strings.Contains(out, "Checkpoint safe-point") {
		t.Errorf("checkpoint create said %q", out)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(w.ok("checkpoint", "list", "--json")), &list); err != nil || len(list) != 1 || list[0]["owner"] != "user" {
		t.Fatalf("checkpoint list --json = %v, %v", list, err)
	}
	w.ok("log", "add", "Broke everything")
	if out := w.ok("checkpoint", "restore", "safe-point"); !strings.Contains(out, "Restored safe-point") {
		t.Errorf("restore said %q", out)
	}
	if out := w.ok("log"); strings.Contains(out, "Broke everything") || !strings.Contains(out, "JWT") {
		t.Errorf("log after restore:\n%s", out)
	}
	w.ok("checkpoint", "delete", "safe-point")
	if _, errs, code := w.planq("", "checkpoint", "restore", "safe-point"); code == 0 || !strings.Contains(errs, "no such checkpoint") {
		t.Errorf("restoring a deleted checkpoint: %d %s", code, errs)
	}
	if out := w.ok("search", "jwt"); !strings.Contains(out, "JWT validation") {
		t.Errorf("search:\n%s", out)
	}
	var hits []map[string]any
	if err := json.Unmarshal([]byte(w.ok("search", "jwt", "--json", "--type", "log", "--scope", "agent")), &hits); err != nil || len(hits) != 1 {
		t.Errorf("search --json = %v, %v", hits, err)
	}
	if _, errs, code := w.planq("", "search", "x", "--type", "nonsense"); code == 0 || !strings.Contains(errs, "--type") {
		t.Errorf("bad --type: %d %s", code, errs)
	}
	w.ok("context", "branch", "--branch", "feature/auth", "JWT auth for the CLI")
	if out := w.ok("context", "branch", "--branch", "feature/auth"); strings.TrimSpace(out) != "JWT auth for the CLI" {
		t.Errorf("branch context = %q", out)
	}
	if out := w.ok("context", "promote"); !strings.Contains(out, "Promoted agent main") {
		t.Errorf("promote said %q", out)
	}
	if out := w.ok("context", "promote"); !strings.Contains(out, "already has everything") {
		t.Errorf("second promote said %q", out)
	}
	if out := w.ok("state", "gc"); !strings.Contains(out, "kept") || !strings.Contains(out, "checked out") {
		t.Errorf("gc said %q", out)
	}
	w.ok("remove", "main")
	// The restore's automatic checkpoint exists nowhere else: gc archives
	// the branch instead of deleting it.
	if out := w.ok("state", "gc"); !strings.Contains(out, "archived agent-main") || !strings.Contains(out, "checkpoints/auto-before-safe-point") ||
		!strings.Contains(out, "refs/planq/archive/agent-main/") {
		t.Errorf("gc after remove said %q", out)
	}
}

func TestStateStatusComparesWithTheRemote(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	remote := filepath.Join(t.TempDir(), "r.git")
	w.ok("state", "remote", remote)
	w.ok("log", "add", "one")
	if out := w.ok("state", "status"); !strings.Contains(out, "remote: not pushed") {
		t.Errorf("status before push:\n%s", out)
	}
	w.ok("state", "push")
	if out := w.ok("state", "status"); !strings.Contains(out, "remote: up to date") || !strings.Contains(out, "global: up to date") {
		t.Errorf("status after push:\n%s", out)
	}
	w.ok("log", "add", "two")
	if out := w.ok("state", "status"); !strings.Contains(out, "remote: ahead (push)") {
		t.Errorf("status after a write:\n%s", out)
	}
}

func TestEveryReadReportsAMalformedEntryWithItsLine(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	w.ok("log", "add", "first entry")
	w.ok("log", "add", "second entry")
	wl := filepath.Join(w.repo, ".planq", "agent", "changelog.md")
	data, _ := os.ReadFile(wl)
	line := bytes.Count(data, []byte("\n")) + 2
	data = append(data, "\n---\nid: pq-12345678\ntimestamp: yesterday\nagent: main\ntype: implement\n---\n\nedited by hand\n"...)
	os.WriteFile(wl, data, 0o644)
	want := fmt.Sprintf("changelog.md:%d:", line)
	for _, args := range [][]string{{"log"}, {"log", "--json"}, {"log", "-n", "0"}, {"context", "show"}, {"context", "show", "--json"},
		{"search", "entry"}, {"search", "--json", "entry"}} {
		out, errs, code := w.planq("", args...)
		if code != 0 {
			t.Errorf("planq %v: exit %d: %s", args, code, errs)
			continue
		}
		if !strings.Contains(out+errs, want) {
			t.Errorf("planq %v does not report the malformed entry at %s:\n%s%s", args, want, out, errs)
		}
		if args[len(args)-1] == "--json" && !json.Valid([]byte(out)) {
			t.Errorf("planq %v: stdout is not JSON:\n%s", args, out)
		}
	}
}

func TestRestoreSaysWhereNewerEntriesWent(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	w.ok("log", "add", "old")
	w.ok("checkpoint", "create", "before")
	w.ok("log", "add", "newer")
	out := w.ok("checkpoint", "restore", "before")
	if !strings.Contains(out, "1 entries newer than before left the current logs (changelog.md: pq-") || !strings.Contains(out, "planq checkpoint restore auto-before-before-") {
		t.Errorf("restore said:\n%s", out)
	}
}

// TestAHandEmptiedLogIsNotCommitted is `: > .planq/agent/changelog.md;
// planq log add x`: refused in one line with the way to keep both, and
// the log keeps its entries.
func TestAHandEmptiedLogIsNotCommitted(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	w.ok("log", "add", "first")
	w.ok("log", "add", "second")
	wl := filepath.Join(w.repo, ".planq", "agent", "changelog.md")
	if err := os.WriteFile(wl, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := w.planq("", "log", "add", "x")
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "lacks 2 entries") || !strings.Contains(errs, "cp "+wl) {
		t.Fatalf("log add after emptying the log: exit %d\n%s", code, errs)
	}
	w.git(filepath.Join(w.repo, ".planq", "agent"), "checkout", "HEAD", "--", "changelog.md")
	w.ok("log", "add", "x")
	out := w.ok("log")
	for _, want := range []string{"first", "second", "x"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

// TestTwoProjectsWithTheSameFolderNameNeverShare is two clones named api
// on one machine: each `planq state init` makes its own state repo, and
// each reads and writes only its own log.
func TestTwoProjectsWithTheSameFolderNameNeverShare(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	a := newStateWorldAt(t, filepath.Join(base, "a"))
	b := newStateWorldAt(t, filepath.Join(base, "b"))
	b.env = a.env // one HOME, one PLANQ_HOME
	for _, w := range []*stateWorld{a, b} {
		api := filepath.Join(filepath.Dir(w.repo), "api")
		if err := os.Rename(w.repo, api); err != nil {
			t.Fatal(err)
		}
		w.repo = api
	}
	outA := a.ok("state", "init")
	outB := b.ok("state", "init")
	if !strings.Contains(outA, "Created state repo") || !strings.Contains(outB, "Created state repo") {
		t.Fatalf("init said:\n%s\n%s", outA, outB)
	}
	if a.bare() == b.bare() || !strings.HasPrefix(filepath.Base(a.bare()), "api-") {
		t.Fatalf("both use %s", a.bare())
	}
	a.ok("log", "add", "work in clone a")
	b.ok("log", "add", "work in clone b")
	if out := a.ok("log"); !strings.Contains(out, "clone a") || strings.Contains(out, "clone b") {
		t.Errorf("a's log:\n%s", out)
	}
	if out := b.ok("log"); !strings.Contains(out, "clone b") || strings.Contains(out, "clone a") {
		t.Errorf("b's log:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(a.repo, ".planq", "agent", "changelog.md")); strings.Contains(string(data), "clone b") {
		t.Error("b's write landed in a's worktree")
	}
}

// TestAStateRepoNamedAfterTheFolderKeepsWorking is a project whose state
// repo an older planq named after the directory (code.git, no owners
// file): the repo keeps reading and writing it, and a second repo of the
// same name gets its own.
func TestAStateRepoNamedAfterTheFolderKeepsWorking(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	old, err := staterepo.Open(staterepo.Options{Dir: w.repo, Project: "code", Getenv: func(k string) string { return w.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Log(context.Background(), "written by the older planq", "", ""); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(old.Bare, "planq-owners")) // the older planq wrote none
	if got := w.bare(); got != old.Bare {
		t.Fatalf("the repo now uses %s, not its state repo %s", got, old.Bare)
	}
	w.ok("log", "add", "written after the upgrade")
	if out := w.ok("log"); !strings.Contains(out, "older planq") || !strings.Contains(out, "after the upgrade") {
		t.Errorf("log:\n%s", out)
	}
	other := newStateWorldAt(t, t.TempDir())
	other.env = w.env
	other.ok("log", "add", "another project named code")
	if other.bare() == old.Bare {
		t.Fatal("a second repo named code shares code.git")
	}
	if out := w.ok("log"); strings.Contains(out, "another project") {
		t.Errorf("the second repo's entry shows in the first's log:\n%s", out)
	}
}

// TestARepoAtAMovedProjectsOldPathIsRefused moves a project away (it keeps
// its state repo through its worktree) and puts a new repo at its old
// path: the new one would get the same name, so planq refuses, saying how
// to name it, and the moved project is untouched.
func TestARepoAtAMovedProjectsOldPathIsRefused(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	w := newStateWorldAt(t, base)
	w.ok("log", "add", "the first project's entry")
	bare := w.bare()
	moved := filepath.Join(base, "moved")
	if err := os.Rename(w.repo, moved); err != nil {
		t.Fatal(err)
	}
	oldPath := w.repo
	w.repo = moved
	w.ok("log", "add", "written after the move") // records where it is now
	if w.bare() != bare {
		t.Fatalf("the moved project lost its state repo")
	}
	n := newStateWorldAt(t, base) // a new repo at the old path
	n.env = w.env
	if n.repo != oldPath {
		t.Fatal(n.repo)
	}
	_, errs, code := n.planq("", "log", "add", "the new repo's entry")
	if code != 1 || !strings.Contains(errs, moved) || !strings.Contains(errs, "planq state init --project") || strings.Count(errs, "\n") != 1 {
		t.Fatalf("a write in the new repo: exit %d: %s", code, errs)
	}
	n.ok("state", "init", "--project", "code-2")
	n.ok("log", "add", "the new repo's entry")
	// Sharing on purpose is said so.
	other := newStateWorldAt(t, t.TempDir())
	other.env = w.env
	if out := other.ok("state", "init", "--project", filepath.Base(bare[:len(bare)-len(".git")])); !strings.Contains(out, "shared with "+moved) {
		t.Errorf("init sharing a state repo said %q", out)
	}
	if out := w.ok("log"); strings.Contains(out, "new repo") || !strings.Contains(out, "after the move") {
		t.Errorf("the moved project's log:\n%s", out)
	}
}
