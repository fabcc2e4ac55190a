package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate"
)

func TestRuleJudges(t *testing.T) {
	t.Parallel()
	progs := map[string]bool{"git": true, "npm": true}
	for _, tt := range []struct {
		command string
		progs   map[string]bool
		want    bool
	}{
		{"git push", progs, true},
		{"cd x && /usr/bin/git log", progs, true},
		{`bash -c "npm publish"`, progs, true},
		{"echo gitk git-lfs", progs, false},
		{"ls", progs, false},
		{"git push", nil, false},
		{"ls", map[string]bool{"planq-hook": true}, true}, // every rewritten command starts with it
		{"ls", map[string]bool{"planq": true}, true},
		{"ls", map[string]bool{"planq-sandbox": true}, true},
	} {
		if got := RuleJudges(tt.command, tt.progs); got != tt.want {
			t.Errorf("RuleJudges(%q, %v) = %v, want %v", tt.command, tt.progs, got, tt.want)
		}
	}
}

func TestRewrittenInput(t *testing.T) {
	t.Parallel()
	shell := gate.Tool{Kind: gate.KindShell, Field: "command"}
	ev := Event{Host: Host{ToolPrefix: "planq_"}, Call: &Call{Tool: shell, Input: json.RawMessage(`{"command":"ls","workdir":"sub"}`)}}
	got, err := RewrittenInput(ev, "sandboxed 'ls'")
	var in map[string]string
	if err != nil || json.Unmarshal(got, &in) != nil || in["command"] != "sandboxed 'ls'" || in["workdir"] != "sub" || len(in) != 2 {
		t.Fatalf("RewrittenInput = %s, %v; want the command replaced and workdir kept", got, err)
	}
	for _, input := range []string{`{"cmd":"ls"}`, `{"command":""}`, `[]`} {
		ev.Call.Input = json.RawMessage(input)
		if _, err := RewrittenInput(ev, "x"); err == nil {
			t.Errorf("RewrittenInput of %s: no error", input)
		} else if r := RewriteFailed(ev, err); !r.Deny || !strings.Contains(r.Reason, "planq_jj_init") {
			t.Errorf("RewriteFailed = %+v, want a denial naming planq_jj_init", r)
		}
	}
}
