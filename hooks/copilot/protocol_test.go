package copilot

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

// fixture reads a payload Copilot CLI 1.0.102 sent a logging hook
// (testdata, captured with go test -tags capture), with its cwd (and,
// where it names one, its transcript) replaced.
func fixture(t *testing.T, name, cwd, transcript string) []byte {
	t.Helper()
	return hosttest.Fixture(t, name, func(m map[string]any) {
		m["cwd"] = cwd
		for _, k := range []string{"transcript_path", "transcriptPath"} {
			if _, ok := m[k]; ok {
				m[k] = transcript
			}
		}
	})
}

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestReadCapturedPayloads(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	tr := filepath.Join(t.TempDir(), "events.jsonl")
	getenv := env(map[string]string{"COPILOT_PROJECT_DIR": project})
	const main, sub = "eb02fbb5-7d9c-43e2-84ff-d1e37252c976", "32f0b52b-1595-44a0-b6aa-c2acc2a20a35"
	tests := []struct {
		fixture, event string
		check          func(t *testing.T, ev session.Event)
	}{
		{"SessionStart", session.EventSessionStart, func(t *testing.T, ev session.Event) {
			if ev.Source != "new" || ev.Call != nil || ev.ParentID != "" {
				t.Errorf("source %q call %v parent %q", ev.Source, ev.Call, ev.ParentID)
			}
		}},
		{"PreToolUse-Bash", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call == nil || ev.Call.Tool.Kind != gate.KindShell || !strings.Contains(string(ev.Call.Input), "echo hi") || ev.TranscriptPath != "" {
				t.Errorf("call %+v transcript %q", ev.Call, ev.TranscriptPath)
			}
		}},
		{"PreToolUse-Write", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Name != "Write" || ev.Call.Tool != (gate.Tool{Kind: gate.KindEditor, Field: "path"}) {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PreToolUse-Edit", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool != (gate.Tool{Kind: gate.KindEditor, Field: "path"}) {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PreToolUse-Read", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool.Kind != gate.KindReadOnly {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PreToolUse-mcp", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool != (gate.Tool{Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_status"}) {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PostToolUse-Write", session.EventPostToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call == nil || ev.Call.Failed || ev.Call.Tool.Kind != gate.KindEditor {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"PostToolUse-mcp", session.EventPostToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Failed || ev.Call.Tool.MCPTool != "jj_status" {
				t.Errorf("call %+v", ev.Call)
			}
		}},
		{"Stop", session.EventStop, func(t *testing.T, ev session.Event) {
			if ev.StopHookActive || ev.TranscriptPath != tr || ev.ParentID != "" {
				t.Errorf("active %v transcript %q parent %q", ev.StopHookActive, ev.TranscriptPath, ev.ParentID)
			}
		}},
		{"Stop-active", session.EventStop, func(t *testing.T, ev session.Event) {
			if !ev.StopHookActive {
				t.Error("stop_hook_active not read")
			}
		}},
		{"SessionEnd", session.EventSessionEnd, func(t *testing.T, ev session.Event) {
			if ev.Reason != "complete" {
				t.Errorf("reason %q", ev.Reason)
			}
		}},
		// A subagent's events are its own session, parented to the session
		// that started it (whose lineage it shares).
		{"PreToolUse-subagent-Bash", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.SessionID != sub || ev.ParentID != "02c5f792-3efd-42b8-9b22-d011f69489ee" || ev.Call.Tool.Kind != gate.KindShell {
				t.Errorf("session %q parent %q call %+v", ev.SessionID, ev.ParentID, ev.Call)
			}
		}},
		{"Stop-subagent", session.EventStop, func(t *testing.T, ev session.Event) {
			if ev.SessionID != sub || ev.ParentID == "" || ev.Owner() == sub {
				t.Errorf("session %q parent %q", ev.SessionID, ev.ParentID)
			}
		}},
		{"subagentStart", session.EventSessionStart, func(t *testing.T, ev session.Event) {
			if ev.SessionID != "32f0b52b-1595-44a0-b6aa-c2acc2a20a35" || ev.ParentID != "02c5f792-3efd-42b8-9b22-d011f69489ee" || ev.TranscriptPath != tr {
				t.Errorf("session %q parent %q transcript %q", ev.SessionID, ev.ParentID, ev.TranscriptPath)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			ev, err := Protocol{}.Read(tt.event, fixture(t, tt.fixture, project, tr), getenv)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Cwd != project || ev.ProjectDir != project || ev.Host.Name != "copilot" || ev.SessionID == "" {
				t.Fatalf("event %+v", ev)
			}
			if strings.HasPrefix(tt.fixture, "S") && ev.SessionID != main && !strings.Contains(tt.fixture, "subagent") && tt.fixture != "Stop-active" {
				t.Errorf("session %q, want %q", ev.SessionID, main)
			}
			tt.check(t, ev)
		})
	}
}

