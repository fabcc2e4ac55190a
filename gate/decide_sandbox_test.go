package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/config"
)

// TestSure: the gate is sure a command modifies only when it sees a write
// into the project; what it merely cannot see into (code given to an
// interpreter, a program it does not know, make) modifies without being
// sure, so that a locked call of it may run in the OS sandbox instead.
func TestSure(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := Where{Root: root, Cwd: root, Getenv: func(k string) string {
		return map[string]string{"HOME": "/nonexistent-home", "PATH": "/usr/bin:/bin", "CODEX_HOME": "/tmp/planq-sure-test-codex"}[k]
	}}
	tests := []struct {
		cmd            string
		modifies, sure bool
	}{
		{"rm -rf build", true, true},
		{"sed -i s/a/b/ notes.txt", true, true},
		{"sed -i -e s/a/b/ notes.txt", true, true},
		{"echo x > out.txt", true, true},
		{"git status && echo x >> " + filepath.Join(root, "log.txt"), true, true},
		{"ls | tee files.txt", true, true},
		{"sort -o sorted.txt in.txt", true, true},
		{"touch a b", true, true},
		{"python3 -c 'print(1)' && rm -f x", true, true}, // the sure part decides
		{`python3 -c "open('x','w')"`, true, false},
		{"make", true, false},
		{"some-unknown-tool --flag", true, false},
		{"echo x > $OUT", true, false},
		{"cd sub && rm x", true, false}, // after a cd, relative paths are not seen for sure
		{"rm -rf /tmp/planq-sure-test-x", false, false},
		{"cat notes.txt", false, false},
		// Describing a change other than @ rewrites it; it is not the
		// declaration, which runs outside the sandbox (issue #21's jj
		// describe -r @-, let through by the parser-only gate before).
		{"jj describe -r @- -m x", true, true},
		{"jj new -m x -B @", true, true},
		// An agent host's home set outside the project (its hooks, the
		// gate's among them) is a place code is loaded from.
		{"echo '{}' > /tmp/planq-sure-test-codex/hooks.json", true, false},
		{"echo '{}' > /tmp/planq-sure-test-other/hooks.json", false, false},
	}
	for _, tt := range tests {
		v := AnalyzeBashAt(tt.cmd, DefaultPolicy(), w)
		if v.Modifies != tt.modifies || v.Sure != tt.sure {
			t.Errorf("%q: modifies=%v sure=%v, want %v %v (%s: %s)", tt.cmd, v.Modifies, v.Sure, tt.modifies, tt.sure, v.Part, v.Reason)
		}
	}
}

// TestDeclares: the by-hand declarations of the change are marked, so they
// run outside the sandbox; a jj command that is not one, or one beside
// other commands, is not.
func TestDeclares(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	w := Where{Root: root, Cwd: root}
	tests := []struct {
		cmd      string
		declares bool
	}{
		{`jj describe -m "Fix the pager"`, true},
		{`jj desc -r @ -m "Fix"`, true},
		{`jj new -m "Next step"`, true},
		{`jj commit -m "Done"`, true},
		{`jj git init`, true},
		{`cd ` + root + ` && jj describe -m "x" && jj st`, true},
		{`jj describe -r @- -m "x"`, false},
		{`jj describe`, false},
		{`jj new`, false},
		{`jj new -m x --no-edit`, false},
		// Inserted before @, the new change is checked out without @'s
		// files: they leave the working copy (seen with jj 0.46).
		{`jj new -m x -B @`, false},
		{`jj new -m x --insert-before @`, false},
		{`jj new -m x --before=@`, false},
		{`jj new -m x -A @`, true},
		{`jj new -m x -o @`, true},
		{`jj describe -m x; cat notes.txt`, false},
		{`jj log`, false},
	}
	for _, tt := range tests {
		if v := AnalyzeBashAt(tt.cmd, DefaultPolicy(), w); v.Declares != tt.declares {
			t.Errorf("%q: declares=%v, want %v (%+v)", tt.cmd, v.Declares, tt.declares, v)
		}
	}
}

