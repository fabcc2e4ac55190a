package conffile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestMergeHook(t *testing.T) {
	t.Parallel()
	doc, err := Parse([]byte(`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"mine"},{"type":"command","command":"planq old"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	entry := NewObject()
	entry.Set("type", "command")
	entry.Set("command", "planq new")
	spec := HookSpec{Event: "PreToolUse", Matcher: "Bash", Entry: entry, IsPlanq: func(e *Object) bool {
		c, _ := e.Get("command")
		s, _ := c.(string)
		return strings.HasPrefix(s, "planq ")
	}}
	for range 2 { // idempotent
		if err := MergeHook(doc, spec, false, "f"); err != nil {
			t.Fatal(err)
		}
		if got := string(Encode(doc)); !strings.Contains(got, `"mine"`) || !strings.Contains(got, `"planq new"`) || strings.Contains(got, "planq old") || strings.Count(got, "planq") != 1 {
			t.Fatalf("after merge: %s", got)
		}
	}
	if err := MergeHook(doc, spec, true, "f"); err != nil {
		t.Fatal(err)
	}
	if got := string(Encode(doc)); strings.Contains(got, "planq") || !strings.Contains(got, `"mine"`) {
		t.Errorf("after removal: %s", got)
	}
	if _, ok := FindHook(doc, spec); ok {
		t.Error("FindHook found planq's hook after its removal")
	}
}

// With Own, planq's entry stands alone in its own group: one already so
// is left where it is, any other is taken out and its group appended last.
func TestMergeHookOwn(t *testing.T) {
	t.Parallel()
	h := Hook{Event: "Stop", Subcommand: "stop", Timeout: 30}
	o := Options{Exe: "/bin/planq"}
	spec := h.Spec(h.Entry(o, "codex"), "codex", "")
	spec.Own = true
	tests := []struct{ name, in, want string }{
		{"kept", `{"Stop":[{"hooks":[{"type":"command","command":"/bin/planq hook stop --host codex","timeout":30}]},{"hooks":[{"command":"mine"}]}]}`,
			`{"Stop":[{"hooks":[{"type":"command","command":"/bin/planq hook stop --host codex","timeout":30}]},{"hooks":[{"command":"mine"}]}]}`},
		{"outdated", `{"Stop":[{"hooks":[{"type":"command","command":"/old/planq hook stop --host codex","timeout":30}]},{"hooks":[{"command":"mine"}]}]}`,
			`{"Stop":[{"hooks":[{"command":"mine"}]},{"hooks":[{"type":"command","command":"/bin/planq hook stop --host codex","timeout":30}]}]}`},
		{"shared", `{"Stop":[{"hooks":[{"command":"mine"},{"type":"command","command":"/bin/planq hook stop --host codex","timeout":30}]}]}`,
			`{"Stop":[{"hooks":[{"command":"mine"}]},{"hooks":[{"type":"command","command":"/bin/planq hook stop --host codex","timeout":30}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if err := MergeHook(doc, spec, false, "f"); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := json.Compact(&b, Encode(doc)); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("MergeHook = %s\nwant %s", got, tt.want)
			}
		})
	}
}
