package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/hosttest"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/mcp/toolnames"
)

// env is the environment Gemini CLI 0.61.0 gives a hook (captured), for the
// captured inputs under testdata/events.
func env(k string) string {
	return map[string]string{"GEMINI_PROJECT_DIR": "/work/repo", "GEMINI_CWD": "/work/repo", "CLAUDE_PROJECT_DIR": "/work/repo"}[k]
}

func readEvent(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "events", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReadCapturedInputs reads the hook inputs captured from gemini -p
// 0.61.0 (testdata/events) into the events planq handles.
func TestReadCapturedInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, event string
		check       func(t *testing.T, ev session.Event)
	}{
		{"SessionStart", session.EventSessionStart, func(t *testing.T, ev session.Event) {
			if ev.Source != "startup" || ev.SessionID != "7893f873-16ab-488e-b693-b7f027e261e6" || ev.ProjectDir != "/work/repo" ||
				ev.TranscriptPath != "/home/u/.gemini/tmp/003/chats/session-2026-11-25T08-30-7893f873.jsonl" {
				t.Fatalf("%+v", ev)
			}
		}},
		{"BeforeTool-write_file", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool != (gate.Tool{Kind: gate.KindEditor, Field: "file_path"}) || ev.Cwd != "/work/repo" {
				t.Fatalf("%+v %+v", ev, ev.Call)
			}
		}},
		{"BeforeTool-replace", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool.Kind != gate.KindEditor || !strings.Contains(string(ev.Call.Input), `"file_path":"hello.txt"`) {
				t.Fatalf("%+v", ev.Call)
			}
		}},
		{"BeforeTool-run_shell_command", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			// dir_path "sub": the command ran in /work/repo/sub (its pwd said so).
			if ev.Call.Tool != (gate.Tool{Kind: gate.KindShell, Field: "command"}) || ev.Cwd != "/work/repo/sub" || ev.ProjectDir != "/work/repo" {
				t.Fatalf("%+v %+v", ev, ev.Call)
			}
		}},
		{"BeforeTool-mcp", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool != (gate.Tool{Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_status"}) {
				t.Fatalf("%+v", ev.Call)
			}
		}},
		{"BeforeTool-read_file", session.EventPreToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool.Kind != gate.KindReadOnly {
				t.Fatalf("%+v", ev.Call)
			}
		}},
		{"AfterTool-write_file", session.EventPostToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool.Kind != gate.KindEditor || ev.Call.Failed {
				t.Fatalf("%+v", ev.Call)
			}
		}},
		{"AfterTool-mcp", session.EventPostToolUse, func(t *testing.T, ev session.Event) {
			if ev.Call.Tool.MCPTool != "jj_status" || ev.Call.Failed {
				t.Fatalf("%+v", ev.Call)
			}
		}},
		{"PreCompress", session.EventPreCompact, func(t *testing.T, ev session.Event) {
			if ev.Trigger != "auto" || !ev.Host.CompactEveryTurn {
				t.Fatalf("%+v", ev)
			}
		}},
		{"AfterAgent", session.EventStop, func(t *testing.T, ev session.Event) {
			if ev.StopHookActive {
				t.Fatalf("%+v", ev)
			}
		}},
		{"AfterAgent-active", session.EventStop, func(t *testing.T, ev session.Event) {
			if !ev.StopHookActive {
				t.Fatalf("the retry's stop_hook_active was lost: %+v", ev)
			}
		}},
		{"SessionEnd", session.EventSessionEnd, func(t *testing.T, ev session.Event) {
			if ev.Reason != "exit" {
				t.Fatalf("%+v", ev)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ev, err := Protocol{}.Read(tt.event, readEvent(t, tt.file), env)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Name != tt.event || ev.Host.Name != "gemini" {
				t.Fatalf("event %q host %q", ev.Name, ev.Host.Name)
			}
			tt.check(t, ev)
		})
	}
}

