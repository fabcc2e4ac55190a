package gemini

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/internal/testenv"
)

func TestShellRulePrograms(t *testing.T) {
	t.Parallel()
	home, proj := t.TempDir(), t.TempDir()
	env := map[string]string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH": filepath.Join(t.TempDir(), "none.json")}
	o := conffile.Options{Home: home, ProjectDir: proj, Getenv: func(k string) string { return env[k] }}
	testenv.WriteFile(t, filepath.Join(home, ".gemini", "policies"), "mine.toml", `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git push", "npm publish"]
decision = "ask_user"
priority = 100

[[rule]]
toolName = ["run_shell_command", "write_file"]
commandRegex = "^docker (run|exec)"
decision = "deny"
priority = 100

[[rule]]
toolName = "write_file"
commandPrefix = "ignored"
decision = "deny"
priority = 100

[[rule]]
commandPrefix = "/usr/bin/curl -s"
decision = "allow"
priority = 100
`)
	testenv.WriteFile(t, filepath.Join(proj, ".gemini"), "settings.json", `{
  // comments are allowed here
  "tools": {"allowed": ["run_shell_command(cargo test)", "read_file"], "exclude": ["ShellTool(rm -rf)"]}
}`)
	progs, err := shellRulePrograms(o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for p := range progs {
		got = append(got, p)
	}
	slices.Sort(got)
	want := []string{"cargo", "curl", "docker", "exec", "git", "npm", "rm", "run"}
	if !slices.Equal(got, want) {
		t.Errorf("programs = %q, want %q", got, want)
	}

	testenv.WriteFile(t, filepath.Join(proj, ".gemini", "policies"), "bad.toml", "[[rule]\n")
	if _, err := shellRulePrograms(o); err == nil || !strings.Contains(err.Error(), "bad.toml") {
		t.Errorf("a policy that does not parse: err %v, want it named", err)
	}
	if err := os.Remove(filepath.Join(proj, ".gemini", "policies", "bad.toml")); err != nil {
		t.Fatal(err)
	}
}
