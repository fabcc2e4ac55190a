package transcript

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// vaultNotes lists the notes of the store's vault.
func vaultNotes(t *testing.T, s *Store) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.ProjectDir(), vaultDir))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestSweepKeepsWhatASessionWroteAfterItsLastHook(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "session.jsonl")

	// A turn ends: the hook copies and notes the transcript.
	appendFile(t, src, `{"n":1}`+"\n")
	if _, err := s.Copy(ctx, root, src, CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Note(root, src); err != nil {
		t.Fatal(err)
	}
	// The host crashes mid-turn, after writing more: no hook runs.
	appendFile(t, src, `{"n":2}`+"\n"+`{"n":3,"to`)
	res, err := s.Sweep(ctx, VaultIdle)
	if err != nil || res.Lines != 1 {
		t.Fatalf("sweep after the crash: %+v, %v; want the one complete line", res, err)
	}
	if got := stored(t, s); got != `{"n":1}`+"\n"+`{"n":2}`+"\n" {
		t.Fatalf("store = %q", got)
	}
	// Nothing new: nothing copied; the session is recent, so it stays noted.
	if res, err := s.Sweep(ctx, VaultIdle); err != nil || res.Lines != 0 {
		t.Fatalf("second sweep: %+v, %v", res, err)
	}
	if n := vaultNotes(t, s); len(n) != 1 {
		t.Fatalf("notes after a sweep of a recent session: %v, want one", n)
	}
	// A day later, whole but for its torn line: forgotten.
	now = now.Add(VaultIdle + time.Minute)
	if _, err := s.Sweep(ctx, VaultIdle); err != nil {
		t.Fatal(err)
	}
	if n := vaultNotes(t, s); len(n) != 0 {
		t.Fatalf("notes after the session went idle: %v, want none", n)
	}
	// The host's cleanup deletes its transcript: the store keeps it.
	if err := s.Note(root, src); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sweep(ctx, VaultIdle); err != nil {
		t.Fatal(err)
	}
	if n := vaultNotes(t, s); len(n) != 0 {
		t.Fatalf("notes after the transcript was deleted: %v, want none", n)
	}
	if got := stored(t, s); got != `{"n":1}`+"\n"+`{"n":2}`+"\n" {
		t.Fatalf("store after the host's cleanup = %q", got)
	}
}

func TestNoteFollowsTheSessionToANewLineage(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	const other = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
	src := filepath.Join(t.TempDir(), "session.jsonl")
	appendFile(t, src, `{"n":1}`+"\n")
	for _, r := range []string{root, other} {
		if _, err := s.Copy(ctx, r, src, CopyOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := s.Note(r, src); err != nil {
			t.Fatal(err)
		}
	}
	appendFile(t, src, `{"n":2}`+"\n")
	if _, err := s.Sweep(ctx, VaultIdle); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, s); got != `{"n":1}`+"\n" {
		t.Fatalf("the first lineage got the lines written after the session moved on: %q", got)
	}
	p, _ := s.Path(other)
	if data, _ := os.ReadFile(p); string(data) != `{"n":1}`+"\n"+`{"n":2}`+"\n" {
		t.Fatalf("the session's lineage now = %q", data)
	}
}

func TestSweepRemovesNotesThatAreNotPlanqs(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	dir := filepath.Join(s.ProjectDir(), vaultDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"bad.json":                  "{",
		"0123456789abcdef0123.json": `{"root":"` + root + `","source":"/etc/passwd"}`, // not the key of its source
		"other.json":                `{"root":"abc","source":"/x.jsonl"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := s.Sweep(context.Background(), VaultIdle); err != nil || res.Lines != 0 {
		t.Fatalf("sweep: %+v, %v", res, err)
	}
	if n := vaultNotes(t, s); len(n) != 0 {
		t.Fatalf("notes left: %v", n)
	}
	if _, err := s.Path(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.ProjectDir(), root, TranscriptFile)); !os.IsNotExist(err) {
		t.Fatalf("a bad note made planq copy something: %v", err)
	}
}

func TestBehindListsTranscriptsWithUncopiedLines(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	partial := filepath.Join(dir, "partial.jsonl")
	never := filepath.Join(dir, "never.jsonl")
	theirs := filepath.Join(dir, "theirs.jsonl")
	for _, p := range []string{whole, partial, never, theirs} {
		appendFile(t, p, `{"n":1}`+"\n")
	}
	for _, p := range []string{whole, partial} {
		if _, err := s.Copy(ctx, root, p, CopyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	appendFile(t, partial, `{"n":2}`+"\n")
	if _, err := s.Update(ctx, root, func(sess *Session) error {
		sess.AddAgent(Agent{ID: "s1", Transcript: whole})
		sess.AddAgent(Agent{ID: "s2", Transcript: never})
		sess.AddAgent(Agent{ID: "s3", Transcript: theirs, Origin: "bea-laptop-abc123"}) // a teammate's path
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lags, err := s.Behind()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Lag{}
	for _, l := range lags {
		got[l.Source] = l
	}
	if len(got) != 2 || got[partial].Copied != 8 || got[partial].Size != 16 || got[never].Copied != 0 || got[never].Root != root {
		t.Fatalf("Behind = %+v, want partial (8 of 16 bytes) and never (0 of 8)", lags)
	}
	for _, l := range lags {
		if _, err := s.Copy(ctx, l.Root, l.Source, CopyOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if lags, err := s.Behind(); err != nil || len(lags) != 0 {
		t.Fatalf("Behind after copying = %+v, %v; want none", lags, err)
	}
}
