package conffile

import (
	"os"
	"path/filepath"
	"testing"
)

// A config file that is a symlink (to a dotfiles repo) is written through:
// the link stays a link, its file gets the edit.
func TestApplyWritesThroughASymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	e, err := ReadEdit(link, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	e.After = []byte("{\"a\": 1}\n")
	if err := Apply(e); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced (%v)", err)
	}
	if got, _ := os.ReadFile(real); string(got) != string(e.After) {
		t.Fatalf("the linked file holds %q", got)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Fatalf("the linked file's mode is %v", fi.Mode().Perm())
	}
}
