package gemini

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosttest"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
)

func installOpts(t *testing.T, repo, scope string) conffile.Options {
	t.Helper()
	bin := t.TempDir()
	for _, b := range []string{"planq", "planq-hook"} {
		testenv.WriteFile(t, bin, b, "#!/bin/sh\n")
		if err := os.Chmod(filepath.Join(bin, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return conffile.Options{Scope: scope, ProjectDir: repo, Home: os.Getenv("HOME"), Exe: filepath.Join(bin, "planq"), HookExe: filepath.Join(bin, "planq-hook")}
}

// settingsDoc is the part of settings.json the tests read.
type settingsDoc struct {
	Theme      string `json:"theme"`
	MCPServers map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	} `json:"mcpServers"`
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// Each scope writes the server and the hooks where Gemini CLI reads them,
// under Gemini CLI's event names with millisecond timeouts, keeps the
// user's settings and hooks, changes nothing the second time, and
// uninstall takes back exactly what install added.
func TestInstallScopes(t *testing.T) {
	for _, scope := range []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser} {
		t.Run(scope, func(t *testing.T) {
			testenv.Isolate(t)
			repo := testenv.JJRepo(t)
			o := installOpts(t, repo, scope)
			path := settingsPath(o)
			user := `{
  "theme": "Dracula",
  "mcpServers": {"github": {"httpUrl": "https://x"}},
  "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}
}
`
			if scope == conffile.ScopeLocal {
				// Local scope's file is planq's alone: jj would track one the user had.
				user = ""
			} else {
				testenv.WriteFile(t, filepath.Dir(path), filepath.Base(path), user)
			}
			ctx := context.Background()
			dry := o
			dry.DryRun = true
			res, err := Adapter{}.Install(ctx, dry)
			if err != nil || !res.Changed() {
				t.Fatalf("dry run: %+v, %v", res, err)
			}
			if data, _ := os.ReadFile(path); string(data) != user {
				t.Fatal("the dry run wrote the settings")
			}
			if _, err = (Adapter{}).Install(ctx, o); err != nil {
				t.Fatal(err)
			}
			var doc settingsDoc
			if err := json.Unmarshal([]byte(hosttest.ReadFile(t, path)), &doc); err != nil {
				t.Fatal(err)
			}
			if user != "" && (doc.Theme != "Dracula" || len(doc.MCPServers) != 2) {
				t.Fatalf("the user's settings were not kept: %+v", doc)
			}
			srv := doc.MCPServers["planq"]
			if srv.Command != o.Exe || strings.Join(srv.Args, " ") != "mcp serve" || srv.Env["PLANQ_HOST"] != "gemini" {
				t.Fatalf("planq's server: %+v", srv)
			}
			for _, h := range Hooks {
				groups := doc.Hooks[h.Event]
				var found []string
				for _, g := range groups {
					for _, e := range g.Hooks {
						if strings.Contains(e.Command, "planq") {
							if g.Matcher != h.Matcher || e.Timeout != h.Timeout || e.Type != "command" || e.Name != "planq-"+h.Subcommand {
								t.Errorf("%s: group %+v entry %+v", h.Event, g.Matcher, e)
							}
							found = append(found, e.Command)
						}
					}
				}
				want := conffile.HookLine(o, h.Subcommand, "gemini", h.Tool)
				if len(found) != 1 || found[0] != want {
					t.Errorf("%s: planq's hooks %q, want [%q]", h.Event, found, want)
				}
			}
			if g := doc.Hooks["BeforeTool"]; user != "" && (len(g) != 2 || g[0].Hooks[0].Command != "./lint.sh") {
				t.Fatalf("the user's BeforeTool hook was not kept first: %+v", g)
			}
			if res, err = (Adapter{}).Install(ctx, o); err != nil || res.Changed() {
				t.Fatalf("second install changed %+v (%v)", res.Edits, err)
			}
			if scope == conffile.ScopeLocal {
				if d := testenv.Run(t, repo, "jj", "--no-pager", "diff", "--summary"); strings.Contains(d, ".gemini") {
					t.Fatalf("jj sees the local wiring: %s", d)
				}
			}
			st := Adapter{}.Installed(conffile.Options{ProjectDir: repo, Home: o.Home})
			wired := slices.IndexFunc(st, conffile.Status.Wired)
			if wired < 0 || st[wired].Scope != scope || !st[wired].Server || len(st[wired].Missing) != 0 || len(st[wired].Hooks) != len(session.Events) ||
				!slices.Equal(st[wired].ToolHookExes, []string{o.HookExe}) {
				t.Fatalf("status: %+v", st)
			}
			un := o
			un.Uninstall = true
			if _, err := (Adapter{}).Install(ctx, un); err != nil {
				t.Fatal(err)
			}
			if user == "" {
				if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
					t.Fatalf("uninstall left %s (%v)", filepath.Dir(path), err)
				}
				return
			}
			var back, orig any
			_ = json.Unmarshal([]byte(hosttest.ReadFile(t, path)), &back)
			_ = json.Unmarshal([]byte(user), &orig)
			if !conffile.Same(back, orig) {
				t.Fatalf("uninstall left:\n%s", hosttest.ReadFile(t, path))
			}
		})
	}
}

// A settings file that held only planq's wiring goes on uninstall, with the
// .gemini directory planq made; an outdated planq hook is updated in place.
func TestInstallFreshAndOutdated(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	o := installOpts(t, repo, conffile.ScopeProject)
	ctx := context.Background()
	path := settingsPath(o)
	old := `{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"/old/planq hook stop --host gemini","timeout":5}]}]}}`
	testenv.WriteFile(t, filepath.Dir(path), filepath.Base(path), old)
	if _, err := (Adapter{}).Install(ctx, o); err != nil {
		t.Fatal(err)
	}
	var doc settingsDoc
	_ = json.Unmarshal([]byte(hosttest.ReadFile(t, path)), &doc)
	if g := doc.Hooks["AfterAgent"]; len(g) != 1 || len(g[0].Hooks) != 1 || g[0].Hooks[0].Command != o.Exe+" hook stop --host gemini" || g[0].Hooks[0].Timeout != 30000 {
		t.Fatalf("the outdated hook was not replaced in place: %+v", g)
	}
	un := o
	un.Uninstall = true
	if _, err := (Adapter{}).Install(ctx, un); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Fatalf(".gemini is still there after uninstall (%v)", err)
	}
}