// Events whose payload names no transcript find the session's
// events.jsonl under $COPILOT_HOME when they are resolved (Read only
// decodes); a missing one is no transcript.
func TestReadFindsTranscript(t *testing.T) {
	t.Parallel()
	project, ch := t.TempDir(), t.TempDir()
	const id = "eb02fbb5-7d9c-43e2-84ff-d1e37252c976"
	getenv := env(map[string]string{"COPILOT_HOME": ch})
	ev, err := session.ReadEvent(Protocol{}, session.EventSessionEnd, fixture(t, "SessionEnd", project, ""), getenv)
	if err != nil || ev.TranscriptPath != "" || ev.ProjectDir != "" {
		t.Fatalf("no events.jsonl: %+v, %v", ev, err)
	}
	p := filepath.Join(ch, "session-state", id, "events.jsonl")
	testenv.WriteFile(t, filepath.Dir(p), "events.jsonl", "{}\n")
	if ev, err = (Protocol{}).Read(session.EventSessionEnd, fixture(t, "SessionEnd", project, ""), getenv); err != nil || ev.TranscriptPath != "" {
		t.Fatalf("Read found a transcript, %q (%v); only Resolve looks", ev.TranscriptPath, err)
	}
	for _, e := range []struct{ event, fixture string }{{session.EventSessionEnd, "SessionEnd"}, {session.EventSessionStart, "SessionStart"}} {
		ev, err = session.ReadEvent(Protocol{}, e.event, fixture(t, e.fixture, project, ""), getenv)
		if err != nil || ev.TranscriptPath != p {
			t.Fatalf("%s: transcript %q, %v; want %s", e.event, ev.TranscriptPath, err, p)
		}
	}
	ev, _ = session.ReadEvent(Protocol{}, session.EventSessionEnd, fixture(t, "SessionEnd", project, ""), env(map[string]string{"HOME": filepath.Dir(ch)}))
	if ev.TranscriptPath != "" {
		t.Fatalf("HOME without .copilot: %q", ev.TranscriptPath)
	}
}

