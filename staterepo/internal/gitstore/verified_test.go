package gitstore

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// packedBlob stores 64 KB of random bytes in a pack of its own, with git,
// and returns the pack's path.
func packedBlob(t *testing.T, r *Repo) string {
	t.Helper()
	data := make([]byte, 64<<10)
	_, _ = rand.Read(data)
	hash := exec.Command("git", "-C", r.Path(), "hash-object", "-w", "--stdin")
	hash.Stdin = strings.NewReader(string(data))
	id, err := hash.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	pack := exec.Command("git", "-C", r.Path(), "pack-objects", "-q", filepath.Join("objects", "pack", "pack"))
	pack.Stdin = strings.NewReader(string(id))
	name, err := pack.Output()
	if err != nil {
		t.Fatalf("git pack-objects: %v", err)
	}
	return filepath.Join(r.Path(), "objects", "pack", "pack-"+strings.TrimSpace(string(name))+".pack")
}

// damage flips a byte in the middle of a file, keeping its size.
func damage(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b := make([]byte, 1)
	off := st.Size() / 2
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func packProblems(res CheckResult) []string {
	var out []string
	for _, p := range res.Problems {
		if p.Kind == ProblemPack {
			out = append(out, p.Detail)
		}
	}
	return out
}

// TestCheckHashesAPackOnceWhileItStaysTheSame: Check remembers the packs
// it hashed whole (VerifiedPacksFile) and hashes again only a pack whose
// stat data changed (written in place, replaced) or whose hash is older
// than reverifyAfter, so that damage is still found.
func TestCheckHashesAPackOnceWhileItStaysTheSame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _ := bareRepo(t)
	pack := packedBlob(t, r)
	name := filepath.Base(pack)
	record := filepath.Join(r.Path(), VerifiedPacksFile)

	if res := r.Check(ctx); len(res.Problems) > 0 || !res.Complete {
		t.Fatalf("a sound repo: %+v", res)
	}
	data, err := os.ReadFile(record)
	if err != nil || !strings.Contains(string(data), name) {
		t.Fatalf("%s after a check: %q, %v; want %s listed", VerifiedPacksFile, data, err, name)
	}

	// Written in place after it was verified: its ctime moved, so it is
	// hashed again and the damage found.
	damage(t, pack)
	if got := packProblems(r.Check(ctx)); len(got) != 1 || !strings.Contains(got[0], "its content does not match its checksum") {
		t.Fatalf("a pack damaged after its check: %q", got)
	}
	if data, _ := os.ReadFile(record); strings.Contains(string(data), name) {
		t.Errorf("a damaged pack stays in %s:\n%s", VerifiedPacksFile, data)
	}

	// A record that names the damaged pack's stat data as it is now: the
	// pack is taken as verified (a trailer check only) while the record is
	// recent, and hashed again once it is older than reverifyAfter.
	forge := func(verified time.Time) {
		t.Helper()
		st, err := os.Stat(pack)
		if err != nil {
			t.Fatal(err)
		}
		s := stampOf(st, verified)
		line := fmt.Sprintf("pack %s %d %d %d %d %d\n", name, s.size, s.mtime, s.ctime, s.ino, s.verified)
		if err := os.WriteFile(record, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	forge(time.Now().Add(2 * time.Second))
	if got := packProblems(r.Check(ctx)); len(got) != 0 {
		t.Fatalf("a pack the record says was hashed, unchanged since: %q; want only its trailer checked", got)
	}
	forge(time.Now().Add(-reverifyAfter - time.Hour))
	if got := packProblems(r.Check(ctx)); len(got) != 1 || !strings.Contains(got[0], "its content does not match its checksum") {
		t.Fatalf("a pack whose hash is older than %v: %q; want it hashed again and the damage found", reverifyAfter, got)
	}

	// Cut short: its trailer no longer matches, whatever the record says.
	forge(time.Now().Add(2 * time.Second))
	st, _ := os.Stat(pack)
	if err := os.Truncate(pack, st.Size()-1); err != nil {
		t.Fatal(err)
	}
	if got := packProblems(r.Check(ctx)); len(got) != 1 || !strings.Contains(got[0], "does not match its index") {
		t.Fatalf("a pack cut short: %q", got)
	}
}

// TestCheckForgetsPacksThatAreGone: a pack repacked away leaves the record.
func TestCheckForgetsPacksThatAreGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _ := bareRepo(t)
	pack := packedBlob(t, r)
	r.Check(ctx)
	for _, ext := range []string{".pack", ".idx"} {
		if err := os.Remove(strings.TrimSuffix(pack, ".pack") + ext); err != nil {
			t.Fatal(err)
		}
	}
	other := packedBlob(t, r)
	r.Check(ctx)
	data, _ := os.ReadFile(filepath.Join(r.Path(), VerifiedPacksFile))
	if strings.Contains(string(data), filepath.Base(pack)) || !strings.Contains(string(data), filepath.Base(other)) {
		t.Errorf("%s after %s was removed and %s added:\n%s", VerifiedPacksFile, filepath.Base(pack), filepath.Base(other), data)
	}
}

// TestCheckWalksARefAgainOnlyWhenItOrItsPacksChanged: a ref whose history
// the last check found whole in packs is not walked again while it names
// the same commit and those packs are here and sound; once a pack is
// deleted, the walk finds what the ref lost.
func TestCheckWalksARefAgainOnlyWhenItOrItsPacksChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _ := bareRepo(t)
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", r.Path()}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	const ref = "refs/planq/sessions/lineage"
	commit := func(content string, parents ...string) string {
		blob := git(content, "hash-object", "-w", "--stdin")
		tree := git("100644 blob "+blob+"\tsegment.jsonl\n", "mktree")
		args := []string{"commit-tree", tree, "-m", content}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		return git("", args...)
	}
	first := commit("first lines\n")
	git("", "update-ref", ref, first)
	git("", "repack", "-a", "-d", "-q")
	git("", "prune-packed")

	full := r.Check(ctx)
	if len(full.Problems) > 0 || !full.Complete || full.Objects < 3 {
		t.Fatalf("first check: %+v", full)
	}
	again := r.Check(ctx)
	if len(again.Problems) > 0 || !again.Complete || again.Objects != full.Objects-3 {
		t.Fatalf("second check: %d objects checked, problems %v; want the %d of the ref's whole, packed history skipped", again.Objects, again.Problems, 3)
	}

	// The ref moves on to a commit in loose objects: walked again (and
	// again, until its objects are packed).
	next := commit("more lines\n", first)
	git("", "update-ref", ref, next)
	for i := range 2 {
		if res := r.Check(ctx); len(res.Problems) > 0 || res.Objects < 6 {
			t.Fatalf("check %d after the ref moved: %d objects checked, problems %v; want its history walked", i, res.Objects, res.Problems)
		}
	}

	// Its pack deleted: walked again, and the loss found.
	git("", "repack", "-a", "-d", "-q")
	git("", "prune-packed")
	r.Check(ctx)
	packs, _ := filepath.Glob(filepath.Join(r.Path(), "objects", "pack", "pack-*"))
	for _, p := range packs {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	res := r.Check(ctx)
	var lost []string
	for _, p := range res.Problems {
		if p.Kind == ProblemMissing && p.Ref == ref {
			lost = append(lost, p.Detail)
		}
	}
	if len(lost) == 0 {
		t.Fatalf("check after the pack was deleted: %+v; want the objects %s reaches missing", res.Problems, ref)
	}
}
