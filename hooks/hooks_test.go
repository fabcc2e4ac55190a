package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/sessiontest"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// hookWorld is a jj repo, a PLANQ_HOME and a Claude Code transcript file,
// with the recorded hook events of testdata/events pointed at them.
type hookWorld struct {
	t          *testing.T
	repo       string
	transcript string
	r          *Runner
}

func newHookWorld(t *testing.T) *hookWorld {
	t.Helper()
	testenv.Isolate(t)
	w := &hookWorld{t: t, repo: testenv.JJRepo(t)}
	w.transcript = filepath.Join(t.TempDir(), "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e.jsonl")
	w.r = &Runner{}
	return w
}

// event loads a recorded hook event.
func (w *hookWorld) event(name string) Input {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "events", name+".json"))
	if err != nil {
		w.t.Fatal(err)
	}
	s := strings.ReplaceAll(string(data), "{{REPO}}", w.repo)
	s = strings.ReplaceAll(s, "{{TRANSCRIPT}}", w.transcript)
	ev, err := ReadInput(strings.NewReader(s))
	if err != nil {
		w.t.Fatal(err)
	}
	return ev
}

func (w *hookWorld) jj(args ...string) string {
	w.t.Helper()
	return sessiontest.JJ(w.t, w.repo, args...)
}

func (w *hookWorld) current() jj.Change { w.t.Helper(); return sessiontest.Current(w.t, w.repo) }

func (w *hookWorld) store() *transcript.Store { w.t.Helper(); return sessiontest.Store(w.t, w.repo) }

func (w *hookWorld) appendTranscript(lines ...string) {
	w.t.Helper()
	sessiontest.AppendLines(w.t, w.transcript, lines...)
}

func (w *hookWorld) run(fn func(*Runner, context.Context, Input) (*Response, error), event string) *Response {
	w.t.Helper()
	out, err := fn(w.r, context.Background(), w.event(event))
	if err != nil {
		w.t.Fatalf("%s: %v", event, err)
	}
	return out
}

func contextOf(t *testing.T, out *Response) string {
	t.Helper()
	if out == nil || out.Specific == nil || out.Specific.HookEventName != "SessionStart" {
		t.Fatalf("session-start output = %+v, want hookSpecificOutput for SessionStart", out)
	}
	return out.Specific.AdditionalContext
}

func TestSessionStartOnAnUndeclaredChangeSaysTheGateIsLocked(t *testing.T) {
	w := newHookWorld(t)
	ctxText := contextOf(t, w.run(sessionStart, "SessionStart-startup"))
	enforcement := "shell commands run in an OS sandbox ("
	if e := sandbox.Detect(); !e.Available() {
		enforcement = "(Enforcement: parser-only (" + e.Reason + ").)"
	}
	for _, want := range []string{"Gate: LOCKED", "mcp__planq__jj_init", "(no description yet)", "No state repo yet", enforcement} {
		if !strings.Contains(ctxText, want) {
			t.Errorf("context lacks %q:\n%s", want, ctxText)
		}
	}
	if _, err := w.store().RootOfSession("1a4e73b2-ccbc-4831-9aec-5ab717a5a90e"); err == nil {
		t.Error("an undeclared change started a lineage")
	}
}

// TestSessionStartSaysTheSandboxIsTurnedOff: with gate.sandbox: off (or
// PLANQ_SANDBOX=off) the locked context says the gate is parser-only and
// why, not that shell commands run in the sandbox.
func TestSessionStartSaysTheSandboxIsTurnedOff(t *testing.T) {
	w := newHookWorld(t)
	testenv.WriteFile(t, w.repo, ".planq/config.yaml", "gate:\n  sandbox: off\n")
	want := "(Enforcement: parser-only (the OS sandbox is turned off: gate.sandbox: off in .planq/config.yaml).)"
	if e := sandbox.Detect(); !e.Available() {
		want = "(Enforcement: parser-only (" + e.Reason + ").)"
	}
	ctxText := contextOf(t, w.run(sessionStart, "SessionStart-startup"))
	if !strings.Contains(ctxText, want) || strings.Contains(ctxText, "shell commands run in an OS sandbox") {
		t.Errorf("context lacks %q:\n%s", want, ctxText)
	}
	testenv.WriteFile(t, w.repo, ".planq/config.yaml", "")
	t.Setenv("PLANQ_SANDBOX", "off")
	if e := sandbox.Detect(); e.Available() {
		want = "(Enforcement: parser-only (the OS sandbox is turned off: PLANQ_SANDBOX=off in the hook's environment).)"
	}
	if ctxText := contextOf(t, w.run(sessionStart, "SessionStart-startup")); !strings.Contains(ctxText, want) {
		t.Errorf("context lacks %q:\n%s", want, ctxText)
	}
}

