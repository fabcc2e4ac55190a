package jj_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

func repos(t *testing.T) map[string]string {
	testenv.Isolate(t)
	return map[string]string{
		"colocated": testenv.JJRepo(t),
		"jj only":   testenv.JJOnlyRepo(t),
	}
}

func TestDescriptionRoundTrip(t *testing.T) {
	for kind, dir := range repos(t) {
		t.Run(kind, func(t *testing.T) {
			c := jj.New(dir)
			ctx := context.Background()
			tests := []struct{ name, desc string }{
				{"plain", "Add rate limiting"},
				{"quotes", `Fix "quoted" and 'single' and back\slash and $HOME and ` + "`cmd`"},
				{"newlines", "Title line\n\nDone:\n- one\n- two\n\nOpen questions:\n- why?"},
				{"non-ascii", "Ünïcödé ✓ 日本語 emoji 🚀"},
				{"leading dash", "-rf is not a flag here"},
				{"inner blank lines", "a\n\n\nb"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if err := c.Describe(ctx, "@", tt.desc); err != nil {
						t.Fatal(err)
					}
					got, err := c.Current(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if got.Description != tt.desc {
						t.Errorf("description = %q, want %q", got.Description, tt.desc)
					}
					if !got.Declared() {
						t.Error("Declared() = false for a described change")
					}
				})
			}
		})
	}
}

func TestCurrentAndNew(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	c := jj.New(dir)
	ctx := context.Background()

	cur, err := c.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !cur.Empty || cur.Declared() || cur.Conflict || cur.Immutable {
		t.Errorf("fresh @ = %+v, want empty, undescribed, no conflict, mutable", cur)
	}
	if len(cur.Parents) != 1 || cur.Parents[0] != strings.Repeat("z", 32) {
		t.Errorf("fresh @ parents = %v, want the root change", cur.Parents)
	}

	testenv.WriteFile(t, dir, "a.txt", "hello\n")
	testenv.WriteFile(t, dir, "sub/b.go", "package sub\n")
	if err := c.Describe(ctx, "@", "first"); err != nil {
		t.Fatal(err)
	}
	first, err := c.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Empty {
		t.Error("@ with two new files reports empty")
	}
	files, err := c.DiffSummary(ctx, "@")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "added", "sub/b.go": "added"}
	if len(files) != len(want) {
		t.Fatalf("DiffSummary = %+v, want %v", files, want)
	}
	for _, f := range files {
		if want[f.Path] != f.Status {
			t.Errorf("file %s status %q, want %q", f.Path, f.Status, want[f.Path])
		}
	}

	second, err := c.New(ctx, "second")
	if err != nil {
		t.Fatal(err)
	}
	if second.Description != "second" || len(second.Parents) != 1 || second.Parents[0] != first.ChangeID {
		t.Errorf("New = %+v, want description second on parent %s", second, first.ChangeID)
	}
	parent, err := c.Show(ctx, "@-")
	if err != nil {
		t.Fatal(err)
	}
	if parent.ChangeID != first.ChangeID || parent.CommitID == "" {
		t.Errorf("Show(@-) = %+v, want change %s", parent, first.ChangeID)
	}
	log, err := c.Log(ctx, "::@ ~ root()")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || log[0].ChangeID != second.ChangeID || log[1].ChangeID != first.ChangeID {
		t.Errorf("Log = %v, want [second first] newest first", log)
	}

	stat, err := c.DiffStat(ctx, "@-")
	if err != nil || !strings.Contains(stat, "a.txt") {
		t.Errorf("DiffStat = %q, %v; want it to name a.txt", stat, err)
	}
	git, err := c.DiffGit(ctx, "@-")
	if err != nil || !strings.Contains(git, "+hello") || !strings.Contains(git, "diff --git a/a.txt b/a.txt") {
		t.Errorf("DiffGit = %q, %v; want a git diff adding hello", git, err)
	}

	root, err := c.Root(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := filepath.EvalSymlinks(dir); root != r && root != dir {
		t.Errorf("Root = %q, want %q", root, dir)
	}
	if got, ok := jj.FindRoot(filepath.Join(dir, "sub")); !ok || got != dir {
		t.Errorf("FindRoot(sub) = %q, %v; want %q", got, ok, dir)
	}
}

