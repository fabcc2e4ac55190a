package conffile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\n13"
	want := `--- a/f
+++ b/f
@@ -1,7 +1,7 @@
 1
 2
 3
-4
+four
 5
 6
 7
@@ -10,3 +10,4 @@
 10
 11
 12
+13
\ No newline at end of file
`
	if got := Diff("/f", []byte(a), []byte(b)); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if Diff("/f", []byte(a), []byte(a)) != "" {
		t.Fatal("diff of equal files is not empty")
	}
}

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
