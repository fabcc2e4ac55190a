package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownLines reads the lineage's own lines from the start.
func ownLines(t *testing.T, s *Store) string {
	t.Helper()
	own, err := s.OwnState(root)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := s.ReadOwn(context.Background(), root, own, 0, func(line []byte, _ int64) bool {
		b.Write(line)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestImportKeepsOwnLinesApartAndNeverTwice(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "session.jsonl")
	appendFile(t, src, "{\"own\":1}\n")
	if _, err := s.Copy(ctx, root, src, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Import(ctx, root, "alice-laptop-abc123", 1, []byte("{\"a\":1}\n{\"a\":2}\n"))
	if err != nil || res.Lines != 2 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	// The same lines again, and one more: only the new one is appended.
	res, err = s.Import(ctx, root, "alice-laptop-abc123", 2, []byte("{\"a\":2}\n{\"a\":3}\n"))
	if err != nil || res.Lines != 1 || res.Skipped != 1 {
		t.Fatalf("second import: %+v, %v; want 1 appended, 1 skipped", res, err)
	}
	appendFile(t, src, "{\"own\":2}\n")
	if _, err := s.Copy(ctx, root, src, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := stored(t, s), "{\"own\":1}\n{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"own\":2}\n"; got != want {
		t.Fatalf("store = %q, want %q", got, want)
	}
	if got, want := ownLines(t, s), "{\"own\":1}\n{\"own\":2}\n"; got != want {
		t.Fatalf("own lines = %q, want %q (the imported ones left out)", got, want)
	}
	if n, _ := s.Imported(root, "alice-laptop-abc123"); n != 3 {
		t.Fatalf("Imported = %d, want 3", n)
	}
	// A gap is refused, and nothing is appended.
	if _, err := s.Import(ctx, root, "alice-laptop-abc123", 9, []byte("{\"a\":9}\n")); !errors.Is(err, ErrGap) {
		t.Fatalf("import past a gap: %v, want ErrGap", err)
	}
	if n, _ := s.Lines(root); n != 5 {
		t.Fatalf("Lines = %d, want 5", n)
	}
}

func TestImportRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"bad origin":    func() error { _, err := s.Import(ctx, root, "../x", 1, []byte("{}\n")); return err },
		"torn line":     func() error { _, err := s.Import(ctx, root, "bob", 1, []byte("{}")); return err },
		"line 0":        func() error { _, err := s.Import(ctx, root, "bob", 0, []byte("{}\n")); return err },
		"bad change id": func() error { _, err := s.Import(ctx, "abc", "bob", 1, []byte("{}\n")); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// An import killed after appending, before copy.json, leaves bytes past the
// committed size: the next write discards them, so nothing is doubled.
func TestImportInterruptedIsDiscarded(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	if _, err := s.Import(ctx, root, "bob", 1, []byte("{\"b\":1}\n")); err != nil {
		t.Fatal(err)
	}
	p, _ := s.Path(root)
	appendFile(t, p, "{\"b\":2}\n") // appended, never committed
	if _, err := s.Import(ctx, root, "bob", 2, []byte("{\"b\":2}\n")); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, s); got != "{\"b\":1}\n{\"b\":2}\n" {
		t.Fatalf("store = %q", got)
	}
}

func TestOriginIsStableAndValid(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a, err := Origin(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidOrigin(a); err != nil {
		t.Fatal(err)
	}
	b, _ := Origin(home)
	if a != b {
		t.Fatalf("origin changed: %q then %q", a, b)
	}
	if err := os.WriteFile(filepath.Join(home, OriginFile), []byte("Bad/Name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Origin(home); err == nil || !strings.Contains(err.Error(), "delete the file") {
		t.Fatalf("bad origin file: %v", err)
	}
}

// A lineage whose store has no copy state (written before there was one,
// or by a copy that stopped before writing it) owns the store's complete
// lines, found from its end: a half-written last line is not yet its own.
func TestOwnStateWithoutCopyStateEndsAtTheLastCompleteLine(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	dir, err := s.Dir(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := strings.Repeat("{\"line\":\"0123456789abcdef0123456789abcdef\"}\n", 5000) // longer than one read from the end
	if err := os.WriteFile(filepath.Join(dir, TranscriptFile), []byte(data+"{\"half\":"), 0o644); err != nil {
		t.Fatal(err)
	}
	own, err := s.OwnState(root)
	if err != nil || own.Size != int64(len(data)) {
		t.Fatalf("OwnState = %+v, %v; want size %d", own, err, len(data))
	}
	if got := ownLines(t, s); got != data {
		t.Fatalf("own lines: %d bytes, want %d", len(got), len(data))
	}
}