// TestSandboxed: with the sandbox at hand, a locked shell call the gate is
// not sure of runs sandboxed; a sure one, git behind jj's back and the
// declarations keep the parser's decision, and nothing is sandboxed once
// the change is declared.
func TestSandboxed(t *testing.T) {
	t.Parallel()
	locked := Status{IsJJRepo: true, Locked: true, ChangeID: "qpvuntsmwlqt"}
	declared := Status{IsJJRepo: true, ChangeID: "qpvuntsmwlqt", Description: "Fix"}
	pol := DefaultPolicy()
	readOnly := Verdict{Reason: "read-only: cat", Rule: RuleShell}
	unsure := Verdict{Modifies: true, Part: "python3 -c …", Reason: "runs code"}
	sure := Verdict{Modifies: true, Sure: true, Part: "rm -rf build", Reason: "rm deletes files"}
	gitRewrite := Verdict{Git: &GitRewrite{Part: "git commit", Command: "git commit", JJ: "jj commit"}}
	declaring := Verdict{Declares: true, Reason: "read-only: jj", Rule: RuleShell}
	tests := []struct {
		name     string
		v        Verdict
		st       Status
		stErr    error
		sandbox  bool
		allow    bool
		wantRule string
	}{
		{"read-only, locked", readOnly, locked, nil, true, true, RuleSandbox},
		{"unsure, locked", unsure, locked, nil, true, true, RuleSandbox},
		{"unsure, state unreadable", unsure, Status{}, os.ErrPermission, true, true, RuleSandbox},
		{"sure, locked", sure, locked, nil, false, false, RuleLocked},
		{"git, locked", gitRewrite, locked, nil, false, false, RuleGit},
		{"declaring, locked", declaring, locked, nil, false, true, RuleShell},
		{"read-only, declared", readOnly, declared, nil, false, true, RuleShell},
		{"unsure, declared", unsure, declared, nil, false, true, RuleDeclared},
	}
	for _, tt := range tests {
		d := Sandboxed(Decide("Bash", tt.v, tt.st, tt.stErr, pol, nil), tt.v, tt.st, tt.stErr)
		if d.Sandbox != tt.sandbox || d.Allow != tt.allow || d.Rule != tt.wantRule {
			t.Errorf("%s: %+v, want sandbox=%v allow=%v rule=%s", tt.name, d, tt.sandbox, tt.allow, tt.wantRule)
		}
	}
}

