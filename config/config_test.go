package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/config"
)

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c.Gate.Mode != config.ModeStrict || c.Gate.Unknown != config.UnknownStrict || c.Gate.Git != config.GitDeny {
		t.Errorf("defaults = %+v", c.Gate)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		yaml    string
		wantErr string // substring naming the key; "" for success
		check   func(t *testing.T, c config.Config)
	}{
		{name: "empty", yaml: "", check: func(t *testing.T, c config.Config) {
			if c.Gate.Mode != "strict" {
				t.Errorf("mode = %q", c.Gate.Mode)
			}
		}},
		{name: "full", yaml: "project: web\nagent: alice\nstate:\n  remote: /srv/state.git\ngate:\n  mode: warn\n  unknown: permissive\n  git: allow\n  allow: [mytool]\n  deny: [deploy]\n  mcp_allow: ['mcp__github__get_*']\n",
			check: func(t *testing.T, c config.Config) {
				if c.Project != "web" || c.Agent != "alice" || c.State.Remote != "/srv/state.git" || c.Gate.Mode != "warn" ||
					c.Gate.Unknown != "permissive" || c.Gate.Git != "allow" || c.Gate.Allow[0] != "mytool" || c.Gate.Deny[0] != "deploy" || c.Gate.MCPAllow[0] != "mcp__github__get_*" {
					t.Errorf("parsed %+v", c)
				}
			}},
		{name: "bad mode", yaml: "gate:\n  mode: lenient\n", wantErr: "gate.mode"},
		{name: "bad unknown", yaml: "gate:\n  unknown: maybe\n", wantErr: "gate.unknown"},
		{name: "bad git", yaml: "gate:\n  git: sometimes\n", wantErr: "gate.git"},
		{name: "unknown key", yaml: "gate:\n  mdoe: strict\n", wantErr: "mdoe"},
		{name: "bad project", yaml: "project: ../escape\n", wantErr: "project"},
		{name: "bad agent", yaml: "agent: a/b\n", wantErr: "agent"},
		{name: "empty allow entry", yaml: "gate:\n  allow: ['']\n", wantErr: "gate.allow"},
		{name: "not yaml", yaml: "gate: [unclosed\n", wantErr: config.File},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tt.yaml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestValidName(t *testing.T) {
	t.Parallel()
	good := []string{"main", "alice", "agent-2", "a.b_c", strings.Repeat("x", 64)}
	bad := []string{"", "../x", "a/b", "-rf", ".hidden", strings.Repeat("x", 300), "a\x00b", "tab\there", "new\nline", "x.lock", "a..b", "spa ce", "ünï"}
	for _, n := range good {
		if err := config.ValidName(n); err != nil {
			t.Errorf("ValidName(%q) = %v, want ok", n, err)
		}
	}
	for _, n := range bad {
		if err := config.ValidName(n); err == nil {
			t.Errorf("ValidName(%q) accepted an unsafe name", n)
		}
	}
}

func TestSetKeepsOtherKeysAndComments(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	orig := "# team settings\nproject: web # the state repo\ngate:\n  mode: warn\n"
	if err := os.MkdirAll(filepath.Join(root, ".planq"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.Path(root), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := config.Set(root, "state.remote", "/srv/web-state.git"); err != nil {
		t.Fatal(err)
	}
	if err := config.Set(root, "gate.mode", "off"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(config.Path(root))
	for _, want := range []string{"# team settings", "# the state repo", "project: web"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Set lost %q:\n%s", want, data)
		}
	}
	c, err := config.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.State.Remote != "/srv/web-state.git" || c.Gate.Mode != "off" || c.Project != "web" {
		t.Errorf("after Set: %+v", c)
	}
}

func TestSetRefusesBadValuesAndKeys(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := config.Set(root, "gate.mode", "lenient"); err == nil || !strings.Contains(err.Error(), "gate.mode") {
		t.Errorf("Set(gate.mode, lenient) = %v", err)
	}
	if _, err := os.Stat(config.Path(root)); !os.IsNotExist(err) {
		t.Error("a refused Set still wrote the file")
	}
	if err := config.Set(root, "nope", "x"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Set(nope) = %v", err)
	}
	if err := config.Set(root, "project", "fresh"); err != nil {
		t.Fatal(err)
	}
	if c, _ := config.Load(root); c.Project != "fresh" {
		t.Errorf("Set in a repo without the file: project = %q", c.Project)
	}
}

func TestGateTestsAndOnError(t *testing.T) {
	t.Parallel()
	c, err := config.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Gate.OnError != config.OnErrorDeny || !slices.Equal(c.Gate.TestEntries(), config.DefaultTests) {
		t.Errorf("defaults: on_error %q, tests %v", c.Gate.OnError, c.Gate.TestEntries())
	}
	c, err = config.Parse([]byte("gate:\n  on_error: allow\n  tests: [default, 'make   e2e']\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Gate.TestEntries()
	if c.Gate.OnError != config.OnErrorAllow || !slices.Contains(got, "go test") || !slices.Contains(got, "make e2e") {
		t.Errorf("on_error %q, tests %v", c.Gate.OnError, got)
	}
	c, err = config.Parse([]byte("gate:\n  tests: []\n"))
	if err != nil || len(c.Gate.TestEntries()) != 0 {
		t.Errorf("tests: [] gives %v, %v; want none", c.Gate.TestEntries(), err)
	}
	for _, bad := range []string{"gate:\n  on_error: maybe\n", "gate:\n  tests: ['']\n", "gate:\n  tests: go test\n"} {
		if _, err := config.Parse([]byte(bad)); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want a one-line error", bad, err)
		}
	}
}

// gate.sandbox turns the OS sandbox off for a project; it defaults to on,
// and a value other than on or off is a one-line error naming the key.
func TestGateSandbox(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": config.SandboxOn, "gate:\n  sandbox: off\n": config.SandboxOff, "gate:\n  sandbox: on\n": config.SandboxOn} {
		c, err := config.Parse([]byte(in))
		if err != nil || c.Gate.Sandbox != want {
			t.Errorf("%q: sandbox %q, %v; want %q", in, c.Gate.Sandbox, err, want)
		}
	}
	_, err := config.Parse([]byte("gate:\n  sandbox: maybe\n"))
	if err == nil || !strings.Contains(err.Error(), "gate.sandbox") || strings.Contains(err.Error(), "\n") {
		t.Errorf("sandbox: maybe: %v; want a one-line error naming gate.sandbox", err)
	}
	root := t.TempDir()
	if err := config.Set(root, "gate.sandbox", "off"); err != nil {
		t.Fatal(err)
	}
	if c, err := config.Load(root); err != nil || c.Gate.Sandbox != config.SandboxOff {
		t.Errorf("after Set: sandbox %q, %v", c.Gate.Sandbox, err)
	}
}
