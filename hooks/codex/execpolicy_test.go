package codex

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// rulesFile is a rules file with the forms planq reads: plain and
// alternative first words, positional and named patterns, and
// host_executable names and paths.
const rulesFile = `
# a user's rules
prefix_rule(pattern = ["git", "push"], decision = "forbidden", justification = "no pushing")
prefix_rule(pattern = [["npm", "pnpm"], "publish"], decision = "prompt")
prefix_rule(["cargo", "test"], "allow")
prefix_rule(pattern = ["pip", "install"], decision = "prompt")
prefix_rule(pattern = ["rsync"], decision = "prompt")
host_executable(name = "rsync", paths = ["/opt/bin/rsync"])
network_rule(host = "example.com", protocol = "https", decision = "allow")
`

func TestRulePrograms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "default.rules"), []byte(rulesFile), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("prefix_rule(pattern = [\"ls\"])"), 0o600); err != nil {
		t.Fatal(err)
	}
	progs, err := rulePrograms([]string{dir, filepath.Join(dir, "missing")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range progs {
		got = append(got, p)
	}
	slices.Sort(got)
	want := []string{"cargo", "git", "npm", "pip", "pnpm", "rsync"}
	if !slices.Equal(got, want) {
		t.Errorf("programs = %q, want %q", got, want)
	}

	for _, tt := range []struct {
		command string
		want    bool
	}{
		{"git push origin main", true},
		{"git status", true}, // over-approximated: any git
		{"cd sub && /usr/bin/git log", true},
		{`bash -lc "pnpm publish"`, true},
		{"echo $(cargo --version)", true},
		{"FOO=1 pip install x", true},
		{"ls -la", false},
		{"python3 -c 'print(1)'", false},
		{"echo gitk", false},
		{"echo git-lfs", false},
	} {
		if got := session.RuleJudges(tt.command, progs); got != tt.want {
			t.Errorf("session.RuleJudges(%q) = %v, want %v", tt.command, got, tt.want)
		}
	}
	if session.RuleJudges("git push", nil) {
		t.Error("no rules named a program")
	}

	// A pattern whose first word planq cannot read without running the file:
	// every string of the file counts.
	opaque := t.TempDir()
	if err := os.WriteFile(filepath.Join(opaque, "x.rules"), []byte(`p = ["git"]
prefix_rule(pattern = p + ["push"], decision = "forbidden")
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if progs, err := rulePrograms([]string{opaque}); err != nil || !progs["git"] || !progs["push"] || !session.RuleJudges("git push", progs) {
		t.Errorf("a computed pattern: programs %v, %v; want every string of the file", progs, err)
	}

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "x.rules"), []byte("prefix_rule(pattern = [\"git\""), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := rulePrograms([]string{bad}); err == nil || !strings.Contains(err.Error(), "x.rules") {
		t.Errorf("a rules file that does not parse: err %v, want it named", err)
	}
}

func TestRulesDirs(t *testing.T) {
	t.Parallel()
	got := rulesDirs("/h/.codex", "/p", "/p/a/b")
	want := []string{"/etc/codex/rules", "/h/.codex/rules", "/p/a/b/.codex/rules", "/p/a/.codex/rules", "/p/.codex/rules"}
	if !slices.Equal(got, want) {
		t.Errorf("rulesDirs in a subdirectory = %q, want %q", got, want)
	}
	got = rulesDirs("/h/.codex", "/p", "/elsewhere")
	want = []string{"/etc/codex/rules", "/h/.codex/rules", "/p/.codex/rules"}
	if !slices.Equal(got, want) {
		t.Errorf("rulesDirs outside the project = %q, want %q", got, want)
	}
}

// TestRuleProgramsAsCodex: for every command the pinned Codex's own
// evaluator (codex execpolicy check) matches a rule of rulesFile to, planq
// names a program of it, so no rule of the user's stops applying because
// planq rewrote the command.
func TestRuleProgramsAsCodex(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "the end-to-end test runs the real Codex CLI")
	bin := fakemodel.EnsureCodex(t)
	dir := t.TempDir()
	rules := filepath.Join(dir, "default.rules")
	if err := os.WriteFile(rules, []byte(rulesFile), 0o600); err != nil {
		t.Fatal(err)
	}
	progs, err := rulePrograms([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, argv := range [][]string{
		{"git", "push", "origin"}, {"npm", "publish"}, {"pnpm", "publish", "--tag", "x"}, {"cargo", "test"},
		{"pip", "install", "x"}, {"/opt/bin/rsync", "-a", "x", "y"}, {"git", "status"}, {"ls"},
	} {
		cmd := exec.Command(bin, append([]string{"execpolicy", "check", "--resolve-host-executables", "--rules", rules, "--"}, argv...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir, "CODEX_HOME="+dir)
		out, _ := cmd.Output() // it exits 1 for a forbidden command
		var res struct {
			MatchedRules []json.RawMessage `json:"matchedRules"`
		}
		if i := strings.IndexByte(string(out), '{'); i < 0 || json.Unmarshal(out[i:], &res) != nil {
			t.Fatalf("codex execpolicy check %q said %s", argv, out)
		}
		if len(res.MatchedRules) == 0 {
			continue
		}
		matched++
		if !session.RuleJudges(strings.Join(argv, " "), progs) {
			t.Errorf("Codex applies a rule to %q, but planq would rewrite it", argv)
		}
	}
	if matched != 6 {
		t.Errorf("Codex matched %d of the commands, want 6 (all but git status and ls): has Codex changed its rules?", matched)
	}
}
