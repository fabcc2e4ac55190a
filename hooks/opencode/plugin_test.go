package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

func TestRender(t *testing.T) {
	t.Parallel()
	js, err := Render(`/opt/we"ird \ dir/planq`, "/usr/bin/planq-hook\u2028")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`const PLANQ = "/opt/we\"ird \\ dir/planq";`, `const HOOK = "/usr/bin/planq-hook\u2028";`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("rendered plugin lacks %s", want)
		}
	}
	if js, err = Render("/bin/planq", ""); err != nil || !bytes.Contains(js, []byte(`const HOOK = "";`)) {
		t.Errorf("Render without planq-hook: %v\n%s", err, js)
	}
	for _, tt := range []struct{ planq, hook string }{{"planq", ""}, {"", ""}, {"/bin/planq", "planq-hook"}} {
		if _, err := Render(tt.planq, tt.hook); err == nil {
			t.Errorf("Render(%q, %q) took a relative path", tt.planq, tt.hook)
		}
	}
	if n := strings.Count(string(pluginJS), "\n"); n >= 150 {
		t.Errorf("plugin.js has %d lines; keep the shim small", n)
	}
}

// harnessCase is one run of testdata/harness.mjs.
type harnessCase struct {
	Argv2     *string                   `json:"argv2,omitempty"`
	Config    json.RawMessage           `json:"config,omitempty"` // client.config.get's data; null: it fails
	Directory string                    `json:"directory"`
	Sessions  map[string]map[string]any `json:"sessions"`
	Messages  json.RawMessage           `json:"messages,omitempty"`
	Steps     []step                    `json:"steps"`
}

type step struct {
	Hook   string         `json:"hook,omitempty"`
	Input  map[string]any `json:"input,omitempty"`
	Output map[string]any `json:"output,omitempty"`
	Event  map[string]any `json:"event,omitempty"`
	Frozen bool           `json:"frozen,omitempty"` // output.args cannot be changed
}

type harnessResult struct {
	Results []struct {
		Output   map[string]any `json:"output"`
		SameArgs bool           `json:"sameArgs"` // a hook left output.args the object it was given
		Error    *string        `json:"error"`
	} `json:"results"`
	Prompts []struct{ ID, Text string } `json:"prompts"`
	Logs    []string                    `json:"logs"`
}