// Local scope refuses a settings file the repo already has: info/exclude
// would not keep it out.
func TestInstallLocalRefusesTrackedSettings(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.WriteFile(t, filepath.Join(repo, ".gemini"), "settings.json", `{"theme":"x"}`)
	testenv.Run(t, repo, "jj", "--no-pager", "status")
	_, err := Adapter{}.Install(context.Background(), installOpts(t, repo, conffile.ScopeLocal))
	if err == nil || !strings.Contains(err.Error(), "is part of the repo") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if _, err := (Adapter{}).Install(context.Background(), installOpts(t, repo, conffile.ScopeProject)); err != nil {
		t.Fatalf("project scope: %v", err)
	}
}

func TestIsPlanqHook(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd, sub string
		want     bool
	}{
		{"/usr/bin/planq hook stop --host gemini", "stop", true},
		{"'/a b/planq' hook stop --host=gemini", "stop", true},
		{"planq hook stop", "stop", true},
		{"/x/planq-hook pre-tool-use --host gemini", "pre-tool-use", true},
		{"/x/planq-hook pre-tool-use", "pre-tool-use", true},
		{"/x/planq hook session-start --host gemini", "stop", false},
		{"/x/planq-hook post-tool-use --host gemini", "pre-tool-use", false},
		{"./lint.sh hook stop", "stop", false},
		{"planq hook stop extra", "stop", false},
		{"/x/planq hook stop --host codex", "stop", false},
		{"", "stop", false},
	}
	for _, tt := range tests {
		if got := conffile.IsPlanqHook(tt.cmd, tt.sub, Host.Name, ""); got != tt.want {
			t.Errorf("IsPlanqHook(%q, %q) = %v", tt.cmd, tt.sub, got)
		}
	}
}

// The gated-tools matcher is a JavaScript regex as Gemini CLI reads it; Go's
// regexp has no lookahead, so check its shape: every read-only tool is in
// the exclusion, the gated ones are not.
func TestGatedToolsMatcher(t *testing.T) {
	t.Parallel()
	for _, name := range readOnlyTools {
		if !strings.Contains(GatedTools, "|"+name+"|") && !strings.Contains(GatedTools, "(?:"+name+"|") && !strings.Contains(GatedTools, "|"+name+")") {
			t.Errorf("%s is not excluded by %s", name, GatedTools)
		}
	}
	for _, name := range []string{"run_shell_command", "write_file", "replace", "invoke_agent", "mcp_planq_jj_init"} {
		if strings.Contains(GatedTools, name) {
			t.Errorf("%s is excluded by the matcher", name)
		}
	}
}

func TestLaunch(t *testing.T) {
	t.Parallel()
	if got := (Adapter{}).Launch("-fix the bug", ""); !slices.Equal(got, []string{"--prompt-interactive=-fix the bug"}) {
		t.Fatalf("start: %q", got)
	}
	if got := (Adapter{}).Launch("", "7893f873-16ab-488e-b693-b7f027e261e6"); !slices.Equal(got, []string{"--resume", "7893f873-16ab-488e-b693-b7f027e261e6"}) {
		t.Fatalf("resume: %q", got)
	}
}
