package workflow_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/workflow"
)

func TestStartContinueResume(t *testing.T) {
	w := newSessionWorld(t)
	ctx := context.Background()
	o := workflow.Options{Dir: w.repo}
	ts := w.store()

	if _, err := workflow.Start(ctx, o, "  "); err == nil || !strings.Contains(err.Error(), "task is empty") {
		t.Fatalf("empty task: %v", err)
	}
	st, err := workflow.Start(ctx, o, "Add a greeting file")
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
	w.sessionStart(claudeSession)
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	w.jj("describe", "-m", "Add a greeting file\n\nDone:\n- hello.txt (zebra)\n\nKey decisions:\n- none\n\nLeft to do:\n- more\n\nOpen questions:\n- none")

	// continue: a checkpoint in the same lineage whose session gets the handoff.
	next, err := workflow.Continue(ctx, o, "")
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
	second := "22222222-ccbc-4831-9aec-5ab717a5a90e"
	c := w.sessionStart(second)
	if !strings.Contains(c, "a checkpoint of the session lineage rooted at "+jj.ShortID(st.Root)) || !strings.Contains(c, "(the handoff)\nAdd a greeting file\n\nDone:\n- hello.txt (zebra)") {
		t.Fatalf("the continued session's context lacks the handoff:\n%s", c)
	}

	// Move away, then resume the first change: jj edit + its Claude session.
	w.jj("new", "root()", "-m", "unrelated")
	res, err := workflow.Resume(ctx, o, jj.ShortID(st.Root))
	if err != nil {
		t.Fatal(err)
	}
	if res.SessionID != claudeSession || w.current().ChangeID != st.Root {
		t.Fatalf("resume: %+v, @ = %s", res, w.current().ChangeID)
	}
	// The checkpoint resumes its own (second) session.
	res, err = workflow.Resume(ctx, o, next.Change.ChangeID)
	if err != nil || res.SessionID != second || w.current().ChangeID != next.Change.ChangeID {
		t.Fatalf("resume the checkpoint: %+v, %v", res, err)
	}

	// Squashed into its parent: the lineage's root survives, so resume goes there.
	w.jj("squash", "-r", next.Change.ChangeID, "--use-destination-message")
	res, err = workflow.Resume(ctx, o, jj.ShortID(next.Change.ChangeID))
	if err != nil {
		t.Fatal(err)
	}
	if res.Change.ChangeID != st.Root || !strings.Contains(res.Warning, "no longer exists") {
		t.Fatalf("resume of a squashed change: %+v", res)
	}

	// A change without a session says what to do.
	w.jj("new", "root()", "-m", "hand work")
	if _, err := workflow.Resume(ctx, o, "@"); err == nil || !strings.Contains(err.Error(), "recorded no session") {
		t.Fatalf("resume without a session: %v", err)
	}
}

func TestResumeAfterTheRootWasAbandonedIsRefused(t *testing.T) {
	w := newSessionWorld(t)
	ctx := context.Background()
	o := workflow.Options{Dir: w.repo}
	st, err := workflow.Start(ctx, o, "Add a greeting file")
	if err != nil {
		t.Fatal(err)
	}
	w.appendTranscript(`{"n":1}`)
	w.sessionStart(claudeSession)
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	next, err := workflow.Continue(ctx, o, "Step two")
	if err != nil {
		t.Fatal(err)
	}
	w.jj("abandon", st.Root)
	_, err = workflow.Resume(ctx, o, next.Change.ChangeID)
	if !errors.Is(err, workflow.ErrNotResumable) || !strings.Contains(err.Error(), "abandoned") || !strings.Contains(err.Error(), "planq start") {
		t.Fatalf("resume with the root abandoned: %v", err)
	}
	if sess, _ := w.store().Load(st.Root); !sess.NonResumable {
		t.Fatal("the lineage was not marked non-resumable")
	}
	// jj undo brings the root back: resumable again.
	w.jj("undo")
	if _, err := workflow.Resume(ctx, o, st.Root); err != nil {
		t.Fatalf("resume after jj undo: %v", err)
	}
}

// startPushable starts a session lineage in a clone of a remote with main,
// binds a Claude Code session to it and does some work, as a user would
// before pushing.
func startPushable(t *testing.T) (*sessionWorld, workflow.Options, workflow.Started, string) {
	t.Helper()
	w := newSessionWorld(t)
	bare := testenv.RemoteWithMain(t)
	w.repo = testenv.Clone(t, bare)
	o := workflow.Options{Dir: w.repo}
	st, err := workflow.Start(context.Background(), o, "Add a greeting file")
	if err != nil {
		t.Fatal(err)
	}
	w.appendTranscript(`{"type":"user","message":{"role":"user","content":"Add a greeting file"}}`)
	w.sessionStart(claudeSession)
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	w.jj("describe", "-m", "Add a greeting file (hello.txt)")
	return w, o, st, bare
}