// Odd inputs are errors (the gate then denies: RunPreToolUse fails closed).
func TestReadRejectsOddInputs(t *testing.T) {
	t.Parallel()
	base := `"session_id":"s","cwd":"/work/repo","hook_event_name":"BeforeTool","tool_name":"run_shell_command"`
	tests := []struct{ name, event, input, want string }{
		{"empty", session.EventPreToolUse, ``, "no hook input"},
		{"not an object", session.EventPreToolUse, `[1]`, "not a JSON object"},
		{"trailing data", session.EventPreToolUse, `{` + base + `,"tool_input":{"command":"ls"}} {}`, "after its JSON object"},
		{"key twice", session.EventPreToolUse, `{` + base + `,"tool_input":{"command":"ls"},"tool_name":"read_file"}`, "not the JSON Gemini CLI sends"},
		{"key in another case", session.EventPreToolUse, `{` + base + `,"tool_input":{"command":"ls"},"Tool_Name":"read_file"}`, "not the JSON Gemini CLI sends"},
		{"wrong event", session.EventPreToolUse, `{"session_id":"s","cwd":"/r","hook_event_name":"AfterTool","tool_name":"write_file","tool_input":{}}`, "is for AfterTool"},
		{"no tool", session.EventPreToolUse, `{"session_id":"s","cwd":"/r","hook_event_name":"BeforeTool"}`, "names no tool"},
		{"dir_path twice", session.EventPreToolUse, `{` + base + `,"tool_input":{"command":"ls","dir_path":"a","dir_path":"/"}}`, "ambiguous or malformed"},
		{"dir_path not a string", session.EventPreToolUse, `{` + base + `,"tool_input":{"command":"ls","dir_path":3}}`, "not a string"},
		{"mcp_context ambiguous", session.EventPreToolUse, `{"session_id":"s","cwd":"/r","hook_event_name":"BeforeTool","tool_name":"mcp_a_b","tool_input":{},"mcp_context":{"server_name":"a","Server_name":"planq","tool_name":"b"}}`, "mcp_context is malformed"},
		{"unknown event", "user-prompt", `{"session_id":"s"}`, "no user-prompt hook"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Protocol{}.Read(tt.event, []byte(tt.input), env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestShellDir(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, want string }{
		{`{"command":"ls"}`, "/work/repo"},
		{`{"command":"ls","dir_path":null}`, "/work/repo"},
		{`{"command":"ls","dir_path":""}`, "/work/repo"},
		{`{"command":"ls","dir_path":"sub/dir"}`, "/work/repo/sub/dir"},
		{`{"command":"ls","dir_path":"../other"}`, "/work/other"},
		{`{"command":"ls","dir_path":"/tmp/x/"}`, "/tmp/x"},
	}
	for _, tt := range tests {
		got, err := shellDir("/work/repo", "/work/repo", json.RawMessage(tt.input))
		if err != nil || got != tt.want {
			t.Errorf("shellDir(%s) = %q, %v; want %q", tt.input, got, err, tt.want)
		}
	}
}

// TestGateTools covers every tool Gemini CLI 0.61.0 offers (its request's
// functionDeclarations, plus the ones its source names): each one that can
// write is gated, the read-only ones never are.
// Every tool of planq's server (toolnames, the list the server registers)
// is known by its name alone, without a context.
func TestGateKnowsEveryPlanqTool(t *testing.T) {
	t.Parallel()
	for _, name := range toolnames.All() {
		if got := GateTool(ToolPrefix + name); got != (gate.Tool{Kind: gate.KindMCP, Server: ServerName, MCPTool: name}) {
			t.Errorf("GateTool(%q) = %+v", ToolPrefix+name, got)
		}
	}
}

func TestGateTools(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		mcp  *MCPContext
		want gate.Tool
	}{
		{"run_shell_command", nil, gate.Tool{Kind: gate.KindShell, Field: "command"}},
		{"write_file", nil, gate.Tool{Kind: gate.KindEditor, Field: "file_path"}},
		{"replace", nil, gate.Tool{Kind: gate.KindEditor, Field: "file_path"}},
		{"read_file", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"list_directory", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"glob", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"grep_search", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"web_fetch", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"google_web_search", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"write_todos", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"update_topic", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"enter_plan_mode", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"activate_skill", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"read_background_output", nil, gate.Tool{Kind: gate.KindReadOnly}},
		{"invoke_agent", nil, gate.Tool{}},  // a subagent: held until the change is declared
		{"some_new_tool", nil, gate.Tool{}}, // unknown: held
		{"Write_File", nil, gate.Tool{}},    // names are exact
		{"mcp_planq_jj_init", nil, gate.Tool{Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_init"}},
		{"mcp_planq_jj_init", &MCPContext{ServerName: "planq", ToolName: "jj_init"}, gate.Tool{Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_init"}},
		{"mcp_planq_jj_squash", nil, gate.Tool{Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_squash"}},
		{"mcp_planq_unknown", nil, gate.Tool{}}, // not one of planq's tools, and no context to split it
		// Server names with underscores: only the context can split them.
		{"mcp_my_db_run_query", &MCPContext{ServerName: "my_db", ToolName: "run_query"}, gate.Tool{Kind: gate.KindMCP, Server: "my_db", MCPTool: "run_query"}},
		{"mcp_my_db_run_query", nil, gate.Tool{}},
		{"mcp_planq_x_jj_init", &MCPContext{ServerName: "planq_x", ToolName: "jj_init"}, gate.Tool{Kind: gate.KindMCP, Server: "planq_x", MCPTool: "jj_init"}},
		// A context that does not spell the name is not believed.
		{"mcp_planq_jj_init", &MCPContext{ServerName: "evil", ToolName: "jj_init"}, gate.Tool{}},
		{"mcp_evil_write", &MCPContext{ServerName: "planq", ToolName: "jj_init"}, gate.Tool{}},
		{"mcp__", &MCPContext{}, gate.Tool{}},
	}
	for _, tt := range tests {
		if got := GateToolWith(tt.name, tt.mcp); got != tt.want {
			t.Errorf("GateToolWith(%q, %+v) = %+v, want %+v", tt.name, tt.mcp, got, tt.want)
		}
	}
}

// TestWrite: the answers Gemini CLI reads, each on exit status 0, and
// nothing at all on stdout when planq has nothing to say.
func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event string
		reply session.Reply
		want  string
	}{
		{session.EventPreToolUse, session.Reply{Deny: true, Reason: "planq gate: blocked"}, `{"decision":"deny","reason":"planq gate: blocked"}`},
		{session.EventPreToolUse, session.Reply{Warn: true, Reason: "let through"}, `{"systemMessage":"let through"}`},
		{session.EventPreToolUse, session.Reply{}, ``},
		{session.EventSessionStart, session.Reply{Context: "planq: ctx"}, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"planq: ctx"}}`},
		{session.EventSessionStart, session.Reply{}, ``},
		{session.EventStop, session.Reply{Nudge: "summarise"}, `{"decision":"block","reason":"summarise"}`},
		{session.EventStop, session.Reply{}, ``},
		{session.EventPreCompact, session.Reply{Context: "ignored"}, ``},
		{session.EventPostToolUse, session.Reply{}, ``},
		{session.EventSessionEnd, session.Reply{}, ``},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		code, err := Protocol{}.Write(&b, session.Event{Name: tt.event}, tt.reply)
		if err != nil || code != 0 || strings.TrimSpace(b.String()) != tt.want {
			t.Errorf("Write(%s, %+v) = %q, %d, %v; want %q", tt.event, tt.reply, b.String(), code, err, tt.want)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// TestPreToolUseFailsClosed runs the whole pre-tool-use hook process on bad
// inputs: each is answered by a deny on stdout and exit status 0 (Gemini
// CLI lets a call through on any status but 0 and 2), and exit 2 when even
// the answer cannot be written.
func TestPreToolUseFailsClosed(t *testing.T) {
	t.Parallel()
	for _, input := range []string{``, `not json`, `{"tool_name":"write_file"`, `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"a"}}`} {
		var out, errb bytes.Buffer
		code := session.RunPreToolUse(context.Background(), Protocol{}, strings.NewReader(input), &out, &errb, func(string) string { return "" })
		var o Output
		if code != 0 || json.Unmarshal(out.Bytes(), &o) != nil || o.Decision != "deny" || !strings.Contains(o.Reason, "planq gate: blocked") {
			t.Errorf("input %q: exit %d, stdout %q; want a deny on exit 0", input, code, out.String())
		}
	}
	code := session.RunPreToolUse(context.Background(), Protocol{}, strings.NewReader(`x`), failWriter{}, io.Discard, func(string) string { return "" })
	if code != 2 {
		t.Fatalf("exit %d when the answer cannot be written, want 2 (Gemini CLI blocks on 2)", code)
	}
}

// While the change is undeclared, a run_shell_command the gate is not sure
// modifies runs in planq's sandbox: the answer hands Gemini CLI the whole
// tool_input back (it replaces the input, so dir_path must stay) with the
// sandbox command. A command Gemini CLI refuses itself ($(…), backticks)
// reaches it as the model wrote it, with the parser-only verdict, so that
// the refusal stands.
func TestGateRewritesForGemini(t *testing.T) {
	if !sandbox.Detect().Available() {
		t.Skipf("no OS sandbox here (%s): the gate stays parser-only", sandbox.Detect())
	}
	repo := hosttest.Repo(t)
	answer := func(command string) *rewriteOutput {
		t.Helper()
		input, _ := json.Marshal(map[string]string{"command": command, "description": "d", "dir_path": "sub"})
		payload, _ := json.Marshal(map[string]any{"session_id": "s", "transcript_path": "", "cwd": repo, "hook_event_name": "BeforeTool",
			"timestamp": "t", "tool_name": "run_shell_command", "tool_input": json.RawMessage(input)})
		var out bytes.Buffer
		if code := session.RunPreToolUse(context.Background(), Protocol{}, bytes.NewReader(payload), &out, io.Discard, func(k string) string {
			if k == "GEMINI_PROJECT_DIR" {
				return repo
			}
			return os.Getenv(k)
		}); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if out.Len() == 0 {
			return nil
		}
		var o rewriteOutput
		if err := json.Unmarshal(out.Bytes(), &o); err != nil {
			t.Fatalf("answer %q: %v", out.String(), err)
		}
		return &o
	}
	o := answer("python3 -c 'print(1)'")
	var in map[string]string
	if o == nil || o.Specific.HookEventName != EventBeforeTool || json.Unmarshal(o.Specific.ToolInput, &in) != nil {
		t.Fatalf("a locked read: answer %+v, want a tool_input", o)
	}
	_, inv, ok := sandbox.Unwrap(in["command"])
	if !ok || inv.Command != "python3 -c 'print(1)'" || inv.Root != repo || in["dir_path"] != "sub" || in["description"] != "d" || len(in) != 3 {
		t.Fatalf("a locked read: tool_input %q, want the sandbox command with dir_path and description kept", in)
	}
	if o := answer("ls $(pwd)"); o != nil && o.Specific.ToolInput != nil {
		t.Fatalf("a command Gemini CLI refuses: answer %s, want it left as it is", o.Specific.ToolInput)
	}
	if o := answer("ls '$(pwd)'"); o == nil || o.Specific.ToolInput == nil {
		t.Fatalf("a quoted $( that Gemini CLI runs: answer %+v, want it rewritten", o)
	}

	// A command one of the user's shell rules is about is left to the rule.
	policies := filepath.Join(os.Getenv("HOME"), ".gemini", "policies")
	testenv.WriteFile(t, policies, "auto-saved.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git log\"\ndecision = \"allow\"\npriority = 100\n")
	if o := answer("git log -1"); o != nil {
		t.Fatalf("a command a rule is about: answer %+v, want nothing (the parser lets it through, Gemini's rule judges it)", o)
	}
	if o := answer("ls -la"); o == nil || o.Specific.ToolInput == nil {
		t.Fatalf("a command no rule is about: answer %+v, want it rewritten", o)
	}
	// "Allow always" for the sandbox's own command would approve every
	// locked call: then nothing is rewritten.
	testenv.WriteFile(t, policies, "auto-saved.toml", "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"planq-hook\"\ndecision = \"allow\"\npriority = 100\n")
	if o := answer("ls -la"); o != nil {
		t.Fatalf("with a rule about planq-hook: answer %+v, want ls left as it is", o)
	}
}
