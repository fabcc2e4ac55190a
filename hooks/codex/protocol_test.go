package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/hosttest"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
)

// rollout writes a Codex rollout whose session record names cwd (and, for a
// subagent, its parent thread) and returns its path.
func rollout(t *testing.T, cwd, source string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rollout-2026-11-25T07-49-33-01a211ae-6ac8-71b1-b736-00804015e9c3.jsonl")
	if source == "" {
		source = `"exec"`
	}
	line := `{"timestamp":"t","ordinal":0,"type":"session_meta","payload":{"session_id":"s","cwd":` + quote(cwd) + `,"source":` + source + `,"base_instructions":{"text":"` + strings.Repeat("x", 70000) + `"}}}` + "\n" +
		`{"type":"event_msg","payload":{"type":"task_started"}}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// fixture reads a payload Codex 0.169.0 sent a logging hook, pointed at
// project and transcript.
func fixture(t *testing.T, name, cwd, transcript string) []byte {
	t.Helper()
	return hosttest.Fixture(t, name, func(m map[string]any) { m["cwd"], m["transcript_path"] = cwd, transcript })
}

func TestReadCapturedPayloads(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	tr := rollout(t, project, "")
	tests := []struct {
		fixture, event string
		check          func(t *testing.T, ev session.Event)
	}{
		{"SessionStart", session.EventSessionStart, func(t *testing.T, ev session.Event) {
			if ev.Source != "startup" || ev.Call != nil {
				t.Errorf("%+v", ev)
			}
		}},
		{"PreToolUse-Bash", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			var in map[string]string
			if ev.Call == nil || ev.Call.Tool != (gate.Tool{Kind: gate.KindShell, Field: "command"}) || json.Unmarshal(ev.Call.Input, &in) != nil || in["command"] != "echo hi > a.txt" {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PreToolUse-apply_patch", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call == nil || ev.Call.Tool.Kind != gate.KindPatch || !strings.Contains(string(ev.Call.Input), "*** Add File: p.txt") {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PostToolUse-apply_patch", session.EventPostToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call == nil || ev.Call.Failed || ev.Call.Name != "apply_patch" {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PostToolUse-Bash", session.EventPostToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call == nil || ev.Call.Tool.Kind != gate.KindShell {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"Stop", session.EventStop, func(t *testing.T, ev session.Event) {
			if ev.StopHookActive {
				t.Errorf("%+v", ev)
			}
		}},
		{"SessionEnd", session.EventSessionEnd, func(t *testing.T, ev session.Event) {
			if ev.Reason != "other" {
				t.Errorf("%+v", ev)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ev, err := session.ReadEvent(Protocol{}, tt.event, fixture(t, tt.fixture, project, tr), func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if ev.SessionID != "01a211ad-ca6a-7c42-b475-bc0d81f98231" || ev.ProjectDir != project || ev.TranscriptPath != tr || ev.Host.Name != "codex" {
				t.Errorf("event %+v", ev)
			}
			tt.check(t, ev)
		})
	}
}

func TestReadFindsProjectAndParent(t *testing.T) {
	t.Parallel()
	project, workdir := t.TempDir(), t.TempDir()
	// A Bash call's cwd is its workdir; the project is the session's.
	ev, err := session.ReadEvent(Protocol{}, session.EventPreToolUse, fixture(t, "PreToolUse-Bash", workdir, rollout(t, project, "")), os.Getenv)
	if err != nil || ev.ProjectDir != project || ev.Cwd != workdir || ev.ParentID != "" {
		t.Fatalf("event %+v, %v", ev, err)
	}
	sub := rollout(t, project, `{"subagent":{"thread_spawn":{"parent_thread_id":"01a2-parent","depth":1}}}`)
	if ev, err = session.ReadEvent(Protocol{}, session.EventStop, fixture(t, "Stop", project, sub), os.Getenv); err != nil || ev.ParentID != "01a2-parent" {
		t.Fatalf("subagent event %+v, %v", ev, err)
	}
	// Codex 0.169.0's SubagentStart (captured): session_id is the parent
	// session, transcript_path the subagent's rollout, whose id is the
	// subagent's thread. A tool call there is the subagent's, parented.
	data, _ := os.ReadFile(filepath.Join("testdata", "subagent-rollout.jsonl"))
	subRollout := filepath.Join(t.TempDir(), "rollout.jsonl")
	_ = os.WriteFile(subRollout, []byte(strings.ReplaceAll(string(data), "/tmp/TestCaptureSubagent1753751749/001", project)), 0o600)
	in := fixture(t, "PreToolUse-Bash", project, subRollout)
	in = []byte(strings.Replace(string(in), "01a211ad-ca6a-7c42-b475-bc0d81f98231", "01a211b7-404e-7860-a944-d31946c6635f", 1))
	if ev, err = session.ReadEvent(Protocol{}, session.EventPreToolUse, in, os.Getenv); err != nil || ev.SessionID != "01a211b7-472e-7831-98f8-4244785c01df" || ev.ParentID != "01a211b7-404e-7860-a944-d31946c6635f" || ev.ProjectDir != project {
		t.Fatalf("subagent's tool call %+v, %v", ev, err)
	}
	// Codex 0.169.0's PreToolUse inside a subagent (captured): agent_id is
	// its thread, session_id the parent, transcript_path its own rollout.
	if ev, err = session.ReadEvent(Protocol{}, session.EventPreToolUse, fixture(t, "PreToolUse-subagent-Bash", project, subRollout), os.Getenv); err != nil ||
		ev.SessionID != "01a211c1-01aa-7011-8a44-c023ece1249e" || ev.ParentID != "01a211c0-ff8c-7032-9119-b1db1c822ffe" || ev.Call.Tool.Kind != gate.KindShell {
		t.Fatalf("captured subagent tool call %+v, %v", ev, err)
	}
	// Codex 0.169.0's SubagentStop (captured) is served as planq's stop for
	// the subagent: its own rollout, its thread, parented.
	stop := strings.Replace(string(fixture(t, "SubagentStop", project, "")), `"agent_transcript_path":"/tmp/TestCaptureSubagent231860195/002/.codex/sessions/2026/11/25/rollout-2026-11-25T08-09-51-01a211c1-01aa-7011-8a44-c023ece1249e.jsonl"`, `"agent_transcript_path":`+quote(subRollout), 1)
	if ev, err = session.ReadEvent(Protocol{}, session.EventStop, []byte(stop), os.Getenv); err != nil || ev.TranscriptPath != subRollout ||
		ev.SessionID != "01a211c1-01aa-7011-8a44-c023ece1249e" || ev.ParentID != "01a211c0-ff8c-7032-9119-b1db1c822ffe" || ev.ProjectDir != project {
		t.Fatalf("captured SubagentStop %+v, %v", ev, err)
	}
	// agent_id names the subagent's thread directly.
	in = []byte(strings.Replace(string(fixture(t, "PreToolUse-Bash", project, rollout(t, project, ""))), `"tool_name"`, `"agent_id":"01a2-sub","agent_type":"default","tool_name"`, 1))
	if ev, err = session.ReadEvent(Protocol{}, session.EventPreToolUse, in, os.Getenv); err != nil || ev.SessionID != "01a2-sub" || ev.ParentID != "01a211ad-ca6a-7c42-b475-bc0d81f98231" {
		t.Fatalf("agent_id event %+v, %v", ev, err)
	}
	// An ephemeral session has no rollout: the project is PLANQ_PROJECT_DIR, else the cwd.
	in = fixture(t, "Stop", project, "")
	if ev, err = session.ReadEvent(Protocol{}, session.EventStop, in, func(k string) string { return map[string]string{"PLANQ_PROJECT_DIR": "/p"}[k] }); err != nil || ev.ProjectDir != "/p" {
		t.Fatalf("ephemeral event %+v, %v", ev, err)
	}
}

// Read only decodes: the rollout is Resolve's to read, so a rollout that
// is gone fails the event only once it is resolved.
func TestReadOnlyDecodes(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	gone := filepath.Join(t.TempDir(), "rollout.jsonl")
	in := fixture(t, "PreToolUse-Bash", project, gone)
	ev, err := Protocol{}.Read(session.EventPreToolUse, in, os.Getenv)
	if err != nil || ev.TranscriptPath != gone || ev.ProjectDir != "" || ev.Call == nil || ev.Call.HostJudges != nil {
		t.Fatalf("Read = %+v, %v; want the input decoded, nothing read", ev, err)
	}
	if _, err := session.ReadEvent(Protocol{}, session.EventPreToolUse, in, os.Getenv); err == nil || !strings.Contains(err.Error(), "session record") {
		t.Fatalf("ReadEvent = %v; want the missing rollout named", err)
	}
}

func TestReadRejects(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	tr := rollout(t, project, "")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	_ = os.WriteFile(bad, []byte(`{"type":"event_msg"}`+"\n"), 0o600)
	good := string(fixture(t, "PreToolUse-Bash", project, tr))
	tests := map[string]struct{ event, in, err string }{
		"empty":           {session.EventPreToolUse, " ", "no hook input"},
		"not an object":   {session.EventPreToolUse, `[1]`, "not a JSON object"},
		"duplicate key":   {session.EventPreToolUse, strings.Replace(good, `"tool_name":"Bash"`, `"tool_name":"view_image","tool_name":"Bash"`, 1), "appears twice"},
		"case-folded key": {session.EventPreToolUse, strings.Replace(good, `"tool_name":"Bash"`, `"tool_name":"view_image","Tool_Name":"Bash"`, 1), "should be spelled"},
		"wrong event":     {session.EventPostToolUse, good, "is for PreToolUse, not PostToolUse"},
		"unknown event":   {"user-prompt-submit", good, "no user-prompt-submit hook"},
		"relative cwd":    {session.EventPreToolUse, strings.Replace(good, `"cwd":"`+project, `"cwd":"rel`, 1), "not an absolute path"},
		"no session":      {session.EventPreToolUse, strings.Replace(good, `"session_id":"01a211ad-ca6a-7c42-b475-bc0d81f98231"`, `"session_id":""`, 1), "no session_id"},
		"missing rollout": {session.EventPreToolUse, strings.Replace(good, tr, tr+".gone", 1), "session record"},
		"not a rollout":   {session.EventPreToolUse, strings.Replace(good, tr, bad, 1), "does not start with its session record"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := session.ReadEvent(Protocol{}, tt.event, []byte(tt.in), os.Getenv)
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tt.err)
			}
		})
	}
}

func TestRespond(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event string
		r     session.Reply
		want  string
	}{
		{session.EventPreToolUse, session.Reply{Deny: true, Reason: "no"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{session.EventPreToolUse, session.Reply{Warn: true, Reason: "careful"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"careful"},"systemMessage":"careful"}`},
		{session.EventPreToolUse, session.Reply{}, ``},
		{session.EventSessionStart, session.Reply{Context: "ctx"}, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}`},
		{session.EventStop, session.Reply{Nudge: "describe"}, `{"decision":"block","reason":"describe"}`},
		{session.EventStop, session.Reply{}, ``},
		{session.EventPreCompact, session.Reply{Context: "ctx"}, ``},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		code, err := Protocol{}.Write(&b, session.Event{Name: tt.event}, tt.r)
		if err != nil || code != 0 || strings.TrimSpace(b.String()) != tt.want {
			t.Errorf("%s %+v: %d %v %q, want %q", tt.event, tt.r, code, err, b.String(), tt.want)
		}
	}
}

func TestGateTool(t *testing.T) {
	t.Parallel()
	tests := map[string]gate.Tool{
		"Bash":                      {Kind: gate.KindShell, Field: "command"},
		"apply_patch":               {Kind: gate.KindPatch, Field: "command"},
		"mcp__planq__jj_init":       {Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_init"},
		"mcp__github__create_issue": {Kind: gate.KindMCP, Server: "github", MCPTool: "create_issue"},
		"view_image":                {Kind: gate.KindReadOnly},
		"spawn_agent":               {Kind: gate.KindReadOnly},
		"multi_agent_v1wait_agent":  {Kind: gate.KindReadOnly},
		"update_plan":               {Kind: gate.KindReadOnly},
		"mcp__":                     {},
		"mcp__planq":                {},
		"Write":                     {}, // a matcher alias, never a hook's tool_name: unknown
		"exec_command":              {}, // the model's name; hooks say Bash
		"write_stdin":               {},
		"":                          {},
	}
	for name, want := range tests {
		if got := GateTool(name); got != want {
			t.Errorf("GateTool(%q) = %+v, want %+v", name, got, want)
		}
	}
}

// gate runs the pre-tool-use hook process on Codex's payload for tool with
// input, in a session whose project is repo and whose call runs in cwd.
func gateCall(t *testing.T, repo, cwd, tool string, input any) (int, *Response) {
	t.Helper()
	raw, _ := json.Marshal(input)
	payload, _ := json.Marshal(map[string]any{"session_id": "01a211ad-ca6a-7c42-b475-bc0d81f98231", "turn_id": "t", "transcript_path": rollout(t, repo, ""),
		"cwd": cwd, "hook_event_name": "PreToolUse", "model": "gpt-5.5", "permission_mode": "bypassPermissions",
		"tool_name": tool, "tool_input": json.RawMessage(raw), "tool_use_id": "call_1"})
	return gateRaw(t, string(payload))
}

func gateRaw(t *testing.T, payload string) (int, *Response) {
	t.Helper()
	return hosttest.Gate[Response](t, Protocol{}, payload, os.Getenv)
}

func denied(r *Response) bool {
	return r != nil && r.Specific != nil && r.Specific.PermissionDecision == "deny"
}

// The gate speaks Codex: Bash and apply_patch by what they write (a Bash
// call's cwd is its workdir), planq's tools as mcp__planq__<tool>, other
// MCP tools by their verbs, unknown tools held, and denials that name
// mcp__planq__jj_init.
func TestGateOnCodexTools(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	out := t.TempDir()
	patch := func(path string) map[string]string {
		return map[string]string{"command": "*** Begin Patch\n*** Add File: " + path + "\n+x\n*** End Patch\n"}
	}
	tests := []struct {
		name, cwd, tool string
		input           any
		deny            bool
	}{
		{"read-only Bash", repo, "Bash", map[string]string{"command": "git status && ls"}, false},
		{"modifying Bash", repo, "Bash", map[string]string{"command": "rm -rf build"}, true},
		{"Bash in a workdir outside", out, "Bash", map[string]string{"command": "rm -rf build"}, false},
		{"Bash outside writing into the project", out, "Bash", map[string]string{"command": "echo x > " + filepath.Join(repo, "a.txt")}, true},
		{"Bash with two commands", repo, "Bash", json.RawMessage(`{"command":"ls","Command":"rm -rf x"}`), true},
		{"Bash without a command", repo, "Bash", map[string]string{"cmd": "ls"}, true},
		{"apply_patch in the project", repo, "apply_patch", patch("src/a.go"), true},
		{"apply_patch outside", repo, "apply_patch", patch(filepath.Join(out, "a.txt")), false},
		{"apply_patch in and out", repo, "apply_patch", map[string]string{"command": "*** Begin Patch\n*** Add File: " + filepath.Join(out, "a") + "\n+x\n*** Update File: b.go\n@@\n-a\n+b\n*** End Patch"}, true},
		{"apply_patch that is no patch", repo, "apply_patch", map[string]string{"command": "rm -rf /"}, true},
		{"mcp__planq__jj_init", repo, "mcp__planq__jj_init", map[string]string{"description": "x"}, false},
		{"mcp__planq__query_ancestor", repo, "mcp__planq__query_ancestor", map[string]string{"change_id": "@"}, false},
		{"mcp__planq__jj_describe is gated", repo, "mcp__planq__jj_describe", map[string]string{"description": "x"}, true},
		{"another server's read", repo, "mcp__github__get_issue", map[string]int{"n": 1}, false},
		{"another server's write", repo, "mcp__github__create_issue", map[string]string{"title": "x"}, true},
		{"view_image", repo, "view_image", map[string]string{"path": "a.png"}, false},
		{"an unknown tool", repo, "dynamic__default__frobnicate", map[string]string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, r := gateCall(t, repo, tt.cwd, tt.tool, tt.input)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			if got := denied(r); got != tt.deny {
				t.Fatalf("reply %+v, want deny=%v", r, tt.deny)
			}
			if tt.deny && !strings.Contains(r.Specific.PermissionDecisionReason, "mcp__planq__jj_init") && !strings.Contains(r.Specific.PermissionDecisionReason, "ambiguous") {
				t.Errorf("denial %q does not name mcp__planq__jj_init", r.Specific.PermissionDecisionReason)
			}
		})
	}
	// Once the change is declared, the same patch goes through.
	testenv.Run(t, repo, "jj", "describe", "-m", "Add a file")
	if _, r := gateCall(t, repo, repo, "apply_patch", patch("src/a.go")); denied(r) {
		t.Fatalf("after declaring: %+v", r)
	}
}

// While the change is undeclared, a shell call the gate is not sure
// modifies runs in planq's sandbox: the answer allows it with updatedInput
// holding the sandbox command (Codex drops updatedInput without the allow).
// A command that names a program one of the user's execpolicy rules is
// about is left as the model wrote it, for Codex's rule to judge, with the
// parser-only verdict; so is every command while a rules file does not
// parse.
func TestGateRewritesForCodex(t *testing.T) {
	if !sandbox.Detect().Available() {
		t.Skipf("no OS sandbox here (%s): the gate stays parser-only", sandbox.Detect())
	}
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	rewritten := func(r *Response) string {
		if r == nil || r.Specific == nil || r.Specific.PermissionDecision != "allow" {
			return ""
		}
		var in struct{ Command string }
		if json.Unmarshal(r.Specific.UpdatedInput, &in) != nil {
			return ""
		}
		return in.Command
	}
	_, r := gateCall(t, repo, repo, "Bash", map[string]string{"command": "cargo build && python3 -c 'print(1)'"})
	_, inv, ok := sandbox.Unwrap(rewritten(r))
	if !ok || inv.Command != "cargo build && python3 -c 'print(1)'" || inv.Root != repo || !slices.Equal(inv.Tools, []string{"mcp__planq__jj_init"}) {
		t.Fatalf("a locked read: reply %+v, want it run in the sandbox of %s", r, repo)
	}
	if _, r := gateCall(t, repo, repo, "Bash", map[string]string{"command": "rm -rf build"}); !denied(r) {
		t.Fatalf("a sure write: reply %+v, want it denied", r)
	}

	rules := filepath.Join(os.Getenv("HOME"), ".codex", "rules", "default.rules")
	testenv.WriteFile(t, filepath.Dir(rules), "default.rules", `prefix_rule(pattern = ["git", "push"], decision = "forbidden")`+"\n")
	if _, r := gateCall(t, repo, repo, "Bash", map[string]string{"command": "git log -1"}); r != nil {
		t.Fatalf("a read naming git, which a rule is about: reply %+v, want it left to Codex", r)
	}
	if _, r := gateCall(t, repo, repo, "Bash", map[string]string{"command": "git log -1 && cargo build"}); !denied(r) {
		t.Fatalf("a build naming git: reply %+v, want the parser-only verdict, a denial", r)
	}
	if _, r := gateCall(t, repo, repo, "Bash", map[string]string{"command": "ls -la"}); rewritten(r) == "" {
		t.Fatalf("a command no rule is about: reply %+v, want it rewritten", r)
	}
	testenv.WriteFile(t, filepath.Join(repo, ".codex", "rules"), "x.rules", "prefix_rule(pattern = [")
	if _, r := gateCall(t, repo, repo, "Bash", map[string]string{"command": "ls -la"}); r != nil {
		t.Fatalf("with a project rules file that does not parse: reply %+v, want the command left to Codex", r)
	}
}

// A payload planq cannot read is denied, naming the problem, even once the
// change is declared (when a readable one would pass).
func TestGateFailsClosedOnBadPayloads(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.Run(t, repo, "jj", "describe", "-m", "Add a file")
	tr := rollout(t, repo, "")
	base := `"session_id":"s1","transcript_path":` + quote(tr) + `,"cwd":` + quote(repo) + `,"hook_event_name":"PreToolUse"`
	if _, r := gateRaw(t, `{`+base+`,"tool_name":"Bash","tool_input":{"command":"rm x"}}`); denied(r) {
		t.Fatalf("a readable call was denied: %+v", r)
	}
	for name, payload := range map[string]string{
		"not JSON":       `nonsense`,
		"empty":          ``,
		"no tool":        `{` + base + `,"tool_input":{}}`,
		"duplicate tool": `{` + base + `,"tool_name":"view_image","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`,
		"relative cwd":   `{"session_id":"s1","transcript_path":` + quote(tr) + `,"cwd":"repo","tool_name":"Bash","tool_input":{"command":"rm x"}}`,
		"no rollout":     `{"session_id":"s1","transcript_path":"/nonexistent/r.jsonl","cwd":` + quote(repo) + `,"tool_name":"Bash","tool_input":{"command":"rm x"}}`,
		"trailing data":  `{` + base + `,"tool_name":"Bash","tool_input":{"command":"ls"}} {}`,
		"not a rollout":  `{"session_id":"s1","transcript_path":` + quote(filepath.Join(repo, ".jj", "repo", "store", "type")) + `,"cwd":` + quote(repo) + `,"tool_name":"Bash","tool_input":{"command":"rm x"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			code, r := gateRaw(t, payload)
			if code != 0 || !denied(r) || !strings.Contains(r.Specific.PermissionDecisionReason, "could not judge") {
				t.Fatalf("exit %d, reply %+v; want a denial saying the gate could not judge the call", code, r)
			}
		})
	}
}
