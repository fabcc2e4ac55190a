package gitstore

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// BenchmarkPackedRead reads a branch head's commit, root tree and a file
// from a fresh view of a packed repo of 100,000 commits (~300,000 objects,
// the size of a state repo of 100,000 entries), as every planq process
// does once: through go-git's storage, and through Repo (packSet), which
// searches the .idx files in place. The gap is why planq reads packs itself.
func BenchmarkPackedRead(b *testing.B) {
	dir := b.TempDir()
	bare := filepath.Join(dir, "r.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	var stream bytes.Buffer
	for i := range 100_000 {
		content := fmt.Sprintf("entry %d\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata 3\nmsg\nM 100644 inline changelog.md\ndata %d\n%s\n", 1700000000+i, len(content), content)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = bare
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v %s", err, out)
	}
	r, err := Open(bare, nil)
	if err != nil {
		b.Fatal(err)
	}
	head, err := r.Head("main")
	if err != nil || head.IsZero() {
		b.Fatalf("head: %v", err)
	}
	read := func(b *testing.B, commit func(plumbing.Hash) (*object.Commit, error), tree func(plumbing.Hash) (*object.Tree, error), blob func(plumbing.Hash) ([]byte, error)) {
		c, err := commit(head)
		if err != nil {
			b.Fatal(err)
		}
		t, err := tree(c.TreeHash)
		if err != nil || len(t.Entries) != 1 {
			b.Fatalf("tree: %v", err)
		}
		if data, err := blob(t.Entries[0].Hash); err != nil || string(data) != "entry 99999\n" {
			b.Fatalf("blob %q: %v", data, err)
		}
	}
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			st := filesystem.NewStorage(osfs.New(bare), cache.NewObjectLRUDefault())
			read(b, func(h plumbing.Hash) (*object.Commit, error) { return object.GetCommit(st, h) },
				func(h plumbing.Hash) (*object.Tree, error) { return object.GetTree(st, h) },
				func(h plumbing.Hash) ([]byte, error) {
					bl, err := object.GetBlob(st, h)
					if err != nil {
						return nil, err
					}
					rd, err := bl.Reader()
					if err != nil {
						return nil, err
					}
					defer rd.Close()
					var buf bytes.Buffer
					_, err = buf.ReadFrom(rd)
					return buf.Bytes(), err
				})
		}
	})
	b.Run("planq", func(b *testing.B) {
		for b.Loop() {
			r, err := Open(bare, nil)
			if err != nil {
				b.Fatal(err)
			}
			read(b, r.Commit, r.Tree, r.Blob)
		}
	})
}