func TestAbandonAndEdit(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	c := jj.New(dir)
	ctx := context.Background()
	if err := c.Describe(ctx, "@", "keep"); err != nil {
		t.Fatal(err)
	}
	keep, _ := c.Current(ctx)
	doomed, err := c.New(ctx, "doomed")
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, dir, "gone.txt", "x")
	if err := c.Abandon(ctx, "@"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Error("abandoning @ left its file in the working copy")
	}
	if _, err := c.Show(ctx, doomed.ChangeID); !errors.Is(err, jj.ErrNoSuchRevision) {
		t.Errorf("Show(abandoned) error = %v, want ErrNoSuchRevision", err)
	}
	if err := c.Edit(ctx, keep.ChangeID); err != nil {
		t.Fatal(err)
	}
	cur, _ := c.Current(ctx)
	if cur.ChangeID != keep.ChangeID {
		t.Errorf("after Edit, @ = %s, want %s", cur.ChangeID, keep.ChangeID)
	}
}

func TestTypedErrors(t *testing.T) {
	testenv.Isolate(t)
	ctx := context.Background()

	plain := t.TempDir()
	_, err := jj.New(plain).Current(ctx)
	if !errors.Is(err, jj.ErrNotRepo) {
		t.Errorf("Current outside a repo: %v, want ErrNotRepo", err)
	}
	if err != nil && (strings.Contains(err.Error(), "exit status") || !strings.Contains(err.Error(), "no jj repo")) {
		t.Errorf("error should carry jj's own message, got %q", err)
	}

	dir := testenv.JJRepo(t)
	_, err = jj.New(dir).Show(ctx, "nosuchrev")
	if !errors.Is(err, jj.ErrNoSuchRevision) {
		t.Errorf("Show(nosuchrev): %v, want ErrNoSuchRevision", err)
	}

	_, err = jj.New(dir).Show(ctx, "@@@(")
	if !errors.Is(err, jj.ErrBadRevset) || errors.Is(err, jj.ErrNoSuchRevision) {
		t.Errorf("Show(@@@(): %v, want ErrBadRevset only", err)
	}

	err = jj.New(dir).Describe(ctx, "root()", "x")
	if !errors.Is(err, jj.ErrImmutable) {
		t.Errorf("Describe(root()): %v, want ErrImmutable", err)
	}

	missing := &jj.Client{Dir: dir, Bin: filepath.Join(t.TempDir(), "no-jj-here")}
	if _, err := missing.Current(ctx); !errors.Is(err, jj.ErrNoJJ) {
		t.Errorf("missing binary: %v, want ErrNoJJ", err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := jj.New(dir).Current(cancelled); err == nil {
		t.Error("a cancelled context still ran jj")
	}
}

func TestDefaultIdentity(t *testing.T) {
	testenv.Isolate(t)
	t.Setenv("JJ_USER", "")
	t.Setenv("JJ_EMAIL", "")
	os.Unsetenv("JJ_USER")
	os.Unsetenv("JJ_EMAIL")
	dir := t.TempDir()
	testenv.Run(t, dir, "git", "init", "-q")
	c := jj.New(dir)
	ctx := context.Background()
	if err := c.GitInit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".jj")); err != nil {
		t.Fatal("GitInit made no .jj")
	}
	ch, err := c.New(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	if ch.Author != jj.DefaultUserName || ch.Email != jj.DefaultUserEmail {
		t.Errorf("author = %q <%s>, want the defaults when jj has no identity", ch.Author, ch.Email)
	}
}

func TestOpHeadAndRestore(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	c := jj.New(dir)
	ctx := context.Background()
	op, err := c.OpHead(ctx)
	if err != nil || len(op) < 12 {
		t.Fatalf("OpHead = %q, %v", op, err)
	}
	if err := c.Describe(ctx, "@", "later"); err != nil {
		t.Fatal(err)
	}
	op2, _ := c.OpHead(ctx)
	if op2 == op {
		t.Error("OpHead did not change after describe")
	}
	if err := c.OpRestore(ctx, op); err != nil {
		t.Fatal(err)
	}
	cur, _ := c.Current(ctx)
	if cur.Declared() {
		t.Errorf("after OpRestore, @ is %q, want undescribed", cur.Description)
	}
}

func TestPushToBareRemote(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	bare := testenv.BareRemote(t, dir, "origin")
	c := jj.New(dir)
	ctx := context.Background()

	testenv.WriteFile(t, dir, "api/limit.go", "package api\n")
	if err := c.Describe(ctx, "@", "Initial work"); err != nil {
		t.Fatal(err)
	}
	plan, err := jj.PlanPush(ctx, c, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Bookmark != "main" || plan.Remote != "origin" || plan.Target == nil || len(plan.Stack) != 1 {
		t.Fatalf("plan = %+v", plan)
	}
	if len(plan.Warnings) != 1 {
		t.Errorf("warnings = %v, want one: the description names no changed path", plan.Warnings)
	}
	if _, err := jj.Push(ctx, c, plan); err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(testenv.Run(t, "", "git", "--git-dir", bare, "rev-parse", "refs/heads/main"))
	if head != plan.Target.CommitID {
		t.Errorf("remote main = %s, want %s", head, plan.Target.CommitID)
	}
	msg := testenv.Run(t, "", "git", "--git-dir", bare, "log", "-1", "--format=%B", "main")
	if strings.TrimSpace(msg) != "Initial work" {
		t.Errorf("remote commit message = %q", msg)
	}
}

func TestSessionTrailer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, desc, root, want string
	}{
		{"adds", "Step two", "abc", "Step two\n\nSession: abc\n"},
		{"replaces", "Step\n\nSession: old\n", "new", "Step\n\nSession: new\n"},
		{"keeps body", "Step\n\nDone:\n- x", "r", "Step\n\nDone:\n- x\n\nSession: r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := jj.WithSessionRoot(tt.desc, tt.root)
			if got != tt.want {
				t.Errorf("WithSessionRoot = %q, want %q", got, tt.want)
			}
			if r, ok := jj.SessionRoot(got); !ok || r != tt.root {
				t.Errorf("SessionRoot = %q, %v", r, ok)
			}
		})
	}
	if _, ok := jj.SessionRoot("no trailer here\nSession:"); ok {
		t.Error("SessionRoot found a root in a description without one")
	}
}

