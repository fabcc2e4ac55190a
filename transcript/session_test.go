package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSessionRecordAndIndexes(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := context.Background()
	child := "zzzzyyyyxxxxwwwwzzzzyyyyxxxxwwww"
	_, err := s.Update(ctx, root, func(sess *Session) error {
		sess.Task = "Add rate limiting"
		sess.AddAgent(Agent{ID: "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e", Change: root, Started: time.Now()})
		sess.AddChange(child)
		sess.AddChange(child)
		sess.AddFiles("a.go", "b.go", "a.go")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got.Task != "Add rate limiting" || len(got.Changes) != 2 || got.Changes[0] != root || len(got.Files) != 2 {
		t.Fatalf("session = %+v", got)
	}
	if r, err := s.RootOfSession("1a4e73b2-ccbc-4831-9aec-5ab717a5a90e"); err != nil || r != root {
		t.Fatalf("RootOfSession = %q, %v", r, err)
	}
	if r, err := s.RootOfChange(child); err != nil || r != root {
		t.Fatalf("RootOfChange(child) = %q, %v", r, err)
	}
	if _, err := s.RootOfChange("kkkkkkkk"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("RootOfChange(unknown) = %v, want ErrNoSession", err)
	}
	// An aborted update saves nothing.
	boom := errors.New("boom")
	if _, err := s.Update(ctx, root, func(sess *Session) error { sess.Task = "changed"; return boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if got, _ := s.Load(root); got.Task != "Add rate limiting" {
		t.Fatalf("aborted update was saved: task %q", got.Task)
	}
	// Invalid ids are refused before anything is written.
	if _, err := s.Update(ctx, root, func(sess *Session) error { sess.AddChange("../x"); return nil }); err == nil {
		t.Fatal("Update accepted change ../x")
	}
}

// An update that could not write its indexes (a process killed, a full
// disk) leaves the record as it was, so the next update that adds the
// same change writes both: the change is never recorded without the index
// that finds its lineage.
func TestUpdateNeverRecordsAChangeWithoutItsIndex(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	child := "zzzzyyyyxxxxwwwwzzzzyyyyxxxxwwww"
	if _, err := s.Update(ctx, root, func(sess *Session) error { sess.Task = "t"; return nil }); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(s.ProjectDir(), byChangeDir, child)
	if err := os.MkdirAll(index, 0o755); err != nil { // in the way of the index file
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, root, func(sess *Session) error { sess.AddChange(child); return nil }); err == nil {
		t.Fatal("Update wrote no index and said nothing")
	}
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, root, func(sess *Session) error { sess.AddChange(child); return nil }); err != nil {
		t.Fatal(err)
	}
	if r, err := s.RootOfChange(child); err != nil || r != root {
		t.Fatalf("RootOfChange(child) = %q, %v", r, err)
	}
}