// TestEvaluateSandbox drives Evaluate against a real jj repository: a
// locked read-only or unknown shell call is rewritten to the entry point
// (the project's root and jj_init named, the original quoted whole), a
// sure one is denied, an editor write is denied as before, and once @ is
// described nothing is rewritten. Without a sandbox entry (a host that
// cannot rewrite) the gate is the parser alone.
func TestEvaluateSandbox(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	entry := []string{"/opt/planq/planq-hook", "sandbox"}
	opt := EvalOptions{ProjectDir: repo, SandboxEntry: entry, PlanqTool: func(t string) string { return "planq_" + t }}

	ev := Evaluate(ctx, bash(`cat notes.txt; echo "it's done"`), repo, opt)
	want := `'/opt/planq/planq-hook' 'sandbox' '--root' '` + repo + `' '--tool' 'planq_jj_init' '--' 'cat notes.txt; echo "it'\''s done"'`
	if d := ev.Decision; !d.Allow || !d.Sandbox || d.Rule != RuleSandbox || d.Command != want {
		t.Fatalf("locked read-only call: %+v\nwant the command %s", d, want)
	}
	if d := Evaluate(ctx, bash(`python3 -c "open('x','w')"`), repo, opt).Decision; !d.Sandbox {
		t.Errorf("locked unknown call: %+v, want it sandboxed", d)
	}
	if d := Evaluate(ctx, bash("rm -rf build"), repo, opt).Decision; d.Allow || d.Sandbox || d.Rule != RuleLocked || !strings.Contains(d.Message, "planq_jj_init") {
		t.Errorf("locked sure call: %+v, want it denied naming planq_jj_init", d)
	}
	write := ToolCall{Name: "Write", Tool: Tool{Kind: KindEditor, Field: "file_path"}, Input: json.RawMessage(`{"file_path":"a.txt"}`)}
	if d := Evaluate(ctx, write, repo, opt).Decision; d.Allow || d.Sandbox {
		t.Errorf("locked editor write: %+v, want it denied", d)
	}
	if d := Evaluate(ctx, bash(`jj describe -m "Fix the pager"`), repo, opt).Decision; !d.Allow || d.Sandbox {
		t.Errorf("declaring: %+v, want it allowed unsandboxed", d)
	}
	noEntry := opt
	noEntry.SandboxEntry = nil
	if d := Evaluate(ctx, bash(`python3 -c "print(1)"`), repo, noEntry).Decision; d.Allow || d.Sandbox {
		t.Errorf("no sandbox: %+v, want the parser's denial", d)
	}

	// Outside a jj repository, jj_git_init comes first.
	plain := t.TempDir()
	optPlain := opt
	optPlain.ProjectDir = plain
	if d := Evaluate(ctx, bash("ls"), plain, optPlain).Decision; !d.Sandbox || !strings.Contains(d.Command, `'--tool' 'planq_jj_git_init' '--tool' 'planq_jj_init'`) {
		t.Errorf("not a jj repo: %+v, want jj_git_init then jj_init named", d)
	}

	runJJ(t, repo, "describe", "-m", "Fix the pager")
	if d := Evaluate(ctx, bash(`python3 -c "print(1)"`), repo, opt).Decision; !d.Allow || d.Sandbox || d.Rule != RuleDeclared {
		t.Errorf("declared: %+v, want it allowed unsandboxed", d)
	}
	if d := Evaluate(ctx, bash("cat notes.txt"), repo, opt).Decision; !d.Allow || d.Sandbox {
		t.Errorf("declared read-only: %+v, want it allowed unsandboxed", d)
	}
}

