package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestReflogsStayBounded grows a branch's reflog past ReflogMax (as 100,000
// writes would) and checks that the next update trims it to its newest
// lines, whole, which git still reads, and that the update's own entry is
// kept.
func TestReflogsStayBounded(t *testing.T) {
	t.Parallel()
	r, _ := bareRepo(t)
	c := context.Background()
	sig := object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1e9, 0)}
	blob, err := r.WriteBlob([]byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.EditTree(plumbing.ZeroHash, map[string]Edit{"x.md": {Hash: blob}})
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.WriteCommit(tree, nil, "first", sig)
	if err != nil {
		t.Fatal(err)
	}
	name := BranchRef("agent-a")
	if err := r.UpdateRef(c, RefUpdate{Name: name, New: first, Msg: "create", Sig: sig}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(r.Path(), "logs", "refs", "heads", "agent-a")
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		line := fmt.Sprintf("%s %s t <t@example.com> 1000000000 +0000\tplanq: log: implement \"entry %06d\"\n", first, first, i)
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		if st, _ := f.Stat(); st.Size() > ReflogMax {
			break
		}
	}
	f.Close()
	second, err := r.WriteCommit(tree, []plumbing.Hash{first}, "second", sig)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(c, RefUpdate{Name: name, New: second, Old: first, Msg: "planq: the newest", Sig: sig}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > ReflogKeep || len(data) < ReflogKeep/2 {
		t.Errorf("reflog is %d bytes after the trim, want at most %d (and most of that kept)", len(data), ReflogKeep)
	}
	es, err := ReadReflog(log)
	if err != nil || len(es) == 0 || es[len(es)-1].New != second || es[len(es)-1].Msg != "planq: the newest" {
		t.Fatalf("newest reflog entry after the trim: %v %+v", err, es[len(es)-1:])
	}
	if n := strings.Count(string(data), "\n"); n != len(es) {
		t.Errorf("%d lines but %d well-formed entries: a line was cut", n, len(es))
	}
	out, err := exec.Command("git", "-C", r.Path(), "reflog", "show", "--format=%gs", "-n", "1", "agent-a").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "planq: the newest" {
		t.Errorf("git reflog after the trim: %v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", r.Path(), "fsck", "--strict", "--no-progress", "--no-dangling", "agent-a").CombinedOutput(); err != nil {
		t.Errorf("git fsck after the trim: %v %s", err, out)
	}
	if _, err := os.Stat(log + ".lock"); !os.IsNotExist(err) {
		t.Errorf("the trim left %s.lock behind", log)
	}
}