func TestReadRejects(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	good := string(fixture(t, "PreToolUse-Bash", project, ""))
	for name, tc := range map[string]struct{ event, payload string }{
		"empty":              {session.EventPreToolUse, ""},
		"not an object":      {session.EventPreToolUse, "[1]"},
		"camelCase payload":  {session.EventPreToolUse, `{"sessionId":"s","timestamp":1,"cwd":` + q(project) + `,"toolName":"bash","toolArgs":{}}`},
		"another event":      {session.EventPostToolUse, good},
		"no session":         {session.EventPreToolUse, strings.Replace(good, `"session_id"`, `"x"`, 1)},
		"relative cwd":       {session.EventPreToolUse, strings.Replace(good, q(project), `"repo"`, 1)},
		"duplicate key":      {session.EventPreToolUse, strings.Replace(good, `"tool_name":"Bash"`, `"tool_name":"Read","tool_name":"Bash"`, 1)},
		"unknown event":      {"worktree-create", good},
		"subagent, no agent": {session.EventSessionStart, `{"sessionId":"s","cwd":` + q(project) + `,"agentId":""}`},
	} {
		t.Run(name, func(t *testing.T) {
			if ev, err := (Protocol{}).Read(tc.event, []byte(tc.payload), env(nil)); err == nil {
				t.Fatalf("read %+v, want an error", ev)
			}
		})
	}
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestRespond(t *testing.T) {
	t.Parallel()
	main := session.Event{Name: session.EventSessionStart, SessionID: "a"}
	sub := session.Event{Name: session.EventSessionStart, SessionID: "b", ParentID: "a"}
	tests := []struct {
		ev   session.Event
		r    session.Reply
		want string
	}{
		{session.Event{Name: session.EventPreToolUse}, session.Reply{Deny: true, Reason: "R"}, `{"permissionDecision":"deny","permissionDecisionReason":"R"}`},
		{session.Event{Name: session.EventPreToolUse}, session.Reply{Warn: true, Reason: "W"}, ``},
		{session.Event{Name: session.EventPreToolUse}, session.Reply{}, ``},
		{session.Event{Name: session.EventStop}, session.Reply{Nudge: "N"}, `{"decision":"block","reason":"N"}`},
		{main, session.Reply{Context: "C"}, ``},
		{sub, session.Reply{Context: "C"}, `{"additionalContext":"C"}`},
		{session.Event{Name: session.EventPreCompact}, session.Reply{Context: "C"}, ``},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		code, err := Protocol{}.Write(&b, tt.ev, tt.r)
		if err != nil || code != 0 || strings.TrimSpace(b.String()) != tt.want {
			t.Errorf("Write(%s, %+v) = %d %q %v, want %q", tt.ev.Name, tt.r, code, b.String(), err, tt.want)
		}
	}
}

func TestGateTool(t *testing.T) {
	t.Parallel()
	shell := gate.Tool{Kind: gate.KindShell, Field: "command"}
	editor := gate.Tool{Kind: gate.KindEditor, Field: "path"}
	ro := gate.Tool{Kind: gate.KindReadOnly}
	for name, want := range map[string]gate.Tool{
		"Bash": shell, "bash": shell, "Write": editor, "create": editor, "Edit": editor, "edit": editor,
		"Read": ro, "view": ro, "Glob": ro, "Grep": ro, "web_fetch": ro, "ask_user": ro, "Agent": ro, "task": ro,
		"list_bash": ro, "read_bash": ro, "stop_bash": ro, "sql": ro, "write_agent": ro,
		"planq-jj_init":        {Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_init"},
		"planq-query_ancestor": {Kind: gate.KindMCP, Server: "planq", MCPTool: "query_ancestor"},
		"github-get_issue":     {Kind: gate.KindMCP, Server: "github", MCPTool: "get_issue"},
		"planq-evil-jj_init":   {Kind: gate.KindMCP, Server: "planq-evil", MCPTool: "jj_init"},
		"planq-Jj_init":        {Kind: gate.KindMCP, Server: "planq", MCPTool: "Jj_init"},
		"powershell":           {},
		"PowerShell":           {},
		"frobnicate":           {},
		"":                     {},
		"-x":                   {},
	} {
		if got := GateTool(name); got != want {
			t.Errorf("GateTool(%q) = %+v, want %+v", name, got, want)
		}
	}
}

func gateCall(t *testing.T, cwd, tool string, input any) (int, *Response) {
	t.Helper()
	raw, _ := json.Marshal(input)
	payload, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "session_id": "eb02fbb5-7d9c-43e2-84ff-d1e37252c976",
		"timestamp": "2026-11-25T08:39:15.083Z", "cwd": cwd, "tool_name": tool, "tool_input": json.RawMessage(raw)})
	return gateRaw(t, string(payload))
}