func TestSessionStartGivesTheLivingSummaryHandoffAndDiffFirst(t *testing.T) {
	w := newHookWorld(t)
	w.jj("describe", "-m", "Add rate limiting to API\n\nDone:\n- token bucket\n\nKey decisions:\n- zebra: token bucket\n\nLeft to do:\n- overrides\n\nOpen questions:\n- none")
	testenv.WriteFile(t, w.repo, "bucket.go", "package rl\n")
	w.jj("new", "-m", "Add Redis backend")
	testenv.WriteFile(t, w.repo, "redis.go", "package rl\n")
	w.appendTranscript(`{"type":"user","message":{"role":"user","content":"add redis"}}`)

	ctxText := contextOf(t, w.run(sessionStart, "SessionStart-startup"))
	order := []string{"this session works in jj change", "Gate: unlocked", "## Current change", "Add Redis backend", "not a living summary yet",
		"## Parent change", "zebra: token bucket", "jj diff --stat", "redis.go", "Earlier conversation", "Agent state"}
	pos := 0
	for _, want := range order {
		i := strings.Index(ctxText[pos:], want)
		if i < 0 {
			t.Fatalf("context lacks %q after %q, most important first:\n%s", want, ctxText[:pos], ctxText)
		}
		pos += i + len(want)
	}
	// The session is bound to the declared change, and its transcript copied.
	ts := w.store()
	cur := w.current()
	root, err := ts.RootOfSession("1a4e73b2-ccbc-4831-9aec-5ab717a5a90e")
	if err != nil || root != cur.ChangeID {
		t.Fatalf("session root = %q, %v; want %s", root, err, cur.ChangeID)
	}
	p, _ := ts.Path(root)
	if n, _ := transcript.CountLines(p); n != 1 {
		t.Fatalf("stored transcript has %d lines, want 1", n)
	}
}

func TestSessionStartStaysInBudgetWithoutCuttingLines(t *testing.T) {
	w := newHookWorld(t)
	var desc strings.Builder
	desc.WriteString("Huge task\n\nDone:\n")
	for i := range 400 {
		fmt.Fprintf(&desc, "- item %03d with some words to make the line longer than a few characters\n", i)
	}
	w.jj("describe", "-m", desc.String())
	for i := range 60 {
		testenv.WriteFile(t, w.repo, fmt.Sprintf("dir/file%02d.go", i), strings.Repeat("x\n", i+1))
	}
	st, err := staterepo.Open(staterepo.Options{Dir: w.repo})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if _, err := st.Log(context.Background(), fmt.Sprintf("step %d: %s", i, strings.Repeat("detail ", 80)), changelog.TypeImplement, ""); err != nil {
			t.Fatal(err)
		}
	}
	ctxText := contextOf(t, w.run(sessionStart, "SessionStart-startup"))
	if len(ctxText) > ContextBudget {
		t.Fatalf("context is %d characters, budget %d", len(ctxText), ContextBudget)
	}
	if !strings.Contains(ctxText, "more lines cut to fit") {
		t.Fatalf("an over-long description was not marked as cut:\n%s", ctxText)
	}
	// Every line is whole: an item line, or a line of ours.
	for _, l := range strings.Split(ctxText, "\n") {
		if strings.HasPrefix(l, "- item ") && !strings.HasSuffix(l, "characters") {
			t.Fatalf("line cut in half: %q", l)
		}
	}
}

