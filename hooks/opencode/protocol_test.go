package opencode

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate"
)

func TestReadPayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     Payload
		err      string
	}{
		{name: "pre-tool-use",
			in:   `{"tool":"write","sessionID":"ses_1","callID":"c1","args":{"filePath":"/p/a"},"parentID":"ses_0","directory":"/p"}`,
			want: Payload{Tool: "write", SessionID: "ses_1", CallID: "c1", Args: json.RawMessage(`{"filePath":"/p/a"}`), ParentID: "ses_0", Directory: "/p"}},
		{name: "unknown fields are ignored", in: ` {"sessionID":"s","directory":"/p","later":{"x":1}}` + "\n",
			want: Payload{SessionID: "s", Directory: "/p"}},
		{name: "empty", in: " \n", err: "no input on stdin"},
		{name: "array", in: `[{"sessionID":"s"}]`, err: `not a JSON object (it starts with '[')`},
		{name: "trailing data", in: `{"sessionID":"s"} {}`, err: "data after its JSON object"},
		{name: "two objects glued", in: `{"sessionID":"s"}{"sessionID":"t"}`, err: "data after its JSON object"},
		{name: "truncated", in: `{"sessionID":"s",`, err: "malformed"},
		{name: "duplicate key", in: `{"sessionID":"s","tool":"read","tool":"bash"}`, err: `key "tool" appears twice`},
		{name: "case-folded key", in: `{"sessionID":"s","Tool":"bash"}`, err: `key "Tool" should be spelled "tool"`},
		{name: "wrong type", in: `{"sessionID":7}`, err: "malformed"},
		{name: "too big", in: `{"sessionID":"` + strings.Repeat("x", MaxPayload) + `"}`, err: "larger than 32 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadPayload(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(tt.want)
			if !bytes.Equal(gb, wb) {
				t.Errorf("got %s\nwant %s", gb, wb)
			}
		})
	}
}

func TestPayloadCheck(t *testing.T) {
	t.Parallel()
	base := Payload{SessionID: "s", Directory: "/p"}
	tool := base
	tool.Tool, tool.CallID, tool.Args = "bash", "c", json.RawMessage(`{"command":"ls"}`)
	with := func(f func(*Payload)) Payload { p := base; f(&p); return p }
	tests := []struct {
		event string
		p     Payload
		err   string
	}{
		{EventPreToolUse, tool, ""},
		{EventPostToolUse, tool, ""},
		{EventPreToolUse, base, "lacks tool, callID, args (an object)"},
		{EventPreToolUse, with(func(p *Payload) { *p = tool; p.Args = json.RawMessage(`"ls"`) }), "args (an object)"},
		{EventSessionStart, with(func(p *Payload) { p.Source = SourceCompact }), ""},
		{EventSessionStart, with(func(p *Payload) { p.Source = "clear" }), "source (startup, resume or compact)"},
		{EventStop, with(func(p *Payload) { p.Messages = json.RawMessage(` []`) }), ""},
		{EventPreCompact, base, "messages (an array)"},
		{EventSessionEnd, with(func(p *Payload) { p.Reason = "deleted" }), ""},
		{EventSessionEnd, Payload{}, "lacks sessionID, directory"},
		{"user-prompt-submit", base, `unknown OpenCode hook event "user-prompt-submit"`},
	}
	for _, tt := range tests {
		err := tt.p.Check(tt.event)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s %+v: err = %v, want %q", tt.event, tt.p, err, tt.err)
		}
	}
}

func TestWriteReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		r    Reply
		want string
	}{
		{Reply{}, ""},
		{Deny("call planq_jj_init first"), `{"decision":"deny","reason":"call planq_jj_init first"}` + "\n"},
		{Allow(""), `{"decision":"allow"}` + "\n"},
		{Allow("careful"), `{"decision":"allow","warning":"careful"}` + "\n"},
		{Reply{Context: "a <b> & c"}, `{"context":"a \u003cb\u003e \u0026 c"}` + "\n"},
		{Reply{Nudge: "describe"}, `{"nudge":"describe"}` + "\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WriteReply(&b, tt.r); err != nil || b.String() != tt.want {
			t.Errorf("WriteReply(%+v) = %q, %v; want %q", tt.r, b.String(), err, tt.want)
		}
	}
}

func TestGateTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want gate.Tool
	}{
		{"bash", gate.Tool{Kind: gate.KindShell, Field: "command"}},
		{"write", gate.Tool{Kind: gate.KindEditor, Field: "filePath"}},
		{"edit", gate.Tool{Kind: gate.KindEditor, Field: "filePath"}},
		{"multiedit", gate.Tool{}}, // edits[] name their own files: unknown, held back
		{"apply_patch", gate.Tool{Kind: gate.KindPatch, Field: "patchText"}},
		{"patch", gate.Tool{Kind: gate.KindPatch, Field: "patchText"}},
		{"read", gate.Tool{Kind: gate.KindReadOnly}},
		{"task", gate.Tool{Kind: gate.KindReadOnly}},
		{"todowrite", gate.Tool{Kind: gate.KindReadOnly}},
		{"execute", gate.Tool{Kind: gate.KindReadOnly}},
		{"planq_jj_init", gate.Tool{Kind: gate.KindMCP, Server: "planq", MCPTool: "jj_init"}},
		{"planq_", gate.Tool{}},
		{"github_create_pull_request", gate.Tool{}},
		{"Bash", gate.Tool{}},
		{"", gate.Tool{}},
	}
	for _, tt := range tests {
		if got := GateTool(tt.name); got != tt.want {
			t.Errorf("GateTool(%q) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	for name, tool := range tools {
		if (tool.Kind == gate.KindReadOnly) != (tool.Field == "") {
			t.Errorf("tool %q: kind %q with field %q", name, tool.Kind, tool.Field)
		}
		if strings.HasPrefix(name, ToolPrefix) {
			t.Errorf("tool %q looks like one of planq's own", name)
		}
	}
}