// runHarness runs the plugin js through the harness under OpenCode's Bun.
func runHarness(t *testing.T, bin string, js []byte, st *stub, c harnessCase) harnessResult {
	t.Helper()
	dir := t.TempDir()
	plugin, casePath := filepath.Join(dir, "planq.js"), filepath.Join(dir, "case.json")
	b, _ := json.Marshal(c)
	if err := os.WriteFile(plugin, js, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(casePath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	harness, err := filepath.Abs(filepath.Join("testdata", "harness.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Context(t)
	cmd := exec.CommandContext(ctx, bin, harness, plugin, casePath)
	cmd.Env = append(isolatedEnv(dir, t.TempDir()), "BUN_BE_BUN=1", st.env())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("harness: %v\n%s\n%s", err, out, stderr.String())
	}
	var res harnessResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("harness output: %v\n%s\n%s", err, out, stderr.String())
	}
	if len(res.Results) != len(c.Steps) {
		t.Fatalf("harness ran %d of %d steps\n%s", len(res.Results), len(c.Steps), stderr.String())
	}
	return res
}

func beforeWrite(session, call, path string) step {
	return step{Hook: "tool.execute.before", Input: map[string]any{"tool": "write", "sessionID": session, "callID": call},
		Output: map[string]any{"args": map[string]any{"filePath": path, "content": "x"}}}
}

const gateFailed = "planq gate: blocked this call because the gate hook failed: "

// TestPluginGate drives tool.execute.before through every kind of gate
// answer; the hook is the test binary acting as a stub.
func TestPluginGate(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureOpenCode(t)
	const reason = "planq: declare your change first: call planq_jj_init with one line"
	tests := []struct {
		name    string
		rule    stubRule
		planq   string // planq's path, default the stub
		timeout bool   // shorten the plugin's timeout
		want    string // the error thrown, or "" for none
		prefix  bool   // want is a prefix
		has     string // …and the error contains this
	}{
		{name: "deny", rule: stubRule{Event: "pre-tool-use", Reply: `{"decision":"deny","reason":"` + reason + `"}`}, want: reason},
		{name: "deny without reason", rule: stubRule{Event: "pre-tool-use", Reply: `{"decision":"deny"}`}, want: "planq gate: denied"},
		{name: "allow", rule: stubRule{Event: "pre-tool-use", Reply: `{"decision":"allow"}`}},
		{name: "empty reply allows", rule: stubRule{Event: "pre-tool-use"}},
		{name: "whitespace reply allows", rule: stubRule{Event: "pre-tool-use", Reply: "\n"}},
		{name: "exit 1", rule: stubRule{Event: "pre-tool-use", Exit: 1, Stderr: "planq: the state repo is locked\n"},
			want: gateFailed + "planq hook pre-tool-use: Command failed", prefix: true, has: "the state repo is locked"},
		{name: "exit 2 with an allow on stdout", rule: stubRule{Event: "pre-tool-use", Exit: 2, Reply: `{"decision":"allow"}`}, want: gateFailed, prefix: true},
		{name: "not JSON", rule: stubRule{Event: "pre-tool-use", Reply: "allow"}, want: gateFailed, prefix: true},
		{name: "not an object", rule: stubRule{Event: "pre-tool-use", Reply: `["allow"]`}, want: gateFailed, prefix: true, has: "not a JSON object"},
		{name: "null", rule: stubRule{Event: "pre-tool-use", Reply: `null`}, want: gateFailed, prefix: true, has: "not a JSON object"},
		{name: "unknown decision", rule: stubRule{Event: "pre-tool-use", Reply: `{"decision":"ask"}`}, want: gateFailed + `unknown decision "ask"`},
		{name: "two objects", rule: stubRule{Event: "pre-tool-use", Reply: `{"decision":"allow"}{"decision":"allow"}`}, want: gateFailed, prefix: true},
		{name: "missing binary", planq: "/nonexistent/planq", want: gateFailed, prefix: true, has: "ENOENT"},
		{name: "timeout", rule: stubRule{Event: "pre-tool-use", Block: true}, timeout: true, want: gateFailed + "planq hook pre-tool-use: timed out", prefix: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStub(t, tt.rule)
			planq := tt.planq
			if planq == "" {
				planq = st.bin
			}
			js, err := Render(planq, "")
			if err != nil {
				t.Fatal(err)
			}
			if tt.timeout {
				js = bytes.Replace(js, []byte("const TIMEOUT_MS = 10000;"), []byte("const TIMEOUT_MS = 300;"), 1)
			}
			res := runHarness(t, bin, js, st, harnessCase{Directory: "/proj", Sessions: map[string]map[string]any{"s1": {}},
				Steps: []step{beforeWrite("s1", "c1", "/proj/a.txt")}})
			got := res.Results[0].Error
			switch {
			case tt.want == "" && got != nil:
				t.Fatalf("the call was blocked: %s", *got)
			case tt.want == "":
			case got == nil:
				t.Fatalf("the call was allowed, want it blocked with %q", tt.want)
			case tt.prefix && !strings.HasPrefix(*got, tt.want), !tt.prefix && *got != tt.want:
				t.Fatalf("error = %q, want %q (prefix %v)", *got, tt.want, tt.prefix)
			case !strings.Contains(*got, tt.has):
				t.Fatalf("error = %q, want it to contain %q", *got, tt.has)
			}
		})
	}
}

// TestPluginRewrite: an allow that carries a command replaces the bash
// call's command in the args object OpenCode passed in (OpenCode runs that
// object: a new one would be ignored, and the original command would run),
// keeping its other arguments; a command for a call without a string
// command, or whose arguments cannot be changed, is refused, never run as
// it was.
func TestPluginRewrite(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureOpenCode(t)
	const sandboxed = `'/opt/planq/bin/planq-hook' sandbox -- 'echo "it'\''s" > x'`
	reply, _ := json.Marshal(map[string]string{"decision": "allow", "command": sandboxed, "warning": "PLANQ-WARNING"})
	st := newStub(t, stubRule{Event: "pre-tool-use", Reply: string(reply)})
	js, err := Render(st.bin, "")
	if err != nil {
		t.Fatal(err)
	}
	bash := step{Hook: "tool.execute.before", Input: map[string]any{"tool": "bash", "sessionID": "s", "callID": "c1"},
		Output: map[string]any{"args": map[string]any{"command": `echo "it's" > x`, "workdir": "/proj/sub", "description": "d"}}}
	write := beforeWrite("s", "c2", "/proj/a.txt")
	after := step{Hook: "tool.execute.after", Input: map[string]any{"tool": "bash", "sessionID": "s", "callID": "c1", "args": map[string]any{"command": sandboxed}},
		Output: map[string]any{"title": "", "output": "out", "metadata": map[string]any{}}}
	config := json.RawMessage(`{"permission":{"bash":{"*":"allow","git push *":"ask"}},"agent":{"build":{"permission":"allow"},"plan":{}}}`)
	frozen := bash
	frozen.Input = map[string]any{"tool": "bash", "sessionID": "s", "callID": "c3"}
	frozen.Output = map[string]any{"args": map[string]any{"command": `echo "it's" > x`}}
	frozen.Frozen = true
	res := runHarness(t, bin, js, st, harnessCase{Directory: "/proj", Config: config, Sessions: map[string]map[string]any{"s": {}}, Steps: []step{bash, write, after, frozen}})
	r := res.Results[0]
	if r.Error != nil {
		t.Fatalf("the bash call was blocked: %s", *r.Error)
	}
	if !r.SameArgs {
		t.Error("the plugin replaced output.args; OpenCode would run the original command")
	}
	want := map[string]any{"command": sandboxed, "workdir": "/proj/sub", "description": "d"}
	if got := r.Output["args"]; !reflect.DeepEqual(got, want) {
		t.Errorf("args = %v, want %v", got, want)
	}
	if e := res.Results[1].Error; e == nil || !strings.HasPrefix(*e, gateFailed) || !strings.Contains(*e, "cannot run write in the sandbox") {
		t.Errorf("a command for a write call: error %v, want the call blocked", e)
	}
	if got := res.Results[2].Output["output"]; got != "out\n\nPLANQ-WARNING" {
		t.Errorf("output after the rewritten call = %q, want the warning appended", got)
	}
	// Arguments that cannot be changed would run the original: blocked.
	if e := res.Results[3].Error; e == nil || !strings.HasPrefix(*e, gateFailed) || !strings.Contains(*e, "cannot be changed") {
		t.Errorf("a bash call whose arguments cannot be changed: error %v, want the call blocked", e)
	}
	// The gate hears that the plugin applies commands, and the user's
	// permission config, global and per agent, which OpenCode would judge
	// the rewritten command by.
	p, err := ReadPayload(bytes.NewReader(st.calls(t, EventPreToolUse)[0].Stdin))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Permissions{Global: json.RawMessage(`{"bash":{"*":"allow","git push *":"ask"}}`), Agents: []json.RawMessage{json.RawMessage(`"allow"`)}}); !p.Rewrites || p.Permission == nil || !reflect.DeepEqual(*p.Permission, want) {
		t.Errorf("pre-tool-use payload: rewrites %v, permission %+v; want true, %+v", p.Rewrites, p.Permission, want)
	}
	// When OpenCode cannot say its config, the payload has no permission.
	st = newStub(t, stubRule{Event: "pre-tool-use", Reply: `{"decision":"allow"}`})
	if js, err = Render(st.bin, ""); err != nil {
		t.Fatal(err)
	}
	runHarness(t, bin, js, st, harnessCase{Directory: "/proj", Config: json.RawMessage("null"), Sessions: map[string]map[string]any{"s": {}}, Steps: []step{bash}})
	if p, err := ReadPayload(bytes.NewReader(st.calls(t, EventPreToolUse)[0].Stdin)); err != nil || !p.Rewrites || p.Permission != nil {
		t.Errorf("pre-tool-use payload without a config: %+v, %v; want rewrites and no permission", p, err)
	}
}

