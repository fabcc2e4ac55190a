package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const root = "qpvuntsmqpvuntsmqpvuntsmqpvuntsm"

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := New(t.TempDir(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func appendFile(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func stored(t *testing.T, s *Store) string {
	t.Helper()
	p, _ := s.Path(root)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCopyIsIncrementalAndWaitsForTornLines(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "session.jsonl")

	// A missing source copies nothing and is not an error.
	if res, err := s.Copy(ctx, root, src, CopyOptions{}); err != nil || res.Lines != 0 {
		t.Fatalf("missing source: %+v, %v", res, err)
	}
	appendFile(t, src, `{"n":1}`+"\n"+`{"n":2}`+"\n"+`{"n":3,"torn`)
	res, err := s.Copy(ctx, root, src, CopyOptions{})
	if err != nil || res.Lines != 2 {
		t.Fatalf("first copy: %+v, %v; want 2 lines", res, err)
	}
	if got := stored(t, s); got != `{"n":1}`+"\n"+`{"n":2}`+"\n" {
		t.Fatalf("store after first copy = %q, want only the complete lines", got)
	}
	// Nothing new: nothing copied, never twice.
	if res, _ := s.Copy(ctx, root, src, CopyOptions{}); res.Lines != 0 {
		t.Fatalf("second copy copied %d lines, want 0", res.Lines)
	}
	appendFile(t, src, `":true}`+"\n"+`{"n":4}`+"\n")
	if res, _ := s.Copy(ctx, root, src, CopyOptions{}); res.Lines != 2 {
		t.Fatalf("third copy copied %d lines, want 2", res.Lines)
	}
	want := `{"n":1}` + "\n" + `{"n":2}` + "\n" + `{"n":3,"torn":true}` + "\n" + `{"n":4}` + "\n"
	if got := stored(t, s); got != want {
		t.Fatalf("store = %q, want %q", got, want)
	}
}

func TestCopyAppendsSeveralSourcesToOneLineage(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	appendFile(t, a, "a1\n")
	appendFile(t, b, "b1\nb2\n")
	for _, src := range []string{a, b, a, b} {
		if _, err := s.Copy(ctx, root, src, CopyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	appendFile(t, a, "a2\n")
	s.Copy(ctx, root, a, CopyOptions{})
	if got := stored(t, s); got != "a1\nb1\nb2\na2\n" {
		t.Fatalf("store = %q", got)
	}
}

func TestCopyRepairsAnInterruptedWrite(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "s.jsonl")
	appendFile(t, src, "one\ntwo\n")
	s.Copy(ctx, root, src, CopyOptions{})
	// A crash after appending but before the offsets were saved leaves
	// uncommitted bytes (here a torn half line) at the end of the store.
	p, _ := s.Path(root)
	appendFile(t, p, "thr")
	appendFile(t, src, "three\n")
	if _, err := s.Copy(ctx, root, src, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, s); got != "one\ntwo\nthree\n" {
		t.Fatalf("store = %q, want the torn bytes replaced, nothing duplicated", got)
	}
	n, err := CountLines(p)
	if err != nil || n != 3 {
		t.Fatalf("CountLines = %d, %v", n, err)
	}
}

func TestCopyHonoursTheByteCap(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "s.jsonl")
	var want strings.Builder
	for i := range 100 {
		fmt.Fprintf(&want, "line %03d\n", i)
	}
	appendFile(t, src, want.String())
	calls := 0
	for {
		res, err := s.Copy(ctx, root, src, CopyOptions{MaxBytes: 100})
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if !res.Pending && res.Lines == 0 {
			break
		}
		if calls > 200 {
			t.Fatal("copy never finished")
		}
	}
	if calls < 5 {
		t.Fatalf("copied 900 bytes in %d calls with a 100-byte cap", calls)
	}
	if got := stored(t, s); got != want.String() {
		t.Fatalf("store differs from source after capped copies")
	}
}

func TestConcurrentCopiesNeverDuplicate(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "s.jsonl")
	var want strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&want, `{"i":%d}`+"\n", i)
	}
	appendFile(t, src, want.String())
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s2, _ := New(s.Home, s.Project) // as another process would
			if _, err := s2.Copy(ctx, root, src, CopyOptions{MaxBytes: 1000}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for {
		res, err := s.Copy(ctx, root, src, CopyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Lines == 0 {
			break
		}
	}
	if got := stored(t, s); got != want.String() {
		t.Fatalf("store has %d bytes, want %d (lines lost or duplicated)", len(got), want.Len())
	}
}

func TestRejectsUnsafeNames(t *testing.T) {
	t.Parallel()
	if _, err := New(t.TempDir(), "../etc"); err == nil {
		t.Fatal("New accepted project ../etc")
	}
	s := newStore(t)
	for _, bad := range []string{"", "../x", "ABC", "a/b", strings.Repeat("k", 65)} {
		if _, err := s.Copy(context.Background(), bad, "/dev/null", CopyOptions{}); err == nil {
			t.Errorf("Copy accepted root %q", bad)
		}
	}
	if _, err := s.RootOfSession("../../x"); err == nil {
		t.Error("RootOfSession accepted ../../x")
	}
}

// A host that writes the rest of a session's transcript after its last hook
// (Copilot CLI, as it exits) loses nothing: the next hook of the lineage
// catches up every source that grew, and leaves shrunk or gone ones alone.
func TestCatchUpCopiesWhatEarlierSourcesGained(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	dir := t.TempDir()
	first, second, gone := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl"), filepath.Join(dir, "gone.jsonl")

	// Nothing copied yet: nothing to catch up.
	if res, err := s.CatchUp(ctx, root, CopyOptions{}); err != nil || res.Lines != 0 {
		t.Fatalf("fresh lineage: %+v, %v", res, err)
	}
	appendFile(t, first, "f1\n")
	appendFile(t, second, "s1\ns2\n")
	appendFile(t, gone, "g1\n")
	for _, src := range []string{first, second, gone} {
		if _, err := s.Copy(ctx, root, src, CopyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// After its last hook, the first session writes two more lines; the
	// second is rewritten shorter (a replaced file); the third is deleted.
	appendFile(t, first, "f2\nf3\n")
	if err := os.WriteFile(second, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	res, err := s.CatchUp(ctx, root, CopyOptions{})
	if err != nil || res.Lines != 2 {
		t.Fatalf("catch up: %+v, %v; want the first session's 2 new lines", res, err)
	}
	if got, want := stored(t, s), "f1\ns1\ns2\ng1\nf2\nf3\n"; got != want {
		t.Fatalf("stored %q, want %q", got, want)
	}
	// Again: nothing new.
	if res, err := s.CatchUp(ctx, root, CopyOptions{}); err != nil || res.Lines != 0 {
		t.Fatalf("second catch up: %+v, %v; want nothing", res, err)
	}
}
