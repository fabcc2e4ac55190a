package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/conffile/unified"
	"github.com/planq-dev/planq/hooks/hosttest"
	"github.com/planq-dev/planq/internal/testenv"
)

// The user's config.toml, with comments, another server and settings, and
// hooks.json with a hook of their own.
const (
	userConfig = `# my codex settings
model = "gpt-5.5" # the default

[mcp_servers.github]
command = "gh-mcp"

[tui]
notifications = true
`
	userHooks = `{
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-audit", "timeout": 5}]}
        ]
    }
}
`
)

// Each scope writes the server block and the hooks where Codex reads them,
// keeps the user's settings and comments byte for byte, changes nothing the
// second time, and uninstall takes back exactly what install added.
func TestInstallScopes(t *testing.T) {
	for _, scope := range []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser} {
		t.Run(scope, func(t *testing.T) {
			repo := hosttest.Repo(t)
			codexHome := filepath.Join(t.TempDir(), "codex-home")
			o := hosttest.Options(t, repo, scope, map[string]string{"CODEX_HOME": codexHome})
			cfg, hooks := paths(o)
			if want := filepath.Join(codexHome, "config.toml"); scope == conffile.ScopeUser && cfg != want {
				t.Fatalf("user scope config %s, want %s ($CODEX_HOME)", cfg, want)
			}
			if scope != conffile.ScopeLocal {
				testenv.WriteFile(t, filepath.Dir(cfg), "config.toml", userConfig)
				testenv.WriteFile(t, filepath.Dir(hooks), "hooks.json", userHooks)
			}
			ctx := context.Background()
			dry := o
			dry.DryRun = true
			res, err := Adapter{}.Install(ctx, dry)
			if err != nil || !res.Changed() || !strings.Contains(unified.Edit(res.Edits[len(res.Edits)-1]), "pre-tool-use") {
				t.Fatalf("dry run: %+v, %v", res, err)
			}
			if scope == conffile.ScopeLocal {
				if _, err := os.Stat(cfg); !os.IsNotExist(err) {
					t.Fatalf("the dry run wrote %s (%v)", cfg, err)
				}
			} else if hosttest.ReadFile(t, cfg) != userConfig {
				t.Fatal("the dry run changed config.toml")
			}
			if res, err = (Adapter{}).Install(ctx, o); err != nil {
				t.Fatal(err)
			}
			got := hosttest.ReadFile(t, cfg)
			if scope != conffile.ScopeLocal && !strings.HasPrefix(got, userConfig) {
				t.Fatalf("the user's config.toml was not kept byte for byte:\n%s", got)
			}
			var doc struct {
				Model      string `toml:"model"`
				MCPServers map[string]struct {
					Command string            `toml:"command"`
					Args    []string          `toml:"args"`
					Env     map[string]string `toml:"env"`
				} `toml:"mcp_servers"`
			}
			if _, err := toml.Decode(got, &doc); err != nil {
				t.Fatalf("config.toml does not parse: %v\n%s", err, got)
			}
			p := doc.MCPServers["planq"]
			if p.Command != o.Exe || strings.Join(p.Args, " ") != "mcp serve" || p.Env["PLANQ_HOST"] != "codex" {
				t.Fatalf("planq's server: %+v\n%s", p, got)
			}
			if scope != conffile.ScopeLocal && (doc.Model != "gpt-5.5" || doc.MCPServers["github"].Command != "gh-mcp") {
				t.Fatalf("the user's settings were lost:\n%s", got)
			}
			var hk struct {
				Hooks map[string][]struct {
					Matcher *string `json:"matcher"`
					Hooks   []struct {
						Command string `json:"command"`
						Timeout int    `json:"timeout"`
					} `json:"hooks"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal([]byte(hosttest.ReadFile(t, hooks)), &hk); err != nil {
				t.Fatal(err)
			}
			for _, h := range Hooks {
				groups := hk.Hooks[h.Event]
				last := groups[len(groups)-1]
				if len(last.Hooks) != 1 || !conffile.IsPlanqHook(last.Hooks[0].Command, h.Subcommand, Host.Name, "") || last.Hooks[0].Timeout != h.Timeout || (last.Matcher != nil) != (h.Matcher != "") {
					t.Errorf("%s: planq's group %+v", h.Event, last)
				}
				if h.Tool && !strings.HasPrefix(last.Hooks[0].Command, conffile.Quote(o.HookExe)+" ") {
					t.Errorf("%s runs %q, want planq-hook", h.Event, last.Hooks[0].Command)
				}
			}
			if scope != conffile.ScopeLocal && (len(hk.Hooks["PreToolUse"]) != 2 || hk.Hooks["PreToolUse"][0].Hooks[0].Command != "my-audit") {
				t.Fatalf("the user's hook was lost: %+v", hk.Hooks["PreToolUse"])
			}
			st := status(t, conffile.Options{Scope: scope, ProjectDir: repo, Home: o.Home, Getenv: o.Getenv})
			if !st.Server || st.ServerExe != o.Exe || len(st.Missing) != 0 || len(st.ToolHookExes) != 1 || st.ToolHookExes[0] != o.HookExe {
				t.Fatalf("status %+v", st)
			}
			if res, err := (Adapter{}).Install(ctx, o); err != nil || res.Changed() {
				t.Fatalf("second install changed %d files (%v)", len(res.Edits), err)
			}
			// A moved planq binary is updated in place.
			moved := o
			moved.Exe, moved.HookExe = filepath.Join(t.TempDir(), "planq"), ""
			if _, err := (Adapter{}).Install(ctx, moved); err != nil {
				t.Fatal(err)
			}
			if s := hosttest.ReadFile(t, hooks); strings.Contains(s, o.HookExe) || strings.Count(s, "--host codex") != len(Hooks) {
				t.Fatalf("after moving planq, hooks.json:\n%s", s)
			}
			if st := status(t, conffile.Options{Scope: scope, ProjectDir: repo, Home: o.Home, Getenv: o.Getenv}); st.ServerExe != moved.Exe {
				t.Fatalf("after moving planq the server runs %q", st.ServerExe)
			}
			if scope == conffile.ScopeLocal {
				if d := testenv.Run(t, repo, "jj", "diff", "--summary"); strings.Contains(d, ".codex") {
					t.Fatalf("the local wiring is part of the change:\n%s", d)
				}
			}
			un := o
			un.Uninstall = true
			if _, err := (Adapter{}).Install(ctx, un); err != nil {
				t.Fatal(err)
			}
			if scope == conffile.ScopeLocal {
				for _, p := range []string{cfg, hooks, filepath.Dir(cfg)} {
					if _, err := os.Stat(p); !os.IsNotExist(err) {
						t.Errorf("uninstall left %s", p)
					}
				}
				return
			}
			if got := hosttest.ReadFile(t, cfg); got != userConfig {
				t.Errorf("after uninstall config.toml =\n%s\nwant the user's own back", got)
			}
			var after map[string]any
			if err := json.Unmarshal([]byte(hosttest.ReadFile(t, hooks)), &after); err != nil || strings.Contains(hosttest.ReadFile(t, hooks), "planq") || !strings.Contains(hosttest.ReadFile(t, hooks), "my-audit") {
				t.Errorf("after uninstall hooks.json =\n%s", hosttest.ReadFile(t, hooks))
			}
		})
	}
}

// Install refuses, writing nothing, a config.toml that does not parse, that
// registers its own planq server, or that cannot take planq's table.
func TestInstallRefuses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ config, err string }{
		"invalid TOML":       {"model = \n", "is not valid TOML"},
		"own planq server":   {"[mcp_servers.planq]\ncommand = \"other\"\n", "already has its own [mcp_servers.planq]"},
		"own inline planq":   {"mcp_servers = { planq = { command = \"x\" } }\n", "already has its own [mcp_servers.planq]"},
		"inline servers":     {"mcp_servers = { github = { command = \"x\" } }\n", "cannot take planq's [mcp_servers.planq]"},
		"unterminated":       {blockBegin + "\n[mcp_servers.planq]\ncommand = \"x\"\n", "has no end marker"},
		"two blocks":         {blockBegin + "\n" + blockEnd + "\n" + blockBegin + "\n" + blockEnd + "\n", "two planq blocks"},
		"hooks not a list":   {"", "hooks.PreToolUse is not a list"},
		"hooks not an obj":   {"", "not an object"},
		"hooks invalid JSON": {"", "is not valid JSON"},
	}
	hooksFor := map[string]string{
		"hooks not a list":   `{"hooks":{"PreToolUse":{}}}`,
		"hooks not an obj":   `{"hooks":[]}`,
		"hooks invalid JSON": `{"hooks":`,
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			repo := t.TempDir()
			o := hosttest.Options(t, repo, conffile.ScopeProject, nil)
			o.Home = t.TempDir()
			cfg, hooks := paths(o)
			testenv.WriteFile(t, filepath.Dir(cfg), "config.toml", tt.config)
			if h := hooksFor[name]; h != "" {
				testenv.WriteFile(t, filepath.Dir(hooks), "hooks.json", h)
			}
			_, err := Adapter{}.Install(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tt.err)
			}
			if hosttest.ReadFile(t, cfg) != tt.config {
				t.Fatal("config.toml was changed")
			}
			if _, err := os.Stat(hooks); hooksFor[name] == "" && !os.IsNotExist(err) {
				t.Fatal("hooks.json was written")
			}
		})
	}
}

// Doctor's findings: the project's trust for project and local scope, and
// planq's hooks' trust, each with the lines that fix it.
func TestInstalledFindings(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	home := t.TempDir()
	o := conffile.Options{Scope: conffile.ScopeProject, ProjectDir: repo, Home: home, Exe: "/usr/bin/planq"}
	if _, err := (Adapter{}).Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	userFile := filepath.Join(home, ".codex", "config.toml")
	st := status(t, o)
	pt, ht := finding(st, "project-trust"), finding(st, "hook-trust")
	if pt == nil || pt.OK || !strings.Contains(pt.Fix, "[projects."+tomlString(repo)+"]\ntrust_level = \"trusted\"") {
		t.Fatalf("project-trust %+v", pt)
	}
	if ht == nil || ht.OK || strings.Count(ht.Fix, "[hooks.state.") != len(Hooks) || !strings.Contains(ht.Detail, "not trusted: SessionStart, PreToolUse") {
		t.Fatalf("hook-trust %+v", ht)
	}
	// The user does what the fixes say.
	_, lines, _ := strings.Cut(ht.Fix, ":\n")
	_, plines, _ := strings.Cut(pt.Fix, ":\n")
	testenv.WriteFile(t, filepath.Dir(userFile), "config.toml", "# mine\n"+plines+"\n"+lines+"\n")
	st = status(t, o)
	if f := finding(st, "project-trust"); f == nil || !f.OK {
		t.Fatalf("project-trust after trusting %+v", f)
	}
	if f := finding(st, "hook-trust"); f == nil || !f.OK {
		t.Fatalf("hook-trust after trusting %+v", f)
	}
	// A changed hook is no longer trusted; a disabled one is said so.
	moved := o
	moved.Exe = "/opt/planq"
	if _, err := (Adapter{}).Install(context.Background(), moved); err != nil {
		t.Fatal(err)
	}
	if f := finding(status(t, o), "hook-trust"); f == nil || f.OK || !strings.Contains(f.Detail, "changed since trusted") {
		t.Fatalf("hook-trust after a change %+v", f)
	}
	_, hooks := paths(o)
	key := HookKey(hooks, EventStop, 0, 0)
	testenv.WriteFile(t, filepath.Dir(userFile), "config.toml", "[hooks.state."+tomlString(key)+"]\nenabled = false\n")
	if f := finding(status(t, o), "hook-trust"); f == nil || f.OK || !strings.Contains(f.Detail, "disabled: Stop") {
		t.Fatalf("hook-trust with Stop disabled %+v", f)
	}
	// A user config that does not parse: trust unknown, said so.
	testenv.WriteFile(t, filepath.Dir(userFile), "config.toml", "x = \n")
	if f := finding(status(t, o), "trust"); f == nil || f.OK || !strings.Contains(f.Detail, "cannot read") {
		t.Fatalf("trust with a broken config %+v", status(t, o).Findings)
	}
	// Codex fails open when the gate's hook cannot run: doctor says so
	// when the binary is missing, and that it is there otherwise.
	if f := finding(st, "fail-open"); f == nil || f.OK || !strings.Contains(f.Detail, "/usr/bin/planq, which planq's gate runs, is not an executable") {
		t.Fatalf("fail-open with a missing binary %+v", f)
	}
	exe := filepath.Join(t.TempDir(), "planq")
	testenv.WriteFile(t, filepath.Dir(exe), "planq", "#!/bin/sh\n")
	_ = os.Chmod(exe, 0o755)
	there := o
	there.Exe = exe
	if _, err := (Adapter{}).Install(context.Background(), there); err != nil {
		t.Fatal(err)
	}
	if f := finding(status(t, o), "fail-open"); f == nil || !f.OK {
		t.Fatalf("fail-open with the binary there %+v", f)
	}
	// Nothing wired: no findings.
	if st := status(t, conffile.Options{Scope: conffile.ScopeUser, Home: t.TempDir()}); st.Wired() || len(st.Findings) != 0 {
		t.Fatalf("unwired status %+v", st)
	}
}

// The trust hash Codex computes, for a hook whose command has characters
// Go's JSON encoder would escape (checked against Codex in
// TestTrustAgainstCodex for planq's own hooks).
func TestHookHash(t *testing.T) {
	t.Parallel()
	// Values Codex 0.169.0 reported (app-server hooks/list) for these hooks.
	if got := HookHash("PreToolUse", "Bash|apply_patch", "echo hi", 30, false); got != "sha256:c53ca2405ff1c946c1a0987ea5b24e69af4ce0a7ae2dea24939178f18efa808d" {
		t.Errorf("PreToolUse hash %s", got)
	}
	if got := HookHash("Stop", "ignored", "echo stop", 0, false); got != "sha256:236335e9e512004a0f5f42af65a07ea9059bd9a23dbb68286ed57fecf2b69ddf" {
		t.Errorf("Stop hash %s", got)
	}
	if HookHash("SessionEnd", "", "x", 30, false) != HookHash("SessionEnd", "", "x", 3, false) {
		t.Error("SessionEnd's timeout is not clamped to 3")
	}
	if HookHash("PreToolUse", "", "a<b", 1, false) == HookHash("PreToolUse", "", `a\u003cb`, 1, false) {
		t.Error("< is escaped")
	}
}

func TestLaunchAndDetect(t *testing.T) {
	t.Parallel()
	a := Adapter{}
	if got := strings.Join(a.Launch("fix it", ""), " "); got != "fix it" {
		t.Errorf("start: %q", got)
	}
	if got := strings.Join(a.Launch("", "01a2"), " "); got != "resume 01a2" {
		t.Errorf("resume: %q", got)
	}
	home := t.TempDir()
	none := func(string) (string, error) { return "", os.ErrNotExist }
	if a.Detect(home, none) {
		t.Error("detected without codex")
	}
	if !a.Detect(home, func(string) (string, error) { return "/usr/bin/codex", nil }) {
		t.Error("codex on PATH not detected")
	}
	_ = os.Mkdir(filepath.Join(home, ".codex"), 0o755)
	if !a.Detect(home, none) {
		t.Error("~/.codex not detected")
	}
}

func TestTOMLStringRoundTrips(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`/plain/path`, `C:\Users\me\planq.exe`, `a "quoted" name`, "tab\there", "ünï ✓", "ctl\x01\x7f"} {
		var v struct{ K string }
		if _, err := toml.Decode("K = "+tomlString(s), &v); err != nil || v.K != s {
			t.Errorf("tomlString(%q) = %s decodes to %q, %v", s, tomlString(s), v.K, err)
		}
	}
}
