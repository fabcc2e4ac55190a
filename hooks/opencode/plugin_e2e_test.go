package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/transcript"
)

// updateTestdata, when set, makes the end-to-end tests save the messages
// OpenCode gave the stop hook as testdata for the transcript tests.
const updateTestdata = "PLANQ_OPENCODE_UPDATE_TESTDATA"

// installPlugin writes the rendered plugin into dir/.opencode/plugin.
func installPlugin(t *testing.T, dir, planq, hook string) {
	t.Helper()
	js, err := Render(planq, hook)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ".opencode", PluginFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, js, 0o644); err != nil {
		t.Fatal(err)
	}
}

func write(path, content string) fakemodel.ToolUse {
	return fakemodel.ToolUse{Name: "write", Input: map[string]any{"filePath": path, "content": content}}
}

// payloads returns the stub's calls of event, read as planq reads them.
func payloads(t *testing.T, st *stub, event string) []Payload {
	t.Helper()
	var out []Payload
	for _, c := range st.calls(t, event) {
		p, err := ReadPayload(bytes.NewReader(c.Stdin))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if err := p.Check(event); err != nil {
			t.Errorf("%s: %v", c, err)
		}
		out = append(out, p)
	}
	return out
}

// saveTestdata saves the messages of the last stop as testdata/name.
func saveTestdata(t *testing.T, stops []Payload, name string) {
	t.Helper()
	if os.Getenv(updateTestdata) == "" || len(stops) == 0 {
		return
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, stops[len(stops)-1].Messages, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "transcript", "testdata", "opencode-"+name), append(buf.Bytes(), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOpenCodeRunEndToEnd runs the real OpenCode headless (`opencode run`)
// with the real plugin, the fake model and a stub hook: a denied write does
// not land and the model reads the reason verbatim, a failing hook blocks,
// allowed write/edit/bash land, session-start context reaches every system
// prompt but the title request's, the stop hook gets the messages; then
// `--session` continues the session, which starts as a resume.
func TestOpenCodeRunEndToEnd(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureOpenCode(t)
	const (
		reason         = "planq: no change is declared yet. Call planq_jj_init with one line saying what you are about to do."
		warning        = "PLANQ-WARNING: the change has no description"
		sessionContext = "PLANQ-CONTEXT: you are in change xyz"
	)
	dir, home := t.TempDir(), t.TempDir()
	st := newStub(t,
		stubRule{Event: "pre-tool-use", Match: "denied.txt", Reply: `{"decision":"deny","reason":"` + reason + `"}`},
		stubRule{Event: "pre-tool-use", Match: "broken.txt", Exit: 3, Stderr: "planq: the gate crashed"},
		stubRule{Event: "pre-tool-use", Match: "warned.txt", Reply: `{"decision":"allow","warning":"` + warning + `"}`},
		stubRule{Event: "session-start", Reply: `{"context":"` + sessionContext + `"}`},
		stubRule{Event: "stop", Reply: `{"nudge":"PLANQ-NUDGE: describe the change"}`},
	)
	installPlugin(t, dir, st.bin, st.bin)
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{write(filepath.Join(dir, "denied.txt"), "no\n")}},
		fakemodel.Turn{Text: "Again.", Tools: []fakemodel.ToolUse{write(filepath.Join(dir, "broken.txt"), "no\n")}},
		fakemodel.Turn{Text: "Declared.", Tools: []fakemodel.ToolUse{write(filepath.Join(dir, "ok.txt"), "one\n")}},
		fakemodel.Turn{Text: "Editing.", Tools: []fakemodel.ToolUse{{Name: "edit", Input: map[string]any{"filePath": filepath.Join(dir, "ok.txt"), "oldString": "one", "newString": "two"}}}},
		fakemodel.Turn{Text: "Shell.", Tools: []fakemodel.ToolUse{{Name: "bash", Input: map[string]any{"command": "echo hi > b.txt", "description": "write b.txt"}}}},
		fakemodel.Turn{Text: "Warned.", Tools: []fakemodel.ToolUse{write(filepath.Join(dir, "warned.txt"), "w\n")}},
		fakemodel.Turn{Text: "All done."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := testenv.Context(t)
	run := fakemodel.HostRun{Bin: bin, Dir: dir, Home: home, Model: m, Prompt: "add the files", Env: []string{st.env()}}
	res, err := run.OpenCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if unused, extra := m.Remaining(); unused != 0 || extra != 0 {
		t.Fatalf("script: %d turns unused, %d requests past its end\nstdout: %s", unused, extra, res.Stdout)
	}

	for name, want := range map[string]string{"denied.txt": "", "broken.txt": "", "ok.txt": "two\n", "b.txt": "hi\n", "warned.txt": "w\n"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if want == "" && !os.IsNotExist(err) {
			t.Errorf("%s was written (%q, %v); the gate should have blocked it", name, got, err)
		}
		if want != "" && string(got) != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
	loop := m.LoopRequests()
	results := func(i int) string {
		var s []string
		for _, r := range loop[i].ToolResults() {
			s = append(s, r.Text)
		}
		return strings.Join(s, "\n")
	}
	if got := results(1); got != reason {
		t.Errorf("the model read %q after the denied write, want the reason verbatim: %q", got, reason)
	}
	if got := results(2); !strings.HasPrefix(got, gateFailed) || !strings.Contains(got, "the gate crashed") {
		t.Errorf("the model read %q after the failing hook, want %q… naming the hook's error", got, gateFailed)
	}
	if got := results(6); !strings.HasSuffix(got, "\n\n"+warning) {
		t.Errorf("the model read %q after the warned write, want the warning appended", got)
	}
	for i, r := range m.Requests() {
		if has := strings.Contains(r.System(), sessionContext); has != r.Loop {
			t.Errorf("request %d (loop %v) has the session context in its system prompt: %v", i, r.Loop, has)
		}
	}

	var tools []string
	for _, p := range payloads(t, st, EventPreToolUse) {
		tool := GateTool(p.Tool)
		var args map[string]any
		if err := json.Unmarshal(p.Args, &args); err != nil {
			t.Fatal(err)
		}
		if tool.Kind == "" || tool.Kind == gate.KindReadOnly || tool.Kind == gate.KindMCP || args[tool.Field] == nil {
			t.Errorf("pre-tool-use %s: the tool table says %+v, args %s", p.Tool, tool, p.Args)
		}
		if p.SessionID != res.SessionID || p.Directory != dir || p.ParentID != "" {
			t.Errorf("pre-tool-use payload %+v", p)
		}
		tools = append(tools, p.Tool)
	}
	if want := []string{"write", "write", "write", "edit", "bash", "write"}; !slices.Equal(tools, want) {
		t.Errorf("gated tools = %q, want %q", tools, want)
	}
	if post := payloads(t, st, EventPostToolUse); len(post) != 4 {
		t.Errorf("post-tool-use ran %d times, want 4 (not for the blocked calls)", len(post))
	}
	starts := payloads(t, st, EventSessionStart)
	if len(starts) != 1 || starts[0].Source != SourceStartup || starts[0].SessionID != res.SessionID {
		t.Errorf("session-start payloads = %+v, want one startup", starts)
	}
	stops := payloads(t, st, EventStop)
	if len(stops) == 0 {
		t.Fatal("no stop: session.idle did not reach the plugin")
	}
	last := stops[len(stops)-1]
	if !bytes.Contains(last.Messages, []byte(`"All done."`)) || !bytes.Contains(last.Messages, []byte(reason)) {
		t.Errorf("stop messages lack the turn:\n%.2000s", last.Messages)
	}
	if bytes.Contains(last.Messages, []byte("PLANQ-NUDGE")) {
		t.Error("the nudge was sent under opencode run, which exits before anything answers it")
	}
	saveTestdata(t, stops, "messages.json")

	mirror := filepath.Join(t.TempDir(), "mirror", "transcript.jsonl")
	added, err := transcript.AppendOpenCode(mirror, last.Messages)
	if err != nil || added != 8 {
		t.Fatalf("transcript.AppendOpenCode = %d, %v; want 8 messages (the prompt and seven answers)", added, err)
	}
	out, err := transcript.Search(context.Background(), mirror, "planq_jj_init", 0, transcript.WithRender(transcript.Render))
	if err != nil || len(out.Lines) != 1 || !strings.Contains(out.Lines[0].Text, "tool error: "+reason) {
		t.Errorf("the mirror does not render the denial: %+v, %v", out, err)
	}

	// Continue the session with planq (not planq-hook) serving the tool hooks.
	installPlugin(t, dir, st.bin, "")
	m.SetScript(fakemodel.Turn{Text: "Continuing.", Tools: []fakemodel.ToolUse{write(filepath.Join(dir, "second.txt"), "2\n")}}, fakemodel.Turn{Text: "Continued."})
	run.Prompt, run.Args = "go on", []string{"--session", res.SessionID}
	res2, err := run.OpenCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res2.SessionID != res.SessionID {
		t.Errorf("--session %s ran session %s", res.SessionID, res2.SessionID)
	}
	starts = payloads(t, st, EventSessionStart)
	if len(starts) != 2 || starts[1].Source != SourceResume {
		t.Errorf("session-start payloads = %+v, want a resume second", starts)
	}
	calls := st.calls(t, EventPreToolUse)
	if argv := calls[len(calls)-1].Argv; !slices.Equal(argv[1:], []string{"hook", "pre-tool-use", "--host", "opencode"}) {
		t.Errorf("without planq-hook the gate ran %q", argv)
	}
	if _, err := os.Stat(filepath.Join(dir, "second.txt")); err != nil {
		t.Error(err)
	}
	stops = payloads(t, st, EventStop)
	if added, err := transcript.AppendOpenCode(mirror, stops[len(stops)-1].Messages); err != nil || added != 3 {
		t.Errorf("transcript.AppendOpenCode after the second run = %d, %v; want the 3 new messages (a prompt and two answers)", added, err)
	}
}

// TestOpenCodeServeEndToEnd runs `opencode serve`, the server the TUI talks
// to, with the real plugin: a subagent session carries its parent's id and
// is never nudged, the main session's nudge gets a model turn, a compaction
// sends pre-compact (its context reaches the compaction prompt) and then
// session-start "compact", a model whose id has "gpt-" gets apply_patch
// (gated like write), and deleting the session ends it.
func TestOpenCodeServeEndToEnd(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureOpenCode(t)
	dir, home := t.TempDir(), t.TempDir()
	st := newStub(t,
		stubRule{Event: "pre-tool-use", Match: "denied-patch.txt", Reply: `{"decision":"deny","reason":"PLANQ-DENY-PATCH"}`},
		stubRule{Event: "session-start", Match: `"source":"compact"`, Reply: `{"context":"PLANQ-CONTEXT-AFTER-COMPACTION"}`},
		stubRule{Event: "session-start", Reply: `{"context":"PLANQ-CONTEXT"}`},
		stubRule{Event: "pre-compact", Reply: `{"context":"PLANQ-COMPACT-CONTEXT"}`},
		stubRule{Event: "stop", Match: `"parentID":"ses_`, Reply: `{"nudge":"PLANQ-CHILD-NUDGE"}`},
		stubRule{Event: "stop", Match: "main done", Once: true, Reply: `{"nudge":"PLANQ-NUDGE: describe the change"}`},
	)
	installPlugin(t, dir, st.bin, st.bin)
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Delegating.", Tools: []fakemodel.ToolUse{{Name: "task", Input: map[string]any{"description": "sub", "prompt": "write sub.txt", "subagent_type": "general"}}}},
		fakemodel.Turn{Text: "Sub writes.", Tools: []fakemodel.ToolUse{write(filepath.Join(dir, "sub.txt"), "sub\n")}},
		fakemodel.Turn{Text: "sub done"},
		fakemodel.Turn{Text: "main done"},
		fakemodel.Turn{Text: "Described."}, // the answer to the nudge
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	writeUserConfig(t, home, m, "m", "gpt-5-fake")
	s := startServer(t, bin, dir, home, st.env())

	var sess struct {
		ID string `json:"id"`
	}
	s.do(t, "POST", "/session", map[string]any{}, &sess)
	prompt := func(text, model string) {
		s.do(t, "POST", "/session/"+sess.ID+"/message", map[string]any{
			"parts": []any{map[string]any{"type": "text", "text": text}}, "model": map[string]any{"providerID": "fake", "modelID": model}}, nil)
	}
	messages := func(id string) []byte {
		var msgs json.RawMessage
		s.do(t, "GET", "/session/"+id+"/message", nil, &msgs)
		return msgs
	}
	prompt("delegate", "m")
	waitFor(t, "the model's answer to the nudge", func() bool { return bytes.Contains(messages(sess.ID), []byte(`"Described."`)) })
	waitFor(t, "the stop after the nudge's turn", func() bool {
		stops := payloads(t, st, EventStop)
		return len(stops) > 0 && bytes.Contains(stops[len(stops)-1].Messages, []byte(`"Described."`))
	})

	if got, err := os.ReadFile(filepath.Join(dir, "sub.txt")); string(got) != "sub\n" {
		t.Errorf("sub.txt = %q, %v", got, err)
	}
	var child string
	for _, p := range payloads(t, st, EventPreToolUse) {
		if p.Tool == "write" {
			child = p.SessionID
			if p.ParentID != sess.ID {
				t.Errorf("the subagent's write has parentID %q, want %q", p.ParentID, sess.ID)
			}
		}
	}
	if child == "" || child == sess.ID {
		t.Fatalf("no write from a subagent session (child %q)", child)
	}
	parents := map[string]string{}
	for _, p := range payloads(t, st, EventSessionStart) {
		parents[p.SessionID] = p.ParentID
	}
	if want := map[string]string{sess.ID: "", child: sess.ID}; !maps.Equal(parents, want) {
		t.Errorf("session-start parents = %v, want %v", parents, want)
	}
	for _, r := range m.Requests() {
		if strings.Contains(r.Text(), "PLANQ-CHILD-NUDGE") {
			t.Error("the subagent session was nudged")
		}
	}
	if bytes.Contains(messages(child), []byte("PLANQ-CHILD-NUDGE")) {
		t.Error("the subagent session holds the nudge")
	}
	stops := payloads(t, st, EventStop)
	if stops[0].SessionID != child || stops[0].ParentID != sess.ID {
		t.Errorf("first stop = %s/%s, want the subagent's with its parent", stops[0].SessionID, stops[0].ParentID)
	}
	loop := m.LoopRequests()
	if got := loop[len(loop)-1].LastUserText(); !strings.Contains(got, "PLANQ-NUDGE: describe the change") {
		t.Errorf("the last model turn answered %q, want the nudge", got)
	}

	// Compaction, as the TUI's /compact does it.
	s.do(t, "POST", "/session/"+sess.ID+"/summarize", map[string]any{"providerID": "fake", "modelID": "m"}, nil)
	compact := payloads(t, st, EventPreCompact)
	if len(compact) != 1 || compact[0].SessionID != sess.ID || !bytes.Contains(compact[0].Messages, []byte(`"Described."`)) {
		t.Fatalf("pre-compact payloads = %d, want one with the session's messages", len(compact))
	}
	reqs := m.Requests()
	if summary := reqs[len(reqs)-1]; summary.Loop || !strings.HasSuffix(strings.TrimSpace(summary.LastUserText()), "PLANQ-COMPACT-CONTEXT") {
		t.Errorf("the compaction request does not end with the pre-compact context:\n%s", summary.LastUserText())
	}

	// After the compaction, with a gpt- model: apply_patch replaces edit and
	// write, goes through the gate, and the context is asked again.
	patch := func(name string) fakemodel.ToolUse {
		return fakemodel.ToolUse{Name: "apply_patch", Input: map[string]any{"patchText": "*** Begin Patch\n*** Add File: " + name + "\n+patched\n*** End Patch"}}
	}
	m.SetScript(
		fakemodel.Turn{Text: "Patching.", Tools: []fakemodel.ToolUse{patch("denied-patch.txt")}},
		fakemodel.Turn{Text: "Patching again.", Tools: []fakemodel.ToolUse{patch("patched.txt")}},
		fakemodel.Turn{Text: "Patched."},
	)
	prompt("patch it", "gpt-5-fake")
	loop = m.LoopRequests()
	after := loop[len(loop)-3:]
	if names := after[0].ToolNames(); !slices.Contains(names, "apply_patch") || slices.Contains(names, "write") || slices.Contains(names, "edit") {
		t.Errorf("tools offered to gpt-5-fake = %q, want apply_patch instead of write and edit", names)
	}
	if !strings.Contains(after[0].System(), "PLANQ-CONTEXT-AFTER-COMPACTION") {
		t.Error("the first request after the compaction lacks the new session-start context")
	}
	if got := after[1].ToolResults(); len(got) != 1 || got[0].Text != "PLANQ-DENY-PATCH" {
		t.Errorf("tool results after the denied patch = %+v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "denied-patch.txt")); !os.IsNotExist(err) {
		t.Errorf("the denied patch landed: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "patched.txt")); string(got) != "patched\n" {
		t.Errorf("patched.txt = %q, %v", got, err)
	}
	var patches int
	for _, p := range payloads(t, st, EventPreToolUse) {
		if p.Tool == "apply_patch" {
			var args map[string]string
			field := GateTool(p.Tool).Field
			if err := json.Unmarshal(p.Args, &args); err != nil || !strings.HasPrefix(args[field], "*** Begin Patch") {
				t.Errorf("apply_patch args = %s, %v", p.Args, err)
			}
			patches++
		}
	}
	if patches != 2 {
		t.Errorf("the gate saw %d apply_patch calls, want 2", patches)
	}
	stops = payloads(t, st, EventStop)
	saveTestdata(t, stops, "messages-serve.json")

	s.do(t, "DELETE", "/session/"+sess.ID, nil, nil)
	waitFor(t, "session-end of both sessions", func() bool { return len(st.calls(t, EventSessionEnd)) == 2 })
	var ended []string
	for _, p := range payloads(t, st, EventSessionEnd) {
		if p.Reason != "deleted" {
			t.Errorf("session-end reason %q", p.Reason)
		}
		ended = append(ended, p.SessionID)
	}
	if slices.Sort(ended); !slices.Equal(ended, slices.Sorted(slices.Values([]string{sess.ID, child}))) {
		t.Errorf("ended sessions = %q, want %s and %s", ended, sess.ID, child)
	}
}