func TestSessionStartOutsideAJJRepo(t *testing.T) {
	testenv.Isolate(t)
	dir := t.TempDir()
	ev := Input{SessionID: "s1", Cwd: dir, HookEventName: "SessionStart", Source: "startup"}
	out, err := sessionStart(&Runner{}, context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if c := contextOf(t, out); !strings.Contains(c, "not a jj repository") || !strings.Contains(c, "jj git init") {
		t.Fatalf("context = %q", c)
	}
	for _, fn := range []func(*Runner, context.Context, Input) (*Response, error){postToolUse, stop, preCompact, sessionEnd} {
		if out, err := fn(&Runner{}, context.Background(), ev); out != nil || err != nil {
			t.Fatalf("hook outside a jj repo: %+v, %v; want silence", out, err)
		}
	}
}

func TestPostToolUseRecordsTheLineageAndFiles(t *testing.T) {
	w := newHookWorld(t)
	ts := w.store()
	sid := "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e"
	// Before jj_init nothing is bound.
	w.run(postToolUse, "PostToolUse-Write-create")
	if _, err := ts.RootOfSession(sid); err == nil {
		t.Fatal("an edit before jj_init started a lineage")
	}
	// jj_init (as the MCP tool does it) then its PostToolUse.
	if _, err := jj.Declare(context.Background(), jj.New(w.repo), "Add a greeting file", ""); err != nil {
		t.Fatal(err)
	}
	w.run(postToolUse, "PostToolUse-jj_init")
	root := w.current().ChangeID
	if got, err := ts.RootOfSession(sid); err != nil || got != root {
		t.Fatalf("after jj_init the session root is %q, %v; want %s", got, err, root)
	}
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	w.run(postToolUse, "PostToolUse-Write-update")
	// A checkpoint keeps the lineage.
	ch, _, err := jj.Checkpoint(context.Background(), jj.New(w.repo), "Second step")
	if err != nil {
		t.Fatal(err)
	}
	ev := w.event("PostToolUse-jj_init")
	ev.ToolName = "mcp__planq__jj_new"
	if _, err := postToolUse(w.r, context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	sess, err := ts.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sess.Files, ",") != "hello.txt" {
		t.Errorf("files = %v, want [hello.txt]", sess.Files)
	}
	if len(sess.Changes) != 2 || sess.Changes[1] != ch.ChangeID || sess.Task != "Add a greeting file" {
		t.Errorf("session = %+v, want the root and the checkpoint %s", sess, ch.ChangeID)
	}
	if got, err := ts.RootOfChange(ch.ChangeID); err != nil || got != root {
		t.Errorf("the checkpoint's root = %q, %v", got, err)
	}
	// A plain `jj new` through Bash after that is also a checkpoint.
	w.jj("new")
	bash := Input{SessionID: sid, Cwd: w.repo, HookEventName: "PostToolUse", ToolName: "Bash",
		ToolInput: json.RawMessage(`{"command":"cd sub && jj new"}`), ToolResponse: json.RawMessage(`{"stdout":""}`)}
	if _, err := postToolUse(w.r, context.Background(), bash); err != nil {
		t.Fatal(err)
	}
	if sess, _ := ts.Load(root); len(sess.Changes) != 3 {
		t.Errorf("after `jj new` through Bash the lineage has %d changes, want 3", len(sess.Changes))
	}
}

func TestStopAsksForTheSummaryOnceWhenTheDiffMoved(t *testing.T) {
	w := newHookWorld(t)
	ctx := context.Background()
	if _, err := jj.Declare(ctx, jj.New(w.repo), "Add a greeting file", ""); err != nil {
		t.Fatal(err)
	}
	w.run(postToolUse, "PostToolUse-jj_init")

	// Nothing written yet: no reason to ask.
	if out := w.run(stop, "Stop"); out != nil {
		t.Fatalf("stop on an empty change: %+v", out)
	}
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	out := w.run(stop, "Stop")
	if out == nil || out.Decision != "block" {
		t.Fatalf("stop after an edit with a one-line description = %+v, want block", out)
	}
	for _, want := range []string{"mcp__planq__jj_describe", "Add a greeting file\n\nDone:", "Key decisions:", "Left to do:", "Open questions:"} {
		if !strings.Contains(out.Reason, want) {
			t.Errorf("reason lacks %q:\n%s", want, out.Reason)
		}
	}
	// Claude Code then stops again with stop_hook_active: never block twice.
	if out := w.run(stop, "Stop-active"); out != nil {
		t.Fatalf("stop with stop_hook_active blocked again: %+v", out)
	}
	// The next turn's stop, nothing moved: no block.
	if out := w.run(stop, "Stop"); out != nil {
		t.Fatalf("stop with nothing moved blocked: %+v", out)
	}
	// The diff moves again: ask again (the previous stop did not block).
	testenv.WriteFile(t, w.repo, "hello.txt", "hello, world\n")
	if out := w.run(stop, "Stop"); out == nil || out.Decision != "block" {
		t.Fatalf("stop after the diff moved again = %+v, want block", out)
	}
	// Even without stop_hook_active, never twice in a row.
	testenv.WriteFile(t, w.repo, "hello.txt", "hello, again\n")
	if out := w.run(stop, "Stop"); out != nil {
		t.Fatalf("second stop in a row blocked: %+v", out)
	}
	// A description written with jj_describe after the last edit: not moved.
	testenv.WriteFile(t, w.repo, "hello.txt", "hello, more\n")
	w.jj("describe", "-m", "Add a greeting file\n\nstill a plain description")
	w.run(postToolUse, "PostToolUse-jj_describe")
	if out := w.run(stop, "Stop"); out != nil {
		t.Fatalf("stop right after jj_describe blocked: %+v", out)
	}
	// A summary is never asked for again, however the diff moves.
	w.jj("describe", "-m", jj.SummaryTemplate("Add a greeting file"))
	testenv.WriteFile(t, w.repo, "other.txt", "x\n")
	if out := w.run(stop, "Stop"); out != nil {
		t.Fatalf("stop with a summary description blocked: %+v", out)
	}
}

func TestStopWithoutADeclaredChangeStaysQuiet(t *testing.T) {
	w := newHookWorld(t)
	testenv.WriteFile(t, w.repo, "hello.txt", "hello\n")
	if out := w.run(stop, "Stop"); out != nil {
		t.Fatalf("stop in an undeclared session: %+v", out)
	}
}

func TestPreCompactAndSessionEndKeepTheTranscriptAndLog(t *testing.T) {
	w := newHookWorld(t)
	ctx := context.Background()
	if _, err := jj.Declare(ctx, jj.New(w.repo), "Add a greeting file", ""); err != nil {
		t.Fatal(err)
	}
	w.run(postToolUse, "PostToolUse-jj_init")
	w.appendTranscript(`{"n":1}`, `{"n":2}`)
	w.run(preCompact, "PreCompact")
	if c := contextOf(t, w.run(sessionStart, "SessionStart-compact")); !strings.Contains(c, "just compacted") || !strings.Contains(c, "Context compacted (manual)") {
		t.Errorf("session-start after the compaction:\n%s", c)
	}
	w.appendTranscript(`{"n":3}`)
	w.run(sessionEnd, "SessionEnd")

	ts := w.store()
	root := w.current().ChangeID
	p, _ := ts.Path(root)
	data, err := os.ReadFile(p)
	if err != nil || string(data) != "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n" {
		t.Fatalf("stored transcript = %q, %v", data, err)
	}
	sess, _ := ts.Load(root)
	if a, _ := sess.LastAgent(); a.Ended.IsZero() {
		t.Error("session-end did not mark the Claude Code session ended")
	}
	st, _ := staterepo.Open(staterepo.Options{Dir: w.repo})
	entries, _, err := st.LogEntries(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, e := range entries {
		if e.Type == changelog.TypeEnd {
			bodies = append(bodies, e.Body)
		}
	}
	all := strings.Join(bodies, "\n")
	if len(bodies) != 2 || !strings.Contains(all, "Context compacted (manual)") || !strings.Contains(all, "ended (other)") || !strings.Contains(all, "planq resume") {
		t.Fatalf("changelog end entries = %q", bodies)
	}
}
