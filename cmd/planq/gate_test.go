package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/internal/testenv"
)

func TestGateCheck(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)

	out, _, code := runIn(t, repo, "gate", "check", "--bash", "git status && rm -rf build")
	if code != exitGateDeny {
		t.Fatalf("modifying command while locked: exit %d\n%s", code, out)
	}
	for _, want := range []string{"verdict:  modifying", "part:     rm -rf build", "rm deletes files", "locked", "would deny", "mcp__planq__jj_init"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A read-only command runs in the OS sandbox while locked, where there
	// is one; the parser alone allows it elsewhere.
	out, _, code = runIn(t, repo, "gate", "check", "--bash", `grep -r "rm -rf" .`)
	want := "would allow"
	if sandbox.Detect().Available() {
		want = "would run it in the OS sandbox"
	}
	if code != 0 || !strings.Contains(out, "verdict:  read-only") || !strings.Contains(out, want) {
		t.Fatalf("read-only command: exit %d, want %q\n%s", code, want, out)
	}
	if sandbox.Detect().Available() {
		out, _, code = runIn(t, repo, "gate", "check", "--json", "--bash", `python3 -c "print(1)"`)
		var sj struct {
			Action   string
			Decision struct {
				Sandbox bool
				Command string
			}
		}
		if err := json.Unmarshal([]byte(out), &sj); err != nil || code != 0 || sj.Action != "sandbox" || !sj.Decision.Sandbox ||
			!strings.Contains(sj.Decision.Command, `'sandbox' '--root' '`+repo+`' '--tool' 'mcp__planq__jj_init' '--' 'python3 -c "print(1)"'`) {
			t.Fatalf("sandboxed --json: exit %d, %v, %+v\n%s", code, err, sj, out)
		}
	}

	out, _, code = runIn(t, repo, "gate", "check", "--tool", "Write", "--input", `{"file_path":"`+repo+`/a.go"}`, "--json")
	if code != exitGateDeny {
		t.Fatalf("Write --json: exit %d\n%s", code, out)
	}
	var j struct {
		Modifies bool   `json:"modifies"`
		Action   string `json:"action"`
		Verdict  struct{ Part, Reason string }
		State    *struct{ Locked bool }
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	if !j.Modifies || j.Action != "deny" || j.State == nil || !j.State.Locked || !strings.Contains(j.Verdict.Part, "a.go") {
		t.Errorf("--json: %+v", j)
	}

	testenv.Run(t, repo, "jj", "describe", "-m", "Declared work")
	out, _, code = runIn(t, repo, "gate", "check", "--bash", "rm -rf build")
	if code != 0 || !strings.Contains(out, "verdict:  modifying") || !strings.Contains(out, "unlocked") || !strings.Contains(out, "would allow") {
		t.Fatalf("modifying command once declared: exit %d\n%s", code, out)
	}
	// --locked judges as if nothing were declared, without reading jj.
	if out, _, code = runIn(t, repo, "gate", "check", "--locked", "--bash", "rm -rf build"); code != exitGateDeny || !strings.Contains(out, "assumed locked") {
		t.Fatalf("--locked: exit %d\n%s", code, out)
	}
	out, _, code = runIn(t, repo, "gate", "check", "--bash", "git reset --hard")
	if code != exitGateDeny || !strings.Contains(out, "jj restore") {
		t.Fatalf("git rewrite once declared: exit %d\n%s", code, out)
	}
}

func TestGateCheckUsageErrors(t *testing.T) {
	testenv.Isolate(t)
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"nothing":       {"gate", "check"},
		"both":          {"gate", "check", "--bash", "ls", "--tool", "Read"},
		"bad input":     {"gate", "check", "--tool", "Write", "--input", "{not json"},
		"array input":   {"gate", "check", "--tool", "Write", "--input", "[1]"},
		"input on bash": {"gate", "check", "--bash", "ls", "--input", "{}"},
		"missing repo":  {"gate", "check", "--bash", "ls", "--repo", dir + "/nope"},
	} {
		out, errs, code := runIn(t, dir, args...)
		if code != 1 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "planq: ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line", name, code, out, errs)
		}
	}
}

// gate check judges as the hook does: the project's state, the tool's
// working directory.
func TestGateCheckCwdAndProject(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	elsewhere := t.TempDir()
	// From another directory, --project alone judges a call made in the project.
	if out, _, code := runIn(t, elsewhere, "gate", "check", "--project", repo, "--bash", "git status"); code != 0 {
		t.Fatalf("--project alone: exit %d\n%s", code, out)
	}
	// A call made outside the project: git there would read another
	// repository's configuration.
	// The parser cannot tell what it does: it is denied, or runs in the
	// OS sandbox where there is one.
	out, _, code := runIn(t, repo, "gate", "check", "--cwd", elsewhere, "--bash", "git status")
	wantCode, wantText := exitGateDeny, "would deny"
	if sandbox.Detect().Available() {
		wantCode, wantText = 0, "would run it in the OS sandbox"
	}
	if code != wantCode || !strings.Contains(out, "working directory") || !strings.Contains(out, wantText) {
		t.Fatalf("--cwd outside the project: exit %d\n%s", code, out)
	}
	// Writing outside the project is allowed, inside denied.
	if out, _, code := runIn(t, repo, "gate", "check", "--bash", "echo hi > "+filepath.Join(elsewhere, "x")); code != 0 {
		t.Fatalf("write outside: exit %d\n%s", code, out)
	}
	if out, _, code := runIn(t, repo, "gate", "check", "--bash", "echo hi > x"); code != exitGateDeny {
		t.Fatalf("write inside: exit %d\n%s", code, out)
	}
	if _, errOut, code := runIn(t, repo, "gate", "check", "--cwd", filepath.Join(repo, "nope"), "--bash", "ls"); code != 1 || !strings.Contains(errOut, "--cwd") {
		t.Fatalf("missing --cwd: exit %d %s", code, errOut)
	}
}

// gateCall turns the flags into the call the hook would see, in the host's
// tool names.
func TestGateCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		o        gateCheckOptions
		wantName string
		wantKind gate.Kind
		wantErr  string
	}{
		{"bash", gateCheckOptions{Host: "claude", Bash: "ls", HasBash: true}, "Bash", gate.KindShell, ""},
		{"empty bash is still bash", gateCheckOptions{Host: "claude", HasBash: true}, "Bash", gate.KindShell, ""},
		{"claude write", gateCheckOptions{Host: "claude", Tool: "Write", Input: `{"file_path":"a"}`}, "Write", gate.KindEditor, ""},
		{"gemini shell tool", gateCheckOptions{Host: "gemini", Tool: "run_shell_command"}, "run_shell_command", gate.KindShell, ""},
		{"both", gateCheckOptions{Host: "claude", Bash: "ls", HasBash: true, Tool: "Read"}, "", "", "not both"},
		{"input with bash", gateCheckOptions{Host: "claude", HasBash: true, Input: "{}"}, "", "", "--input goes with --tool"},
		{"not an object", gateCheckOptions{Host: "claude", Tool: "Write", Input: "[1]"}, "", "", "not a JSON object"},
		{"nothing", gateCheckOptions{Host: "claude"}, "", "", "nothing to check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ad, err := hosts.Lookup(tt.o.Host)
			if err != nil {
				t.Fatal(err)
			}
			call, err := gateCall(ad, &tt.o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || call.Name != tt.wantName || call.Tool.Kind != tt.wantKind {
				t.Fatalf("call %s (kind %v), err %v; want %s (kind %v)", call.Name, call.Tool.Kind, err, tt.wantName, tt.wantKind)
			}
		})
	}
}