func TestMentionsAny(t *testing.T) {
	t.Parallel()
	files := []jj.FileChange{{Path: "internal/ratelimit/bucket.go"}}
	tests := []struct {
		desc string
		want bool
	}{
		{"Add token bucket", true},
		{"Rate limiting in ratelimit package", true},
		{"tweak internal/ratelimit/bucket.go", true},
		{"Fix typo", false},
	}
	for _, tt := range tests {
		if got := jj.MentionsAny(tt.desc, files); got != tt.want {
			t.Errorf("MentionsAny(%q) = %v, want %v", tt.desc, got, tt.want)
		}
	}
}

func TestLogWithStat(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	c := jj.New(dir)
	ctx := context.Background()
	if err := c.Describe(ctx, "@", "parent\nwith body"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.New(ctx, "child"); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, dir, "notes/todo.txt", "one\ntwo\n")
	changes, stat, err := c.LogWithStat(ctx, "@ | @-", 80)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || !changes[0].WorkingCopy || changes[1].WorkingCopy {
		t.Fatalf("changes = %+v; want @ (the working copy) then @-", changes)
	}
	if changes[0].Description != "child" || changes[1].Description != "parent\nwith body" {
		t.Errorf("descriptions %q, %q; want them exactly as written", changes[0].Description, changes[1].Description)
	}
	if !strings.Contains(stat, "notes/todo.txt") || !strings.Contains(stat, "1 file changed") {
		t.Errorf("stat = %q; want @'s diff stat", stat)
	}
	if _, stat, _ := c.LogWithStat(ctx, "@-", 80); stat != "" {
		t.Errorf("stat without @ in the revset = %q, want none", stat)
	}
}