// TestEvaluateSandboxWarnMode: warn and off modes never sandbox.
func TestEvaluateSandboxWarnMode(t *testing.T) {
	jjEnv(t)
	repo := newRepo(t)
	for _, mode := range []string{config.ModeWarn, config.ModeOff} {
		if err := os.MkdirAll(filepath.Join(repo, ".planq"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, ".planq", "config.yaml"), []byte("gate:\n  mode: "+mode+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in, _ := json.Marshal(map[string]string{"command": `python3 -c "print(1)"`})
		ev := Evaluate(context.Background(), ToolCall{Name: "Bash", Tool: Tool{Kind: KindShell, Field: "command"}, Input: in}, repo,
			EvalOptions{ProjectDir: repo, SandboxEntry: []string{"/x/planq-hook", "sandbox"}})
		if d := ev.Decision; !d.Allow || d.Sandbox {
			t.Errorf("gate.mode %s: %+v, want it allowed unsandboxed", mode, d)
		}
	}
}

// TestSandboxSwitch: PLANQ_SANDBOX=off in the hook's environment, or
// gate.sandbox: off in the project's configuration, keeps the parser-only
// gate where the host and the machine offer the sandbox: a command the
// parser cannot judge is denied, a read-only one allowed as it is, and
// the evaluation says why. Any other value of PLANQ_SANDBOX leaves the
// sandbox on.
func TestSandboxSwitch(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	opt := func(v string) EvalOptions {
		return EvalOptions{ProjectDir: repo, SandboxEntry: []string{"/x/planq-sandbox"}, Getenv: sandboxEnv(v)}
	}
	for _, v := range []string{"", "on", "yes", "0"} {
		if ev := Evaluate(ctx, bash(`python3 -c "print(1)"`), repo, opt(v)); !ev.Decision.Sandbox || ev.SandboxOff != "" {
			t.Errorf("PLANQ_SANDBOX=%q: %+v (%q), want the sandbox", v, ev.Decision, ev.SandboxOff)
		}
	}
	check := func(name string, o EvalOptions, why string) {
		t.Helper()
		ev := Evaluate(ctx, bash(`python3 -c "print(1)"`), repo, o)
		if d := ev.Decision; d.Allow || d.Sandbox || d.Rule != RuleLocked || !strings.Contains(ev.SandboxOff, why) {
			t.Errorf("%s, unknown command: %+v (off: %q), want the parser's denial and %q", name, d, ev.SandboxOff, why)
		}
		ev = Evaluate(ctx, bash(`cat notes.txt`), repo, o)
		if d := ev.Decision; !d.Allow || d.Sandbox || d.Command != "" {
			t.Errorf("%s, read-only command: %+v, want it allowed as it is", name, d)
		}
		if got := SandboxOff(o.Getenv, LoadProject(repo).Policy); got != ev.SandboxOff {
			t.Errorf("%s: SandboxOff = %q, the evaluation says %q", name, got, ev.SandboxOff)
		}
	}
	check("PLANQ_SANDBOX=off", opt("off"), "PLANQ_SANDBOX=off in the hook's environment")
	check("PLANQ_SANDBOX=OFF", opt(" OFF "), "PLANQ_SANDBOX=off")

	if err := os.MkdirAll(filepath.Join(repo, ".planq"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".planq", "config.yaml"), []byte("gate:\n  sandbox: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("gate.sandbox: off", opt(""), "gate.sandbox: off in .planq/config.yaml")
	// A host or machine without the sandbox has nothing to turn off.
	if ev := Evaluate(ctx, bash("ls"), repo, EvalOptions{ProjectDir: repo, Getenv: sandboxEnv("off")}); ev.SandboxOff != "" {
		t.Errorf("no sandbox entry: SandboxOff = %q, want none", ev.SandboxOff)
	}
}

// TestLeaveUnsandboxed: the host's veto is asked about a call only when
// the call would otherwise run in the sandbox (so a host adapter reads its
// rule files only then), and a veto gives the parser-only decision.
func TestLeaveUnsandboxed(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	asked := 0
	veto := true
	opt := EvalOptions{ProjectDir: repo, SandboxEntry: []string{"/x/planq-sandbox"}, LeaveUnsandboxed: func() bool { asked++; return veto }}
	for _, cmd := range []string{"rm -rf build", `jj describe -m "Fix"`} {
		asked = 0
		if Evaluate(ctx, bash(cmd), repo, opt); asked != 0 {
			t.Errorf("%s: the veto was asked %d times, want never (the call is not sandboxed)", cmd, asked)
		}
	}
	asked = 0
	if d := Evaluate(ctx, bash(`python3 -c "print(1)"`), repo, opt).Decision; asked != 1 || d.Allow || d.Sandbox || d.Rule != RuleLocked {
		t.Errorf("vetoed: asked %d, %+v; want asked once and the parser's denial", asked, d)
	}
	if d := Evaluate(ctx, bash("cat notes.txt"), repo, opt).Decision; !d.Allow || d.Sandbox || d.Command != "" {
		t.Errorf("vetoed read-only: %+v; want it allowed as it is", d)
	}
	veto = false
	if d := Evaluate(ctx, bash("cat notes.txt"), repo, opt).Decision; !d.Sandbox {
		t.Errorf("not vetoed: %+v; want the sandbox", d)
	}
	runJJ(t, repo, "describe", "-m", "Fix the pager")
	asked = 0
	if Evaluate(ctx, bash(`python3 -c "print(1)"`), repo, opt); asked != 0 {
		t.Errorf("declared: the veto was asked %d times, want never", asked)
	}
}

// TestSandboxCannotBeTurnedOffFromALockedCommand: only the hook's own
// environment and the project's configuration turn the sandbox off. A
// locked command that sets PLANQ_SANDBOX for itself still runs in the
// sandbox; one that writes the configuration is denied without running
// (and the kernel holds the project anyway); and a configuration that a
// symbolic link puts outside the project, where a sandboxed command may
// write, is not trusted: the gate keeps its defaults, sandbox on, and
// denies what modifies.
func TestSandboxCannotBeTurnedOffFromALockedCommand(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	opt := EvalOptions{ProjectDir: repo, SandboxEntry: []string{"/x/planq-sandbox"}, Getenv: sandboxEnv("")}
	for _, cmd := range []string{
		`PLANQ_SANDBOX=off python3 -c "print(1)"`,
		`export PLANQ_SANDBOX=off; python3 -c "print(1)"`,
		`env PLANQ_SANDBOX=off python3 -c "print(1)"`,
		`declare -x PLANQ_SANDBOX=off && python3 -c "print(1)"`,
	} {
		if ev := Evaluate(ctx, bash(cmd), repo, opt); !ev.Decision.Sandbox || ev.SandboxOff != "" {
			t.Errorf("%s: %+v (off: %q), want it run in the sandbox", cmd, ev.Decision, ev.SandboxOff)
		}
	}
	for _, cmd := range []string{
		`mkdir -p .planq && printf 'gate:\n  sandbox: off\n' > .planq/config.yaml`,
		`echo 'gate: {mode: off}' >> .planq/config.yaml`,
	} {
		if d := Evaluate(ctx, bash(cmd), repo, opt).Decision; d.Allow || d.Sandbox {
			t.Errorf("%s: %+v, want it denied without running", cmd, d)
		}
	}

	outside := t.TempDir() // a temporary directory: writable from the sandbox
	if err := os.WriteFile(filepath.Join(outside, "config.yaml"), []byte("gate:\n  sandbox: off\n  mode: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, link := range []struct{ path, target string }{
		{filepath.Join(repo, ".planq"), outside},
		{filepath.Join(repo, ".planq", "config.yaml"), filepath.Join(outside, "config.yaml")},
	} {
		os.RemoveAll(filepath.Join(repo, ".planq"))
		if err := os.MkdirAll(filepath.Dir(link.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(link.target, link.path); err != nil {
			t.Fatal(err)
		}
		p := LoadProject(repo)
		if p.Err == nil || !strings.Contains(p.Err.Error(), "outside the project") || p.Policy.SandboxOff || p.Policy.Mode != config.ModeStrict {
			t.Errorf("%s -> %s: err %v, policy %+v; want the link refused and the defaults kept", link.path, link.target, p.Err, p.Policy)
		}
		if ev := Evaluate(ctx, bash(`python3 -c "print(1)"`), repo, opt); ev.SandboxOff != "" || ev.Decision.Allow && !ev.Decision.Sandbox {
			t.Errorf("%s -> %s: %+v (off: %q), want no unsandboxed run", link.path, link.target, ev.Decision, ev.SandboxOff)
		}
		if d := Evaluate(ctx, bash("rm -rf build"), repo, opt).Decision; d.Allow {
			t.Errorf("%s -> %s: rm -rf build allowed: %+v", link.path, link.target, d)
		}
	}
	// A link that stays in the project is the project's own file.
	os.RemoveAll(filepath.Join(repo, ".planq"))
	if err := os.MkdirAll(filepath.Join(repo, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "conf", "planq.yaml"), []byte("gate:\n  sandbox: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "conf"), filepath.Join(repo, ".planq")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(repo, "conf", "planq.yaml"), filepath.Join(repo, "conf", "config.yaml")); err != nil {
		t.Fatal(err)
	}
	if p := LoadProject(repo); p.Err != nil || !p.Policy.SandboxOff {
		t.Errorf("a link inside the project: err %v, policy %+v; want it read", p.Err, p.Policy)
	}
}

// bash is a Bash tool call of cmd, as Claude Code makes it.
func bash(cmd string) ToolCall {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return ToolCall{Name: "Bash", Tool: Tool{Kind: KindShell, Field: "command"}, Input: in}
}

// sandboxEnv is this process's environment with PLANQ_SANDBOX set to v.
func sandboxEnv(v string) func(string) string {
	return func(k string) string {
		if k == SandboxEnv {
			return v
		}
		return os.Getenv(k)
	}
}
