package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/gemini"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// viaGemini runs the core on a Gemini CLI hook input for event.
func viaGemini(t *testing.T, r *Runner, repo, event string, input map[string]any) session.Reply {
	t.Helper()
	input["cwd"] = repo
	input["hook_event_name"] = gemini.EventName(event)
	data, _ := json.Marshal(input)
	ev, err := gemini.Protocol{}.Read(event, data, func(k string) string {
		if k == "GEMINI_PROJECT_DIR" {
			return repo
		}
		return os.Getenv(k)
	})
	if err != nil {
		t.Fatalf("%s: %v", event, err)
	}
	rep, err := r.Handle(context.Background(), ev)
	if err != nil {
		t.Fatalf("%s: %v", event, err)
	}
	return rep
}

// The same core serves Gemini CLI: its context names mcp_planq_<tool>,
// write_file's path is recorded, the nudge names mcp_planq_jj_describe and
// respects stop_hook_active, and PreCompress, which Gemini CLI fires before
// every model request, keeps the transcript without ever copying a line
// twice and without logging compactions that did not happen.
func TestTheCoreSpeaksGemini(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	r := &Runner{}
	ctx := context.Background()
	const sid = "7893f873-16ab-488e-b693-b7f027e261e6"
	src := filepath.Join(t.TempDir(), "session-2026-11-25T08-30-7893f873.jsonl")
	captured, err := os.ReadFile(filepath.Join("gemini", "testdata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(captured, []byte("\n"))
	half := len(lines) / 2
	if err := os.WriteFile(src, bytes.Join(lines[:half], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	base := func(m map[string]any) map[string]any {
		m["session_id"], m["transcript_path"] = sid, src
		return m
	}

	rep := viaGemini(t, r, repo, session.EventSessionStart, base(map[string]any{"source": "startup"}))
	if !strings.Contains(rep.Context, "call mcp_planq_jj_init") || strings.Contains(rep.Context, "mcp__planq__") {
		t.Fatalf("session-start context names the wrong tools:\n%s", rep.Context)
	}
	// PreCompress before the change is declared: nothing to keep it under yet.
	viaGemini(t, r, repo, session.EventPreCompact, base(map[string]any{"trigger": "auto"}))

	if _, err := jj.Declare(ctx, jj.New(repo), "Add a greeting file", ""); err != nil {
		t.Fatal(err)
	}
	viaGemini(t, r, repo, session.EventPostToolUse, base(map[string]any{"tool_name": "mcp_planq_jj_init", "tool_input": map[string]string{"description": "Add a greeting file"},
		"mcp_context": map[string]string{"server_name": "planq", "tool_name": "jj_init"}, "tool_response": map[string]any{"llmContent": "ok"}}))
	testenv.WriteFile(t, repo, "hello.txt", "hello\n")
	viaGemini(t, r, repo, session.EventPostToolUse, base(map[string]any{"tool_name": "write_file", "tool_input": map[string]string{"file_path": filepath.Join(repo, "hello.txt"), "content": "hello\n"},
		"tool_response": map[string]any{"llmContent": "ok"}}))
	s, err := session.Open(session.Env{}, session.Event{ProjectDir: repo})
	if err != nil {
		t.Fatal(err)
	}
	root, err := s.TS.RootOfSession(sid)
	if err != nil {
		t.Fatal(err)
	}
	if sess, _ := s.TS.Load(root); strings.Join(sess.Files, ",") != "hello.txt" {
		t.Fatalf("files %v, want hello.txt", sess.Files)
	}

	// PreCompress three times on the same transcript, then once more after
	// it grew: the store holds each source line exactly once.
	stored := func() string {
		p, err := s.TS.Path(root)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		return string(data)
	}
	for range 3 {
		viaGemini(t, r, repo, session.EventPreCompact, base(map[string]any{"trigger": "auto"}))
	}
	if got := stored(); got != string(bytes.Join(lines[:half], nil)) {
		t.Fatalf("after three PreCompress the store holds %d bytes, want the %d of the transcript once", len(got), len(bytes.Join(lines[:half], nil)))
	}
	if err := os.WriteFile(src, captured, 0o644); err != nil {
		t.Fatal(err)
	}
	viaGemini(t, r, repo, session.EventPreCompact, base(map[string]any{"trigger": "auto"}))
	viaGemini(t, r, repo, session.EventPreCompact, base(map[string]any{"trigger": "auto"}))
	if got := stored(); got != string(captured) {
		t.Fatalf("after the transcript grew the store holds %d bytes, want the transcript's %d once", len(got), len(captured))
	}
	if n, _ := s.TS.Lines(root); n != int64(bytes.Count(captured, []byte("\n"))) {
		t.Fatalf("store lines %d", n)
	}
	// No compaction was logged: Gemini CLI cannot say whether it compacted.
	st, err := r.open(session.Event{ProjectDir: repo})
	if err != nil {
		t.Fatal(err)
	}
	entries, _, err := st.state.LogEntries(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Body, "compacted") {
			t.Fatalf("PreCompress logged a compaction: %q", e.Body)
		}
	}

	// The turn ends with a moved diff: the nudge, naming
	// mcp_planq_jj_describe; the retry's AfterAgent (stop_hook_active) is
	// never nudged again.
	rep = viaGemini(t, r, repo, session.EventStop, base(map[string]any{"prompt": "do it", "prompt_response": "Done.", "stop_hook_active": false}))
	if !strings.Contains(rep.Nudge, "call mcp_planq_jj_describe") {
		t.Fatalf("stop nudge = %q, want it to name mcp_planq_jj_describe", rep.Nudge)
	}
	testenv.WriteFile(t, repo, "hello.txt", "hello again\n")
	if rep = viaGemini(t, r, repo, session.EventStop, base(map[string]any{"prompt": "do it", "prompt_response": "Done.", "stop_hook_active": true})); rep.Nudge != "" {
		t.Fatalf("nudged with stop_hook_active: %q", rep.Nudge)
	}

	// The stored transcript reads back through query_ancestor's renderer.
	res, err := s.TS.SearchRoot(ctx, root, "Replace.", 0, transcript.WithRender(transcript.Render))
	if err != nil || len(res.Lines) == 0 || !strings.Contains(res.Lines[len(res.Lines)-1].Text, "assistant calls replace") {
		t.Fatalf("search = %+v, %v", res, err)
	}
}
