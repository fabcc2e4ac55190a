package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
)

func TestMatchRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule, cmd string
		want      bool
	}{
		{"Bash", "rm -rf /", true},
		{"Bash(*)", "anything at all", true},
		{"Bash(npm test)", "npm test", true},
		{"Bash(npm test)", "npm test -- -u", false},
		{"Bash(npm run:*)", "npm run build", true},
		{"Bash(npm run:*)", "npm run", true},
		{"Bash(npm run:*)", "npm runx", false},
		{"Bash(git * main)", "git push origin main", true},
		{"Bash(git * main)", "git push origin dev", false},
		{"Bash(ls *)", "ls", true},
		{"Bash(ls *)", "ls -la", true},
		{"Bash(python3:*)", "python3 -c 'print(1)'", true},
		{"Read(./x)", "cat x", false},
		{"Bashful", "ls", false},
	}
	for _, tt := range tests {
		if got := matchRule(tt.rule, tt.cmd); got != tt.want {
			t.Errorf("matchRule(%q, %q) = %v, want %v", tt.rule, tt.cmd, got, tt.want)
		}
	}
}

// TestApprovalOf reads the rules from every settings file Claude Code reads
// and judges the original command the way Claude Code orders them: deny,
// then ask, then allow (every part of a compound command must be allowed).
func TestApprovalOf(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	write := func(path string, perms map[string][]string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(map[string]any{"permissions": perms, "model": "x"})
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), map[string][]string{"allow": {"Bash(python3:*)", "Bash(git status)"}, "deny": {"Bash(curl:*)"}})
	write(filepath.Join(proj, ".claude", "settings.json"), map[string][]string{"ask": {"Bash(python3 -c:*)"}})
	write(filepath.Join(proj, ".claude", "settings.local.json"), map[string][]string{"allow": {"Bash(ls:*)", "Read"}})
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	if got := approvalOf("ls -la", proj, getenv); got.decision != "" {
		t.Errorf("an untrusted project's own allow rule: %+v, want no decision", got)
	}
	trust, _ := json.Marshal(map[string]any{"projects": map[string]any{filepath.Dir(proj): map[string]bool{"hasTrustDialogAccepted": true}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), trust, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd, decision string
	}{
		{"python3 script.py", "allow"},
		{"python3 -c 'print(1)'", "ask"},  // ask beats allow
		{"ls && curl https://x", "deny"},  // any part denied
		{"git status && ls -la", "allow"}, // every part allowed
		{"git status && make", ""},        // make has no rule: the mode decides
		{"ls > listing.txt", ""},          // a redirection to a file: Claude Code asks on its own
		{"ls $(cat names)", ""},           // a substitution: not plain
		{"echo 'curl x'", ""},             // text, not a command
		{"FOO=1 curl https://x", "deny"},  // assignments in front are dropped
		{"bash -c 'ls' | curl -d @- https://x", "deny"},
	}
	for _, tt := range tests {
		if got := approvalOf(tt.cmd, proj, getenv); got.decision != tt.decision {
			t.Errorf("approvalOf(%q) = %+v, want %q", tt.cmd, got, tt.decision)
		}
	}
	// CLAUDE_CONFIG_DIR replaces ~/.claude.
	cfg := t.TempDir()
	write(filepath.Join(cfg, "settings.json"), map[string][]string{"deny": {"Bash(python3:*)"}})
	env["CLAUDE_CONFIG_DIR"] = cfg
	if got := approvalOf("python3 script.py", proj, getenv); got.decision != "deny" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %+v, want deny", got)
	}
}

func TestRulesFromArgs(t *testing.T) {
	t.Parallel()
	settings := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(settings, []byte(`{"permissions":{"ask":["Bash(make:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := rulesFromArgs([]string{"-p", "hi", "--allowedTools", "Bash(git log:*),Read", "Edit", "--output-format", "json",
		"--disallowed-tools=Bash(rm:*) Bash(curl:*)", "--settings", settings, "--settings", `{"permissions":{"deny":["Bash(ssh:*)"]}}`})
	want := permissions{Allow: []string{"Bash(git log:*)", "Read", "Edit"}, Deny: []string{"Bash(rm:*)", "Bash(curl:*)", "Bash(ssh:*)"}, Ask: []string{"Bash(make:*)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rulesFromArgs = %+v\nwant %+v", got, want)
	}
}

// TestRewriteToolUse: the answer hands back the whole input with the
// command replaced, and the decision the user's rules give the original.
func TestRewriteToolUse(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"permissions":{"allow":["Bash(ls:*)"],"deny":["Bash(curl:*)"],"ask":["Bash(make:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	trust, _ := json.Marshal(map[string]any{"projects": map[string]any{proj: map[string]bool{"hasTrustDialogAccepted": true}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), trust, 0o644); err != nil {
		t.Fatal(err)
	}
	ev := func(cmd, mode string) session.Event {
		in, _ := json.Marshal(map[string]any{"command": cmd, "description": "d", "timeout": 5000})
		return session.Event{Name: session.EventPreToolUse, ProjectDir: proj, Cwd: proj, PermissionMode: mode,
			Call: &session.Call{Name: "Bash", Tool: gate.Tool{Kind: gate.KindShell, Field: "command"}, Input: in}}
	}
	const rewritten = "'/x/planq-hook' 'sandbox' '--root' '/p' '--' 'ls'"
	for _, tt := range []struct {
		cmd, mode, decision string
	}{
		{"ls -la", "default", "allow"},
		{"make test", "bypassPermissions", "ask"},
		{"python3 -c 'print(1)'", "default", ""},
		{"python3 -c 'print(1)'", "bypassPermissions", ""},
		{"python3 -c 'print(1)'", "auto", ""},
	} {
		r := RewriteToolUse(ev(tt.cmd, tt.mode), rewritten, getenv)
		if r.Specific == nil || r.Specific.PermissionDecision != tt.decision {
			t.Fatalf("%q (%s): %+v, want decision %q", tt.cmd, tt.mode, r.Specific, tt.decision)
		}
		var in map[string]any
		if err := json.Unmarshal(r.Specific.UpdatedInput, &in); err != nil {
			t.Fatal(err)
		}
		if in["command"] != rewritten || in["description"] != "d" || in["timeout"] != float64(5000) {
			t.Errorf("%q: updatedInput = %v, want the command replaced and the rest kept", tt.cmd, in)
		}
	}
	r := RewriteToolUse(ev("curl https://example.com", "bypassPermissions"), rewritten, getenv)
	if r.Specific == nil || r.Specific.PermissionDecision != "deny" || r.Specific.UpdatedInput != nil || !strings.Contains(r.Specific.PermissionDecisionReason, "Bash(curl:*)") {
		t.Errorf("denied original: %+v, want a denial naming the rule", r.Specific)
	}
}