// TestPluginCommandLines checks the argument vectors, environment and stdin
// of the tool hooks, with planq-hook and without, and that a path needing
// JS escapes still runs.
func TestPluginCommandLines(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureOpenCode(t)
	for _, withHook := range []bool{true, false} {
		st := newStub(t, stubRule{Event: "pre-tool-use", Reply: `{"decision":"allow","warning":"PLANQ-WARNING: the change is empty"}`})
		odd := filepath.Join(t.TempDir(), `we"ird \ dir`, "planq")
		if err := os.MkdirAll(filepath.Dir(odd), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(st.bin, odd); err != nil {
			t.Fatal(err)
		}
		hook := ""
		if withHook {
			hook = odd
		}
		js, err := Render(odd, hook)
		if err != nil {
			t.Fatal(err)
		}
		after := step{Hook: "tool.execute.after", Input: map[string]any{"tool": "write", "sessionID": "child", "callID": "c1", "args": map[string]any{"filePath": "/proj/a.txt"}},
			Output: map[string]any{"title": "a.txt", "output": "Wrote file successfully.", "metadata": map[string]any{}}}
		res := runHarness(t, bin, js, st, harnessCase{Directory: "/proj",
			Sessions: map[string]map[string]any{"child": {"parentID": "main"}},
			Steps:    []step{beforeWrite("child", "c1", "/proj/a.txt"), after}})
		if e := res.Results[0].Error; e != nil {
			t.Fatalf("blocked: %s", *e)
		}
		if got, want := res.Results[1].Output["output"], "Wrote file successfully.\n\nPLANQ-WARNING: the change is empty"; got != want {
			t.Errorf("tool output after a warning = %q, want %q", got, want)
		}
		calls := st.calls(t, "")
		if len(calls) != 2 {
			t.Fatalf("calls = %v", calls)
		}
		for i, event := range []string{EventPreToolUse, EventPostToolUse} {
			c := calls[i]
			want := []string{"planq", "hook", event, "--host", "opencode"}
			if withHook {
				want = []string{"planq", event, "--host", "opencode"}
			}
			if !slices.Equal(c.Argv, want) {
				t.Errorf("argv = %q, want %q", c.Argv, want)
			}
			if c.Env["PLANQ_HOST"] != "opencode" || c.Env["PLANQ_PROJECT_DIR"] != "/proj" {
				t.Errorf("env = %v", c.Env)
			}
			p, err := ReadPayload(bytes.NewReader(c.Stdin))
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Check(event); err != nil {
				t.Error(err)
			}
			if p.Tool != "write" || p.SessionID != "child" || p.CallID != "c1" || p.Directory != "/proj" || !bytes.Contains(p.Args, []byte(`"/proj/a.txt"`)) {
				t.Errorf("%s payload = %s", event, c.Stdin)
			}
			if wantParent := map[string]string{EventPreToolUse: "main", EventPostToolUse: ""}[event]; p.ParentID != wantParent {
				t.Errorf("%s parentID = %q, want %q", event, p.ParentID, wantParent)
			}
		}
	}
}

// TestPluginSession drives the session hooks: context once per session and
// again after a compaction, the title request skipped, a failed
// session-start retried, pre-compact context, the nudge for main sessions
// only, and session-end.
func TestPluginSession(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureOpenCode(t)
	st := newStub(t,
		stubRule{Event: "session-start", Match: `"sessionID":"broken"`, Exit: 1, Stderr: "boom"},
		stubRule{Event: "session-start", Match: `"source":"compact"`, Reply: `{"context":"PLANQ-CONTEXT-2"}`},
		stubRule{Event: "session-start", Reply: `{"context":"PLANQ-CONTEXT-1"}`},
		stubRule{Event: "pre-compact", Reply: `{"context":"PLANQ-COMPACT"}`},
		stubRule{Event: "stop", Reply: `{"nudge":"PLANQ-NUDGE"}`},
	)
	js, err := Render(st.bin, st.bin)
	if err != nil {
		t.Fatal(err)
	}
	system := func(session string, first string) step {
		return step{Hook: "experimental.chat.system.transform", Input: map[string]any{"sessionID": session, "model": map[string]any{"id": "m"}},
			Output: map[string]any{"system": []any{first}}}
	}
	created := func(id, parent string) step {
		info := map[string]any{"id": id}
		if parent != "" {
			info["parentID"] = parent
		}
		return step{Event: map[string]any{"type": "session.created", "properties": map[string]any{"sessionID": id, "info": info}}}
	}
	byID := func(typ, id string) step {
		return step{Event: map[string]any{"type": typ, "properties": map[string]any{"sessionID": id}}}
	}
	messages := json.RawMessage(`[{"info":{"id":"msg_1","sessionID":"old","role":"user","time":{"created":1}},"parts":[{"type":"text","text":"hi"}]}]`)
	c := harnessCase{Directory: "/proj", Messages: messages,
		Sessions: map[string]map[string]any{"old": {}, "broken": {}},
		Steps: []step{
			system("old", "You are a title generator. You output ONLY a thread title."), // 0: skipped
			system("old", "You are opencode"),                                           // 1: resume, context 1
			system("old", "You are opencode"),                                           // 2: cached
			created("new", ""),                                                          // 3
			created("sub", "new"),                                                       // 4
			system("sub", "You are opencode"),                                           // 5: startup, with parentID
			{Hook: "experimental.session.compacting", Input: map[string]any{"sessionID": "old"}, Output: map[string]any{"context": []any{}}}, // 6
			byID("session.compacted", "old"),     // 7
			system("old", "You are opencode"),    // 8: compact, context 2
			system("broken", "You are opencode"), // 9: fails, nothing added
			system("broken", "You are opencode"), // 10: asked again
			byID("session.idle", "sub"),          // 11: no nudge for a subagent
			byID("session.idle", "new"),          // 12: nudge
			{Event: map[string]any{"type": "session.deleted", "properties": map[string]any{"sessionID": "sub", "info": map[string]any{"id": "sub", "parentID": "new"}}}}, // 13
		}}
	res := runHarness(t, bin, js, st, c)
	for i, r := range res.Results {
		if r.Error != nil {
			t.Errorf("step %d threw %s", i, *r.Error)
		}
	}
	sys := func(i int) []any { return res.Results[i].Output["system"].([]any) }
	for i, want := range map[int][]any{
		0:  {"You are a title generator. You output ONLY a thread title."},
		1:  {"You are opencode", "PLANQ-CONTEXT-1"},
		2:  {"You are opencode", "PLANQ-CONTEXT-1"},
		5:  {"You are opencode", "PLANQ-CONTEXT-1"},
		8:  {"You are opencode", "PLANQ-CONTEXT-2"},
		9:  {"You are opencode"},
		10: {"You are opencode"},
	} {
		if got := sys(i); !slices.Equal(got, want) {
			t.Errorf("step %d system = %q, want %q", i, got, want)
		}
	}
	if got := res.Results[6].Output["context"]; !slices.Equal(got.([]any), []any{"PLANQ-COMPACT"}) {
		t.Errorf("compaction context = %q", got)
	}
	var got []string
	for _, c := range st.calls(t, "") {
		p, err := ReadPayload(bytes.NewReader(c.Stdin))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(c.Event); err != nil {
			t.Error(err)
		}
		got = append(got, strings.Join([]string{c.Event, p.SessionID, p.ParentID, p.Source, p.Reason, string(p.Messages)}, " "))
	}
	m := string(messages)
	want := []string{
		"session-start old  resume  ",
		"session-start sub new startup  ",
		"pre-compact old    " + m,
		"session-start old  compact  ",
		"session-start broken  resume  ",
		"session-start broken  resume  ",
		"stop sub new   " + m,
		"stop new    " + m,
		"session-end sub   deleted ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Prompts) != 1 || res.Prompts[0].ID != "new" || res.Prompts[0].Text != "PLANQ-NUDGE" {
		t.Errorf("nudges = %+v, want one to session new", res.Prompts)
	}
	if !slices.ContainsFunc(res.Logs, func(s string) bool { return strings.Contains(s, "session-start") && strings.Contains(s, "boom") }) {
		t.Errorf("logs = %q, want the failed session-start", res.Logs)
	}

	// Under `opencode run`, which exits when the session goes idle, the
	// nudge is not sent: nothing would answer it.
	run := "run"
	res = runHarness(t, bin, js, st, harnessCase{Argv2: &run, Directory: "/proj", Messages: messages,
		Sessions: map[string]map[string]any{"new": {}}, Steps: []step{byID("session.idle", "new")}})
	if len(res.Prompts) != 0 {
		t.Errorf("nudges under opencode run = %+v", res.Prompts)
	}
}

// TestPluginPostToolUseNeverThrows: a failing post-tool-use hook is logged,
// never thrown into OpenCode.
func TestPluginPostToolUseNeverThrows(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureOpenCode(t)
	st := newStub(t, stubRule{Event: "post-tool-use", Exit: 1, Stderr: "post failed"}, stubRule{Event: "stop", Reply: "garbage"})
	js, err := Render(st.bin, "")
	if err != nil {
		t.Fatal(err)
	}
	res := runHarness(t, bin, js, st, harnessCase{Directory: "/proj", Sessions: map[string]map[string]any{"s": {}}, Steps: []step{
		{Hook: "tool.execute.after", Input: map[string]any{"tool": "bash", "sessionID": "s", "callID": "c", "args": map[string]any{"command": "true"}},
			Output: map[string]any{"title": "", "output": "", "metadata": map[string]any{}}},
		{Event: map[string]any{"type": "session.idle", "properties": map[string]any{"sessionID": "s"}}},
		{Event: map[string]any{"type": "session.idle", "properties": map[string]any{"sessionID": "missing"}}},
	}})
	for i, r := range res.Results {
		if r.Error != nil {
			t.Errorf("step %d threw %s", i, *r.Error)
		}
	}
	if len(res.Logs) != 3 {
		t.Errorf("logs = %q, want three failures logged", res.Logs)
	}
}
