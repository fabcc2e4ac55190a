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
		line := fmt.Sprintf("%s %d %d %d %d %d\n", name, s.size, s.mtime, s.ctime, s.ino, s.verified)
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
