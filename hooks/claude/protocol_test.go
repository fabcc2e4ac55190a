package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/session"
)

// A PreToolUse payload as Claude Code sends it.
const preToolUsePayload = `{
  "session_id": "abc123",
  "transcript_path": "/home/u/.claude/projects/p/abc123.jsonl",
  "cwd": "/home/u/code",
  "permission_mode": "default",
  "hook_event_name": "PreToolUse",
  "tool_name": "Write",
  "tool_input": {"file_path": "/home/u/code/a.go", "content": "package a\n"},
  "tool_use_id": "toolu_01",
  "some_future_field": {"nested": [1, 2, 3]}
}`

func TestReadInput(t *testing.T) {
	t.Parallel()
	in, err := ReadInput(strings.NewReader(preToolUsePayload))
	if err != nil {
		t.Fatal(err)
	}
	if in.SessionID != "abc123" || in.HookEventName != EventPreToolUse || in.ToolName != "Write" ||
		in.Cwd != "/home/u/code" || in.ToolUseID != "toolu_01" || in.PermissionMode != "default" {
		t.Errorf("decoded %+v", in)
	}
	var ti struct {
		FilePath string `json:"file_path"`
	}
	if err := json.Unmarshal(in.ToolInput, &ti); err != nil || ti.FilePath != "/home/u/code/a.go" {
		t.Errorf("tool_input %s: %v", in.ToolInput, err)
	}

	other := `{"session_id":"s","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":"keep it short"}`
	if in, err := ReadInput(strings.NewReader(other)); err != nil || in.Trigger != "auto" || in.CustomInstructions != "keep it short" {
		t.Errorf("PreCompact input: %+v, %v", in, err)
	}
}

func TestReadInputRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, want string
	}{
		{"empty", "", "no hook input"},
		{"blank", " \n\t", "no hook input"},
		{"array", `[{"tool_name":"Write"}]`, "not a JSON object"},
		{"text", "hello", "not a JSON object"},
		{"null", "null", "not a JSON object"},
		{"truncated", `{"tool_name": "Wri`, "not the JSON Claude Code sends"},
		{"wrong type", `{"tool_name": 3}`, "not the JSON Claude Code sends"},
		{"trailing data", `{"tool_name":"Read"} {"x":1}`, "data after"},
		{"too big", `{"x":"` + strings.Repeat("a", MaxInputSize) + `"}`, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadInput(strings.NewReader(tt.input))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q", err, tt.want)
			}
		})
	}
}

func TestExpect(t *testing.T) {
	t.Parallel()
	if err := (Input{HookEventName: "PreToolUse"}).Expect(EventPreToolUse); err != nil {
		t.Error(err)
	}
	if err := (Input{}).Expect(EventPreToolUse); err != nil {
		t.Errorf("no event name: %v", err)
	}
	if err := (Input{HookEventName: "PostToolUse"}).Expect(EventPreToolUse); err == nil || !strings.Contains(err.Error(), "PostToolUse") {
		t.Errorf("wrong event: %v", err)
	}
}

func TestWriteResponse(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteResponse(&b, nil); err != nil || b.Len() != 0 {
		t.Fatalf("nil response wrote %q, %v", b.String(), err)
	}
	if err := WriteResponse(&b, DenyToolUse("no change declared")); err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no change declared"}}` + "\n"
	if b.String() != want {
		t.Errorf("deny response\n got %s\nwant %s", b.String(), want)
	}
	b.Reset()
	WriteResponse(&b, WarnToolUse("careful"))
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	spec := got["hookSpecificOutput"].(map[string]any)
	if got["systemMessage"] != "careful" || spec["additionalContext"] != "careful" || spec["permissionDecision"] != nil {
		t.Errorf("warn response %s: want a warning without a permission decision", b.String())
	}
}

// TestWorktreePayloads: every spelling of the worktree payloads Claude Code
// versions send becomes the same event; 2.1.197's is the first.
func TestWorktreePayloads(t *testing.T) {
	t.Parallel()
	getenv := func(k string) string { return map[string]string{"CLAUDE_PROJECT_DIR": "/repo"}[k] }
	tests := []struct {
		name, event, payload string
		want                 session.Worktree
		cwd                  string
	}{
		{"2.1.197 create", session.EventWorktreeCreate,
			`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/repo","hook_event_name":"WorktreeCreate","name":"bright-fox"}`,
			session.Worktree{Name: "bright-fox", Base: session.BaseFresh}, "/repo"},
		{"subagent create", session.EventWorktreeCreate,
			`{"session_id":"s","cwd":"/repo","hook_event_name":"WorktreeCreate","name":"agent-a3f9c2","prompt_id":"p1"}`,
			session.Worktree{Name: "agent-a3f9c2", Base: session.BaseFresh, Subagent: true}, "/repo"},
		{"older create", session.EventWorktreeCreate,
			`{"session_id":"s","cwd":"/elsewhere","hook_event_name":"WorktreeCreate","worktree_name":"feature","base_path":"/repo"}`,
			session.Worktree{Name: "feature", Base: session.BaseFresh}, "/repo"},
		{"remove", session.EventWorktreeRemove,
			`{"session_id":"s","cwd":"/repo/.planq/workspaces/feature","hook_event_name":"WorktreeRemove","worktree_path":"/repo/.planq/workspaces/feature"}`,
			session.Worktree{Path: "/repo/.planq/workspaces/feature"}, "/repo/.planq/workspaces/feature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := session.ReadEvent(Protocol{}, tt.event, []byte(tt.payload), getenv)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Worktree == nil || *ev.Worktree != tt.want || ev.Cwd != tt.cwd {
				t.Errorf("worktree = %+v, cwd %q; want %+v, %q", ev.Worktree, ev.Cwd, tt.want, tt.cwd)
			}
		})
	}
	if _, err := (Protocol{}).Read(session.EventWorktreeCreate, []byte(`{"hook_event_name":"PreToolUse"}`), getenv); err == nil {
		t.Error("a PreToolUse payload was read as WorktreeCreate")
	}
}

func TestWorktreeCreateAnswer(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	code, err := Protocol{}.Write(&b, session.Event{Name: session.EventWorktreeCreate}, session.Reply{Path: "/repo/.planq/workspaces/x"})
	if err != nil || code != 0 || b.String() != "/repo/.planq/workspaces/x\n" {
		t.Errorf("answer = %q, exit %d, %v; want the path alone on a line", b.String(), code, err)
	}
	b.Reset()
	if code, err := (Protocol{}).Write(&b, session.Event{Name: session.EventWorktreeCreate}, session.Reply{}); code == 0 || err == nil || b.Len() != 0 {
		t.Errorf("no path: exit %d, %v, wrote %q; want a failure Claude Code sees", code, err, b.String())
	}
}

func TestBaseRef(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := BaseRef(dir, getenv); got != session.BaseFresh {
		t.Errorf("no settings: %q, want fresh (Claude Code's default)", got)
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"worktree":{"baseRef":"head"}}`)
	if got := BaseRef(dir, getenv); got != session.BaseHead {
		t.Errorf("user settings head: %q", got)
	}
	write(filepath.Join(dir, ".claude", "settings.json"), `{"worktree":{"baseRef":"fresh"}}`)
	if got := BaseRef(dir, getenv); got != session.BaseFresh {
		t.Errorf("project fresh over user head: %q", got)
	}
	write(filepath.Join(dir, ".claude", "settings.local.json"), `{"worktree":{"baseRef":"head"}}`)
	if got := BaseRef(dir, getenv); got != session.BaseHead {
		t.Errorf("local head over project fresh: %q", got)
	}
}