func gateRaw(t *testing.T, payload string) (int, *Response) {
	t.Helper()
	return hosttest.Gate[Response](t, Protocol{}, payload, os.Getenv)
}

func denied(r *Response) bool { return r != nil && r.PermissionDecision == "deny" }

// The gate speaks Copilot: Bash by what it writes, Write and Edit by their
// path, planq's tools as planq-<tool>, other MCP tools by their verbs,
// PowerShell and unknown tools held, and denials that name planq-jj_init.
func TestGateOnCopilotTools(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	out := t.TempDir()
	tests := []struct {
		name, cwd, tool string
		input           any
		deny            bool
	}{
		{"read-only Bash", repo, "Bash", map[string]string{"command": "git status && ls", "description": "x"}, false},
		{"modifying Bash", repo, "Bash", map[string]string{"command": "rm -rf build", "description": "x"}, true},
		{"Bash writing outside", repo, "Bash", map[string]string{"command": "echo x > " + filepath.Join(out, "a.txt")}, false},
		{"Bash with two commands", repo, "Bash", json.RawMessage(`{"command":"ls","Command":"rm -rf x"}`), true},
		{"Bash without a command", repo, "Bash", map[string]string{"cmd": "ls"}, true},
		{"Write in the project", repo, "Write", map[string]string{"path": filepath.Join(repo, "a.txt"), "file_text": "x"}, true},
		{"Write outside", repo, "Write", map[string]string{"path": filepath.Join(out, "a.txt"), "file_text": "x"}, false},
		{"Edit in the project", repo, "Edit", map[string]string{"path": filepath.Join(repo, "a.txt"), "old_str": "a", "new_str": "b"}, true},
		{"Edit with two paths", repo, "Edit", json.RawMessage(`{"path":"` + filepath.Join(out, "a") + `","Path":"` + filepath.Join(repo, "a") + `"}`), true},
		{"create (camelCase name)", repo, "create", map[string]string{"path": filepath.Join(repo, "a.txt"), "file_text": "x"}, true},
		{"Read", repo, "Read", map[string]string{"path": filepath.Join(repo, "a.txt")}, false},
		{"Glob", repo, "Glob", map[string]string{"pattern": "*"}, false},
		{"Agent (task)", repo, "Agent", map[string]string{"prompt": "write c.txt", "agent_type": "general-purpose"}, false},
		{"PowerShell", repo, "powershell", map[string]string{"command": "Get-ChildItem"}, true},
		{"planq-jj_init", repo, "planq-jj_init", map[string]string{"description": "x"}, false},
		{"planq-jj_status", repo, "planq-jj_status", map[string]string{}, false},
		{"planq-jj_describe is gated", repo, "planq-jj_describe", map[string]string{"description": "x"}, true},
		{"a server named planq-evil", repo, "planq-evil-planq_log", map[string]string{}, true},
		{"another server's read", repo, "github-get_issue", map[string]int{"n": 1}, false},
		{"another server's write", repo, "github-create_issue", map[string]string{"title": "x"}, true},
		{"an unknown tool", repo, "frobnicate", map[string]string{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, r := gateCall(t, tt.cwd, tt.tool, tt.input)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			if got := denied(r); got != tt.deny {
				t.Fatalf("reply %+v, want deny=%v", r, tt.deny)
			}
			if tt.deny && !strings.Contains(r.PermissionDecisionReason, "planq-jj_init") && !strings.Contains(r.PermissionDecisionReason, "ambiguous") {
				t.Errorf("denial %q does not name planq-jj_init", r.PermissionDecisionReason)
			}
		})
	}
	// Once the change is declared, the same create goes through; PowerShell
	// too (the gate holds unknown tools only until then).
	testenv.Run(t, repo, "jj", "describe", "-m", "Add a file")
	for _, tool := range []string{"Write", "powershell"} {
		if _, r := gateCall(t, repo, tool, map[string]string{"path": filepath.Join(repo, "a.txt"), "file_text": "x"}); denied(r) {
			t.Fatalf("%s after declaring: %+v", tool, r)
		}
	}
}

