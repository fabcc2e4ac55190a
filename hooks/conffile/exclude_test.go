package conffile

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// ExcludeEdit adds planq's lines under its comment; ExcludeRemoval takes
// exactly those out again (an older planq's comment too), keeping the
// user's lines, and removes a file planq made.
func TestExcludeAddAndRemove(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	exclude := filepath.Join(repo, ".git", "info", "exclude")
	user := "# git's own comment\n*.log\n"
	if err := os.WriteFile(exclude, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := ExcludeEdit(ctx, repo, "", "Host's local planq wiring", "/.host/a.json", "/.host/b.json")
	if err != nil || Apply(e) != nil {
		t.Fatal(err)
	}
	if got := string(e.After); got != user+"# Host's local planq wiring\n/.host/a.json\n/.host/b.json\n" {
		t.Fatalf("added: %q", got)
	}
	// An older planq's block for another host stays; this host's goes.
	older := string(e.After) + "# Claude Code's local settings, where `planq mcp install` wires planq's hooks\n/.claude/settings.local.json\nmine/\n"
	if err := os.WriteFile(exclude, []byte(older), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ExcludeRemoval(ctx, repo, "", []string{"Host's local planq wiring"}, "/.host/a.json", "/.host/b.json")
	if err != nil || Apply(r) != nil {
		t.Fatal(err)
	}
	want := user + "# Claude Code's local settings, where `planq mcp install` wires planq's hooks\n/.claude/settings.local.json\nmine/\n"
	if got, _ := os.ReadFile(exclude); string(got) != want {
		t.Fatalf("after removal: %q, want %q", got, want)
	}
	r, err = ExcludeRemoval(ctx, repo, "", []string{"x", "Claude Code's local settings, where `planq mcp install` wires planq's hooks"}, "/.claude/settings.local.json")
	if err != nil || Apply(r) != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(exclude); string(got) != user+"mine/\n" {
		t.Fatalf("after the legacy block's removal: %q", got)
	}
	// A file planq made (with only planq's lines) goes.
	if err := os.Remove(exclude); err != nil {
		t.Fatal(err)
	}
	e, _ = ExcludeEdit(ctx, repo, "", "c", "/p")
	if err := Apply(e); err != nil {
		t.Fatal(err)
	}
	r, _ = ExcludeRemoval(ctx, repo, "", []string{"c"}, "/p")
	if err := Apply(r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(exclude); !os.IsNotExist(err) {
		t.Fatalf("the exclude file planq made is still there (%v)", err)
	}
}

// Tracked asks jj in a jj repo and git in a git repo without jj, and
// finds nothing outside a repo.
func TestTracked(t *testing.T) {
	testenv.Isolate(t)
	ctx := context.Background()
	gitRepo := t.TempDir()
	testenv.Run(t, gitRepo, "git", "init", "-q")
	testenv.WriteFile(t, gitRepo, "a/tracked.json", "{}")
	testenv.WriteFile(t, gitRepo, "a/untracked.json", "{}")
	testenv.Run(t, gitRepo, "git", "add", "a/tracked.json")
	jjRepo := testenv.JJRepo(t)
	testenv.WriteFile(t, jjRepo, "a/tracked.json", "{}")
	testenv.Run(t, jjRepo, "jj", "status")
	testenv.WriteFile(t, jjRepo, "a/untracked.json", "{}") // not snapshotted yet
	for name, dir := range map[string]string{"git": gitRepo, "jj": jjRepo, "none": t.TempDir()} {
		files := []string{filepath.Join(dir, "a", "tracked.json"), filepath.Join(dir, "a", "untracked.json")}
		got, err := Tracked(ctx, dir, "", false, files...)
		want := files[:1]
		if name == "none" {
			want = nil
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: Tracked = %q, %v; want %q", name, got, err, want)
		}
	}
	o := Options{Scope: ScopeLocal, ProjectDir: jjRepo}
	if err := o.RefuseTracked(ctx, "h", filepath.Join(jjRepo, "a", "tracked.json")); err == nil || !strings.Contains(err.Error(), "is part of the repo") {
		t.Errorf("RefuseTracked = %v", err)
	}
}
