package ignorefile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

func TestAdd(t *testing.T) {
	t.Parallel()
	const c = "planq's lines"
	tests := []struct {
		name, before string
		patterns     []string
		want         string // "" means unchanged
	}{
		{"to no file", "", []string{"/.planq/agent/"}, "# planq's lines\n/.planq/agent/\n"},
		{"after the user's lines", "# git's own\n*.log\n", []string{"/a.json", "/b.json"}, "# git's own\n*.log\n# planq's lines\n/a.json\n/b.json\n"},
		{"after a last line without a newline", "*.log", []string{"/a"}, "*.log\n# planq's lines\n/a\n"},
		{"CRLF lines are read", "/a\r\n", []string{"/a"}, ""},
		{"the same line", "/.planq/agent/\n", []string{"/.planq/agent/"}, ""},
		{"without the slashes", ".planq/agent\n", []string{"/.planq/agent/"}, ""},
		{"a directory above", "  /.planq/  \n", []string{"/.planq/agent/"}, ""},
		{"a directory above, bare", ".planq\n", []string{"/.planq/agent/"}, ""},
		{"a comment covers nothing", "# /.planq/agent/\n", []string{"/.planq/agent/"}, "# /.planq/agent/\n# planq's lines\n/.planq/agent/\n"},
		{"a prefix is no directory", "/.planq/ag\n", []string{"/.planq/agent/"}, "/.planq/ag\n# planq's lines\n/.planq/agent/\n"},
		{"only what is missing", "/a\n", []string{"/a", "/b", "/b"}, "/a\n# planq's lines\n/b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.want
			if want == "" {
				want = tt.before
			}
			if got := string(Add([]byte(tt.before), c, tt.patterns...)); got != want {
				t.Errorf("Add(%q) = %q, want %q", tt.before, got, want)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()
	user := "# git's own comment\n*.log\n"
	older := "# Claude Code's local settings\n/.claude/settings.local.json\n"
	tests := []struct {
		name, before string
		comments     []string
		patterns     []string
		want         string
	}{
		{"planq's block goes, the user's lines stay", user + "# Host's wiring\n/.host/a.json\n/.host/b.json\n" + older + "mine/\n",
			[]string{"Host's wiring"}, []string{"/.host/a.json", "/.host/b.json"}, user + older + "mine/\n"},
		{"an older comment too, and only planq's patterns under it", user + older + "mine/\n",
			[]string{"x", "Claude Code's local settings"}, []string{"/.claude/settings.local.json"}, user + "mine/\n"},
		{"a file of planq's lines alone empties", "# c\n/p\n", []string{"c"}, []string{"/p"}, ""},
		{"nothing of planq's: unchanged", user, []string{"c"}, []string{"/p"}, user},
		{"a user's line that only looks like the comment stays", "c\n/p\n", []string{"c"}, []string{"/p"}, "c\n/p\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := string(Remove([]byte(tt.before), tt.comments, tt.patterns...)); got != tt.want {
				t.Errorf("Remove = %q, want %q", got, tt.want)
			}
		})
	}
}

// Exclude finds the exclude file git and jj read for the repo at dir: a
// git repo's, a linked git worktree's shared one, and (with real jj) the
// backing git directory's of colocated and non-colocated repos and their
// added workspaces.
func TestExclude(t *testing.T) {
	testenv.Isolate(t)
	base := t.TempDir()
	gitRepo := filepath.Join(base, "git")
	testenv.Run(t, "", "git", "init", "-q", "-b", "main", gitRepo)
	testenv.Run(t, gitRepo, "git", "commit", "-q", "--allow-empty", "-m", "first")
	linked := filepath.Join(base, "linked")
	testenv.Run(t, gitRepo, "git", "worktree", "add", "-q", linked)
	plain := filepath.Join(base, "plain")
	os.Mkdir(plain, 0o755)
	cases := map[string]string{ // dir: its exclude file, "" for none
		gitRepo: filepath.Join(gitRepo, ".git", "info", "exclude"),
		linked:  filepath.Join(gitRepo, ".git", "info", "exclude"),
		plain:   "",
	}
	if !testenv.Short() {
		testenv.RequireJJ(t)
		colocated := testenv.JJRepo(t)
		only := testenv.JJOnlyRepo(t)
		ws := filepath.Join(base, "ws")
		testenv.Run(t, only, "jj", "workspace", "add", ws)
		sub := filepath.Join(colocated, "sub")
		os.Mkdir(sub, 0o755)
		cases[colocated] = filepath.Join(colocated, ".git", "info", "exclude")
		cases[sub] = cases[colocated]
		cases[only] = filepath.Join(only, ".jj", "repo", "store", "git", "info", "exclude")
		cases[ws] = cases[only]
	}
	for dir, want := range cases {
		got, ok, err := Exclude(dir)
		if err != nil || ok != (want != "") || !samePath(got, want) {
			t.Errorf("Exclude(%s) = %q, %v, %v; want %q", dir, got, ok, err, want)
		}
	}
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	ra, err1 := filepath.EvalSymlinks(filepath.Dir(a))
	rb, err2 := filepath.EvalSymlinks(filepath.Dir(b))
	return err1 == nil && err2 == nil && ra == rb && filepath.Base(a) == filepath.Base(b)
}

// Ensure keeps the file's bytes and mode, writes through a symbolic link,
// makes a missing file, and leaves a file that covers the patterns alone.
func TestEnsure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	made := filepath.Join(dir, "info", "exclude")
	if err := Ensure(made, "c", "/p/"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(made); string(got) != "# c\n/p/\n" {
		t.Errorf("a new file holds %q", got)
	}

	kept := filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, []byte("# mine\r\n*.log"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(kept, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := Ensure(link, "c", "/p/"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(kept); string(got) != "# mine\r\n*.log\n# c\n/p/\n" {
		t.Errorf("the linked file holds %q", got)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link (%v)", err)
	}
	if st, _ := os.Stat(kept); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}

	before, _ := os.Stat(kept)
	if err := Ensure(kept, "other", "/p/x"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(kept); !os.SameFile(before, after) {
		t.Error("a file that covered the pattern was written again")
	}
}
