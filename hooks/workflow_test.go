package hooks

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

func TestStartContinueResume(t *testing.T) {
	w := newHookWorld(t)
	ctx := context.Background()
	o := WorkflowOptions{Dir: w.repo}
	ts := w.store()

	if _, err := Start(ctx, o, "  "); err == nil || !strings.Contains(err.Error(), "task is empty") {
		t.Fatalf("empty task: %v", err)
	}
	st, err := Start(ctx, o, "Add a greeting file")
	if err != nil {
		t.Fatal(err)
	}
	cur := w.current()
	if cur.ChangeID != st.Change.ChangeID || strings.TrimSpace(cur.Description) != "Add a greeting file" || st.Root != cur.ChangeID {
		t.Fatalf("start: @ = %+v, started %+v", cur, st)
	}
	sess, err := ts.Load(st.Root)
	if err != nil || sess.Task != "Add a greeting file" {
		t.Fatalf("lineage after start: %+v, %v", sess, err)
	}
	// The agent's session starts there (its hooks bind it) and works.
	w.appendTranscript(`{"type":"user","message":{"role":"user","content":"Add a greeting file"}}`)
	contextOf(t, w.run((*Runner).SessionStart, "SessionStart-startup"))
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	w.jj("describe", "-m", "Add a greeting file\n\nDone:\n- hello.txt (zebra)\n\nKey decisions:\n- none\n\nLeft to do:\n- more\n\nOpen questions:\n- none")

	// continue: a checkpoint in the same lineage whose session gets the handoff.
	next, err := Continue(ctx, o, "")
	if err != nil {
		t.Fatal(err)
	}
	cur = w.current()
	if cur.ChangeID != next.Change.ChangeID || next.Root != st.Root || !strings.HasPrefix(cur.Description, "Continue: Add a greeting file") {
		t.Fatalf("continue: @ = %+v, started %+v", cur, next)
	}
	if root, ok := jj.SessionRoot(cur.Description); !ok || root != st.Root {
		t.Fatalf("the checkpoint does not name its lineage: %q", cur.Description)
	}
	ev := w.event("SessionStart-startup")
	ev.SessionID = "22222222-ccbc-4831-9aec-5ab717a5a90e"
	out, err := w.r.SessionStart(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	c := contextOf(t, out)
	if !strings.Contains(c, "a checkpoint of the session lineage rooted at "+short(st.Root)) || !strings.Contains(c, "(the handoff)\nAdd a greeting file\n\nDone:\n- hello.txt (zebra)") {
		t.Fatalf("the continued session's context lacks the handoff:\n%s", c)
	}

	// Move away, then resume the first change: jj edit + its Claude session.
	w.jj("new", "root()", "-m", "unrelated")
	res, err := Resume(ctx, o, short(st.Root))
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID != "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e" || w.current().ChangeID != st.Root {
		t.Fatalf("resume: %+v, @ = %s", res, w.current().ChangeID)
	}
	// The checkpoint resumes its own (second) session.
	res, err = Resume(ctx, o, next.Change.ChangeID)
	if err != nil || res.SessionID != ev.SessionID || w.current().ChangeID != next.Change.ChangeID {
		t.Fatalf("resume the checkpoint: %+v, %v", res, err)
	}

	// Squashed into its parent: the lineage's root survives, so resume goes there.
	w.jj("squash", "-r", next.Change.ChangeID, "--use-destination-message")
	res, err = Resume(ctx, o, short(next.Change.ChangeID))
	if err != nil {
		t.Fatal(err)
	}
	if res.Change.ChangeID != st.Root || !strings.Contains(res.Warning, "no longer exists") {
		t.Fatalf("resume of a squashed change: %+v", res)
	}

	// A change without a session says what to do.
	w.jj("new", "root()", "-m", "hand work")
	if _, err := Resume(ctx, o, "@"); err == nil || !strings.Contains(err.Error(), "recorded no session") {
		t.Fatalf("resume without a session: %v", err)
	}
}

func TestResumeAfterTheRootWasAbandonedIsRefused(t *testing.T) {
	w := newHookWorld(t)
	ctx := context.Background()
	o := WorkflowOptions{Dir: w.repo}
	st, err := Start(ctx, o, "Add a greeting file")
	if err != nil {
		t.Fatal(err)
	}
	w.appendTranscript(`{"n":1}`)
	contextOf(t, w.run((*Runner).SessionStart, "SessionStart-startup"))
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	next, err := Continue(ctx, o, "Step two")
	if err != nil {
		t.Fatal(err)
	}
	w.jj("abandon", st.Root)
	_, err = Resume(ctx, o, next.Change.ChangeID)
	if !errors.Is(err, ErrNotResumable) || !strings.Contains(err.Error(), "abandoned") || !strings.Contains(err.Error(), "planq start") {
		t.Fatalf("resume with the root abandoned: %v", err)
	}
	if sess, _ := w.store().Load(st.Root); !sess.NonResumable {
		t.Fatal("the lineage was not marked non-resumable")
	}
	// jj undo brings the root back: resumable again.
	w.jj("undo")
	if _, err := Resume(ctx, o, st.Root); err != nil {
		t.Fatalf("resume after jj undo: %v", err)
	}
}