// A payload planq cannot read is denied, naming the problem, even once the
// change is declared (when a readable one would pass): Copilot would run
// the call if the hook failed instead.
func TestGateFailsClosedOnBadPayloads(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.Run(t, repo, "jj", "describe", "-m", "Add a file")
	base := `"hook_event_name":"PreToolUse","session_id":"s1","timestamp":"t","cwd":` + q(repo)
	if _, r := gateRaw(t, `{`+base+`,"tool_name":"Bash","tool_input":{"command":"rm x"}}`); denied(r) {
		t.Fatalf("a readable call was denied: %+v", r)
	}
	for name, payload := range map[string]string{
		"not JSON":          `nonsense`,
		"empty":             ``,
		"no tool":           `{` + base + `,"tool_input":{}}`,
		"duplicate tool":    `{` + base + `,"tool_name":"Read","tool_name":"Bash","tool_input":{"command":"rm -rf x"}}`,
		"relative cwd":      `{"hook_event_name":"PreToolUse","session_id":"s1","cwd":"repo","tool_name":"Bash","tool_input":{"command":"rm x"}}`,
		"camelCase payload": `{"sessionId":"s1","timestamp":1,"cwd":` + q(repo) + `,"toolName":"bash","toolArgs":{"command":"rm x"}}`,
		"trailing data":     `{` + base + `,"tool_name":"Bash","tool_input":{"command":"ls"}} {}`,
		"wrong type":        `{` + base + `,"tool_name":["Bash"],"tool_input":{"command":"ls"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			code, r := gateRaw(t, payload)
			if code != 0 || !denied(r) || !strings.Contains(r.PermissionDecisionReason, "could not judge") {
				t.Fatalf("exit %d, reply %+v; want a denial saying the gate could not judge the call", code, r)
			}
		})
	}
}

// While the change is undeclared, a Bash call the gate is not sure modifies
// runs in planq's sandbox: the answer is modifiedArgs, the whole arguments
// with the sandbox command (Copilot replaces them), and no permission
// decision (an allow would skip the user's permission rules).
func TestGateRewritesForCopilot(t *testing.T) {
	if !sandbox.Detect().Available() {
		t.Skipf("no OS sandbox here (%s): the gate stays parser-only", sandbox.Detect())
	}
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	_, r := gateCall(t, repo, "Bash", map[string]string{"command": "python3 -c 'print(1)'", "description": "d"})
	var args map[string]string
	if r == nil || r.PermissionDecision != "" || json.Unmarshal(r.ModifiedArgs, &args) != nil {
		t.Fatalf("a locked read: reply %+v, want modifiedArgs alone", r)
	}
	_, inv, ok := sandbox.Unwrap(args["command"])
	if !ok || inv.Command != "python3 -c 'print(1)'" || !slices.Equal(inv.Tools, []string{"planq-jj_init"}) || args["description"] != "d" || len(args) != 2 {
		t.Fatalf("a locked read: modifiedArgs %q, want the sandbox command and the description", args)
	}
	// Copilot's bash execs the entry point, which cannot then tell which
	// shell ran it: the rewrite names Copilot's.
	if inv.Shell != "/bin/bash" {
		t.Errorf("a locked read: the rewrite names the shell %q, want /bin/bash (Copilot's, whatever $SHELL says)", inv.Shell)
	}
	if _, r := gateCall(t, repo, "Bash", map[string]string{"command": "rm -rf build"}); !denied(r) {
		t.Fatalf("a sure write: reply %+v, want it denied", r)
	}
	testenv.Run(t, repo, "jj", "describe", "-m", "Add a file")
	if _, r := gateCall(t, repo, "Bash", map[string]string{"command": "python3 -c 'print(1)'"}); r != nil {
		t.Fatalf("once the change is declared: reply %+v, want nothing (the call runs as it is)", r)
	}
}
