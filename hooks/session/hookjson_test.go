package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestEventNames(t *testing.T) {
	t.Parallel()
	n := ClaudeEventNames()
	if got, err := n.Of(EventPreToolUse, "Codex"); got != "PreToolUse" || err != nil {
		t.Errorf("Of(pre-tool-use) = %q, %v", got, err)
	}
	if _, err := n.Of(EventWorktreeCreate, "Codex"); err == nil || err.Error() != "planq has no worktree-create hook for Codex" {
		t.Errorf("Of(worktree-create) error = %v", err)
	}
	if got := n.Planq("Stop"); got != EventStop {
		t.Errorf("Planq(Stop) = %q", got)
	}
	if got := n.Planq("SubagentStop"); got != "SubagentStop" {
		t.Errorf("Planq(SubagentStop) = %q, want it back", got)
	}
}

func TestCheckEventName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got, want string
		ok        bool
	}{
		{"PreToolUse", "PreToolUse", true},
		{"", "PreToolUse", true},
		{"PostToolUse", "PreToolUse", false},
	}
	for _, tt := range tests {
		err := CheckEventName(tt.got, tt.want, "planq mcp install --host codex")
		if (err == nil) != tt.ok || err != nil && !strings.Contains(err.Error(), "hook input is for PostToolUse, not PreToolUse; check the hook wiring (planq mcp install --host codex)") {
			t.Errorf("CheckEventName(%q, %q) = %v", tt.got, tt.want, err)
		}
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	type in struct {
		SessionID string `json:"session_id"`
		Cwd       string `json:"cwd"`
	}
	if v, err := Decode[in]([]byte(`{"session_id":"s","cwd":"/r"}`), "Codex CLI"); err != nil || v.SessionID != "s" || v.Cwd != "/r" {
		t.Errorf("Decode = %+v, %v", v, err)
	}
	if v, err := Decode[in]([]byte(`{"session_id":"s","cwd":1}`), "Codex CLI"); err == nil || v != (in{}) || !strings.Contains(err.Error(), "not the JSON Codex CLI sends") {
		t.Errorf("Decode of a bad input = %+v, %v; want the zero value and an error naming the host", v, err)
	}
}

// The answers in Claude Code's shape, byte for byte.
func TestHookAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event string
		r     Reply
		want  string
	}{
		{EventPreToolUse, Reply{Deny: true, Reason: "no"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{EventPreToolUse, Reply{Warn: true, Reason: "careful"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"careful"},"systemMessage":"careful"}`},
		{EventPreToolUse, Reply{}, `null`},
		{EventSessionStart, Reply{Context: "ctx"}, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}`},
		{EventPostToolUse, Reply{Context: "ctx"}, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ctx"}}`},
		{EventPreCompact, Reply{Context: "ctx"}, `null`},
		{EventStop, Reply{Nudge: "describe"}, `{"decision":"block","reason":"describe"}`},
		{EventStop, Reply{}, `null`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(HookAnswer(tt.event, tt.r))
		if err != nil || string(got) != tt.want {
			t.Errorf("HookAnswer(%s, %+v) = %s, %v; want %s", tt.event, tt.r, got, err, tt.want)
		}
	}
}

func TestRequireSession(t *testing.T) {
	t.Parallel()
	tests := []struct{ id, cwd, err string }{
		{"s", "/repo", ""},
		{"", "/repo", "Codex's hook input has no session_id"},
		{"s", "", `Codex's hook input cwd "" is not an absolute path`},
		{"s", "repo", `Codex's hook input cwd "repo" is not an absolute path`},
	}
	for _, tt := range tests {
		err := RequireSession("Codex's hook input", tt.id, tt.cwd)
		if got := fmt.Sprint(err); tt.err == "" && err != nil || tt.err != "" && got != tt.err {
			t.Errorf("RequireSession(%q, %q) = %v, want %q", tt.id, tt.cwd, err, tt.err)
		}
	}
}

// TestHookAnswerFailsClosedOnARewrite: a reply that may run only in the
// sandbox, reaching a host's answer that cannot write the rewrite, denies.
func TestHookAnswerFailsClosedOnARewrite(t *testing.T) {
	t.Parallel()
	a := HookAnswer(EventPreToolUse, Reply{Command: "'planq-sandbox' '--root' '/p' '--' 'ls'"})
	if a == nil || a.Specific == nil || a.Specific.PermissionDecision != "deny" || a.Specific.UpdatedInput != nil {
		t.Fatalf("HookAnswer with a Command = %+v, want a denial", a)
	}
}