// TestResumeAfterPush: once jj_push put the session's root on main it is
// immutable; resume goes on in a new change on top, in the same lineage.
func TestResumeAfterPush(t *testing.T) {
	w, o, st, bare := startPushable(t)
	ctx := context.Background()
	c := jj.New(w.repo)
	plan, err := jj.PlanPush(ctx, c, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jj.Push(ctx, c, plan); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(testenv.Run(t, "", "git", "--git-dir", bare, "log", "-1", "--format=%s", "main")); got != "Add a greeting file (hello.txt)" {
		t.Fatalf("origin's main is %q after the push", got)
	}
	if root, _ := c.Show(ctx, st.Root); !root.Immutable {
		t.Fatalf("the pushed root %s is not immutable", jj.ShortID(st.Root))
	}

	res, err := workflow.Resume(ctx, o, jj.ShortID(st.Root))
	if err != nil {
		t.Fatalf("resume of the pushed root: %v", err)
	}
	cur := w.current()
	if res.SessionID != claudeSession || cur.ChangeID != res.Change.ChangeID || cur.ChangeID == st.Root {
		t.Fatalf("resume: %+v, @ %s; want the recorded session in a new change", res, cur.ChangeID)
	}
	if len(cur.Parents) != 1 || cur.Parents[0] != st.Root || cur.Immutable {
		t.Errorf("@ = %+v; want a mutable change on top of the root", cur)
	}
	if root, ok := jj.SessionRoot(cur.Description); !ok || root != st.Root || !strings.HasPrefix(cur.Description, "Resume: Add a greeting file") {
		t.Errorf("@'s description %q does not continue the lineage of %s", cur.Description, jj.ShortID(st.Root))
	}
	if n := strings.Join(res.Notes, " "); !strings.Contains(n, "immutable") || !strings.Contains(n, jj.ShortID(cur.ChangeID)) {
		t.Errorf("notes = %q; want them to say why and where", n)
	}
	if sess, _ := w.store().Load(st.Root); !slices.Contains(sess.Changes, cur.ChangeID) {
		t.Errorf("the lineage does not record %s: %v", jj.ShortID(cur.ChangeID), sess.Changes)
	}
	// The gate is open there: the change is declared.
	if !cur.Declared() {
		t.Error("the resumed change is not declared")
	}
	// Resuming again stays in that change rather than stacking another.
	again, err := workflow.Resume(ctx, o, jj.ShortID(st.Root))
	if err != nil || again.Change.ChangeID != cur.ChangeID {
		t.Errorf("second resume: %+v, %v; want %s again", again.Change, err, jj.ShortID(cur.ChangeID))
	}
}

// TestResumeAfterTheRootWasRebased: a rebase keeps the change id, so resume
// finds the root on its new parent and works in it.
func TestResumeAfterTheRootWasRebased(t *testing.T) {
	w, o, st, bare := startPushable(t)
	ctx := context.Background()
	newer := testenv.PushCommit(t, bare, "CHANGES.md", "newer\n", "Newer main")
	w.jj("git", "fetch")
	w.jj("rebase", "-s", st.Root, "-d", "main@origin")
	w.jj("new", "root()", "-m", "elsewhere")

	res, err := workflow.Resume(ctx, o, jj.ShortID(st.Root))
	if err != nil {
		t.Fatalf("resume of the rebased root: %v", err)
	}
	cur := w.current()
	parent, _ := jj.New(w.repo).Show(ctx, "@-")
	if cur.ChangeID != st.Root || parent.CommitID != newer || res.SessionID != claudeSession || len(res.Notes) != 0 {
		t.Errorf("resume: %+v; @ %s on %s, want the root itself on %s", res, jj.ShortID(cur.ChangeID), parent.CommitID, newer)
	}
	if b, err := os.ReadFile(filepath.Join(w.repo, "hello.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("hello.txt = %q, %v", b, err)
	}

	// Rebased, then pushed: resume goes on on top of the pushed commit.
	c := jj.New(w.repo)
	plan, err := jj.PlanPush(ctx, c, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jj.Push(ctx, c, plan); err != nil {
		t.Fatal(err)
	}
	res, err = workflow.Resume(ctx, o, jj.ShortID(st.Root))
	if err != nil {
		t.Fatalf("resume of the rebased, pushed root: %v", err)
	}
	cur = w.current()
	if root, ok := jj.SessionRoot(cur.Description); !ok || root != st.Root || len(cur.Parents) != 1 || cur.Parents[0] != st.Root {
		t.Errorf("@ = %+v; want a new change of the lineage on the pushed root", cur)
	}
}

// planq start, continue and resume need no state repo unless a
// teammate's lineage must be fetched: an agent name the state repo refuses
// (PLANQ_AGENT) does not stop them.
func TestWorkflowNeedsNoStateRepo(t *testing.T) {
	w := newSessionWorld(t)
	ctx := context.Background()
	getenv := func(k string) string {
		if k == "PLANQ_AGENT" {
			return "-not-an-agent"
		}
		return os.Getenv(k)
	}
	o := workflow.Options{Dir: w.repo, Getenv: getenv}
	st, err := workflow.Start(ctx, o, "Add a greeting file")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.Continue(ctx, o, ""); err != nil {
		t.Fatal(err)
	}
	// No agent session recorded: resume says so, not that the agent name is bad.
	if _, err := workflow.Resume(ctx, o, st.Root); err == nil || !strings.Contains(err.Error(), "no agent session was recorded") {
		t.Fatalf("resume: %v", err)
	}
}
