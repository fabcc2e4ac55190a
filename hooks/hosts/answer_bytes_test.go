package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
)

// Every adapter's hook answers, byte for byte: each reply the core gives,
// for each event, as the host reads it (testdata/answers.txt; -update
// rewrites it). The hosts that share Claude Code's answer shape share its
// code, and this keeps each one's bytes what they were.
func TestAnswerBytes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		label string
		ev    session.Event
		r     session.Reply
	}{
		{"deny", session.Event{Name: session.EventPreToolUse}, session.Reply{Deny: true, Reason: "planq gate: blocked <no change> & \"quoted\""}},
		{"warn", session.Event{Name: session.EventPreToolUse}, session.Reply{Warn: true, Reason: "planq gate (warn mode, allowed)"}},
		{"allow", session.Event{Name: session.EventPreToolUse}, session.Reply{}},
		{"context", session.Event{Name: session.EventSessionStart}, session.Reply{Context: "planq: ctx\nline two"}},
		{"subagent context", session.Event{Name: session.EventSessionStart, SessionID: "sub", ParentID: "main"}, session.Reply{Context: "planq: sub ctx"}},
		{"no context", session.Event{Name: session.EventSessionStart}, session.Reply{}},
		{"after a tool", session.Event{Name: session.EventPostToolUse}, session.Reply{Context: "planq: workspaces"}},
		{"nudge", session.Event{Name: session.EventStop}, session.Reply{Nudge: "planq: describe it"}},
		{"no nudge", session.Event{Name: session.EventStop}, session.Reply{}},
		{"compact", session.Event{Name: session.EventPreCompact}, session.Reply{Context: "planq: summary"}},
		{"end", session.Event{Name: session.EventSessionEnd}, session.Reply{}},
		{"workspace", session.Event{Name: session.EventWorktreeCreate}, session.Reply{Path: "/repo/.planq/workspaces/w"}},
		{"rewrite", session.Event{Name: session.EventPreToolUse, Call: shellCall(`{"command":"echo \"hi\" > x","description":"d","dir_path":"sub"}`)},
			session.Reply{Command: `'/opt/planq/bin/planq-hook' 'sandbox' '--root' '/repo' '--tool' 'planq_jj_init' '--' 'echo "hi" > x'`}},
		{"rewrite without a command", session.Event{Name: session.EventPreToolUse, Call: shellCall(`{"cmd":"ls"}`)},
			session.Reply{Command: `'/opt/planq/bin/planq-hook' 'sandbox' '--root' '/repo' '--' ''`}},
	}
	var out bytes.Buffer
	for _, a := range All() {
		for _, c := range cases {
			var b bytes.Buffer
			code, err := a.Protocol().Write(&b, c.ev, c.r)
			fmt.Fprintf(&out, "%s %s: exit %d, err %v\n%s", a.Host().Name, c.label, code, err, b.String())
		}
	}
	compareGolden(t, filepath.Join("testdata", "answers.txt"), out.Bytes())
}

// shellCall is a shell tool call with input, as every host's adapter reads
// one: its command in the field "command".
func shellCall(input string) *session.Call {
	return &session.Call{Name: "Bash", Tool: gate.Tool{Kind: gate.KindShell, Field: "command"}, Input: json.RawMessage(input)}
}
