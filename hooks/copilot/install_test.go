package copilot

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/conffile/unified"
	"github.com/planq-dev/planq/hooks/hosttest"
	"github.com/planq-dev/planq/internal/testenv"
)

// The user's own files: an MCP config with another server, hooks (a hooks
// file, or settings.json with other settings) with a hook of their own,
// and instructions of their own.
const (
	userServers = `{
  "mcpServers": {
    "github": {"type": "local", "command": "gh-mcp", "args": [], "tools": ["*"]}
  }
}
`
	userHooksFile = `{
  "version": 1,
  "hooks": {
    "PreToolUse": [
      {"type": "command", "bash": "my-audit", "timeoutSec": 5}
    ]
  }
}
`
	userSettings = `{
  "theme": "dark",
  "hooks": {
    "PreToolUse": [
      {"type": "command", "bash": "my-audit", "timeoutSec": 5}
    ]
  }
}
`
	userInstructions = "# House rules\n\nUse tabs.\n"
)

// Each scope writes the server, the hooks and the instructions block where
// Copilot reads them, keeps every other key, hook and line of the user's,
// changes nothing the second time, and uninstall takes back exactly what
// install added.
func TestInstallScopes(t *testing.T) {
	for _, scope := range []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser} {
		t.Run(scope, func(t *testing.T) {
			repo := hosttest.Repo(t)
			ch := filepath.Join(t.TempDir(), "copilot-home")
			o := hosttest.Options(t, repo, scope, map[string]string{"COPILOT_HOME": ch, "PLANQ_HOME": "/state/planq"})
			f := paths(o)
			if scope == conffile.ScopeUser && (f.Server != filepath.Join(ch, "mcp-config.json") || f.Hooks != filepath.Join(ch, "settings.json") || f.Instructions != filepath.Join(ch, "copilot-instructions.md")) {
				t.Fatalf("user scope files %+v, want them in $COPILOT_HOME", f)
			}
			hooksBefore := userHooksFile
			if scope == conffile.ScopeUser {
				hooksBefore = userSettings
			}
			if scope != conffile.ScopeLocal {
				testenv.WriteFile(t, filepath.Dir(f.Server), filepath.Base(f.Server), userServers)
				testenv.WriteFile(t, filepath.Dir(f.Hooks), filepath.Base(f.Hooks), hooksBefore)
			}
			if scope == conffile.ScopeUser {
				testenv.WriteFile(t, filepath.Dir(f.Instructions), filepath.Base(f.Instructions), userInstructions)
			}
			ctx := context.Background()
			dry := o
			dry.DryRun = true
			res, err := Adapter{}.Install(ctx, dry)
			if err != nil || !res.Changed() || !strings.Contains(unified.Edit(editOf(res, f.Hooks)), "pre-tool-use") {
				t.Fatalf("dry run: %+v, %v", res, err)
			}
			if _, err := os.Stat(f.Instructions); scope != conffile.ScopeUser && !os.IsNotExist(err) {
				t.Fatalf("the dry run wrote %s (%v)", f.Instructions, err)
			}
			if _, err = (Adapter{}).Install(ctx, o); err != nil {
				t.Fatal(err)
			}

			// The server, with planq's environment listed.
			var srv struct {
				MCPServers map[string]struct {
					Type    string            `json:"type"`
					Command string            `json:"command"`
					Args    []string          `json:"args"`
					Env     map[string]string `json:"env"`
					Tools   []string          `json:"tools"`
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(hosttest.ReadFile(t, f.Server)), &srv); err != nil {
				t.Fatal(err)
			}
			p := srv.MCPServers["planq"]
			if p.Type != "local" || p.Command != o.Exe || strings.Join(p.Args, " ") != "mcp serve" || p.Env["PLANQ_HOST"] != "copilot" || p.Env["PLANQ_HOME"] != "/state/planq" || !slices.Equal(p.Tools, []string{"*"}) {
				t.Fatalf("planq's server: %+v", p)
			}
			if scope != conffile.ScopeLocal && srv.MCPServers["github"].Command != "gh-mcp" {
				t.Fatal("the user's server was lost")
			}

			// The hooks: every event, PascalCase (subagentStart camelCase), the
			// tool hooks on planq-hook, the user's hook kept first.
			var hk struct {
				Version int    `json:"version"`
				Theme   string `json:"theme"`
				Hooks   map[string][]struct {
					Type       string `json:"type"`
					Bash       string `json:"bash"`
					TimeoutSec int    `json:"timeoutSec"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal([]byte(hosttest.ReadFile(t, f.Hooks)), &hk); err != nil {
				t.Fatal(err)
			}
			if scope == conffile.ScopeUser && (hk.Theme != "dark" || hk.Version != 0) || scope != conffile.ScopeUser && hk.Version != 1 {
				t.Fatalf("hooks file: version %d theme %q", hk.Version, hk.Theme)
			}
			for _, h := range Hooks {
				list := hk.Hooks[h.Event]
				if len(list) == 0 {
					t.Fatalf("no %s hook: %+v", h.Event, hk.Hooks)
				}
				last := list[len(list)-1]
				want := conffile.HookLine(o, h.Subcommand, "copilot", h.Tool)
				if last.Type != "command" || last.Bash != want || last.TimeoutSec != h.Timeout {
					t.Fatalf("%s: %+v, want %q", h.Event, last, want)
				}
			}
			if pre := hk.Hooks[EventPreToolUse]; pre[len(pre)-1].TimeoutSec < 60 {
				t.Fatal("the gate's timeout is not generous")
			}
			if scope != conffile.ScopeLocal && (len(hk.Hooks[EventPreToolUse]) != 2 || hk.Hooks[EventPreToolUse][0].Bash != "my-audit") {
				t.Fatalf("the user's hook was not kept first: %+v", hk.Hooks[EventPreToolUse])
			}

			// The instructions: planq's block, the user's lines kept.
			ins := hosttest.ReadFile(t, f.Instructions)
			if !strings.Contains(ins, blockBegin) || !strings.Contains(ins, "`planq-jj_init`") || !strings.Contains(ins, "`planq-planq_context`") {
				t.Fatalf("instructions:\n%s", ins)
			}
			if scope == conffile.ScopeUser && !strings.HasPrefix(ins, userInstructions) || scope != conffile.ScopeUser && !strings.HasPrefix(ins, instructionsFront) {
				t.Fatalf("instructions do not start as they should:\n%s", ins)
			}

			// Local scope: jj and git ignore all three files.
			st := jjStatus(t, repo)
			for _, p := range []string{".github/mcp.json", ".github/hooks/planq.json", ".github/instructions/planq.instructions.md"} {
				if shown := strings.Contains(st, p); shown != (scope == conffile.ScopeProject) {
					t.Fatalf("%s scope: jj status shows %s = %v:\n%s", scope, p, shown, st)
				}
			}

			// A second run changes nothing.
			if res, err := (Adapter{}).Install(ctx, o); err != nil || res.Changed() {
				t.Fatalf("second install: %+v, %v", res, err)
			}
			// Installed sees it.
			if got := statusOf(Adapter{}.Installed(o), scope); !got.Server || len(got.Missing) != 0 || len(got.Hooks) != len(Hooks) || !slices.Contains(got.ToolHookExes, o.HookExe) {
				t.Fatalf("Installed: %+v", got)
			}

			// Uninstall gives the user's files back.
			un := o
			un.Uninstall = true
			if _, err := (Adapter{}).Install(ctx, un); err != nil {
				t.Fatal(err)
			}
			if scope == conffile.ScopeLocal {
				for _, p := range []string{f.Server, f.Hooks, f.Instructions, filepath.Join(repo, ".github")} {
					if _, err := os.Stat(p); !os.IsNotExist(err) {
						t.Fatalf("%s is left after uninstall (%v)", p, err)
					}
				}
			} else {
				assertJSON(t, f.Server, userServers)
				assertJSON(t, f.Hooks, hooksBefore)
			}
			if scope == conffile.ScopeUser && hosttest.ReadFile(t, f.Instructions) != userInstructions {
				t.Fatalf("the user's instructions after uninstall:\n%s", hosttest.ReadFile(t, f.Instructions))
			}
			if _, err := os.Stat(f.Instructions); scope != conffile.ScopeUser && !os.IsNotExist(err) {
				t.Fatalf("planq's instructions file is left (%v)", err)
			}
			if res, err := (Adapter{}).Install(ctx, un); err != nil || res.Changed() {
				t.Fatalf("second uninstall: %+v, %v", res, err)
			}
		})
	}
}

// The user's text in planq's instructions file, before and after the
// block, stays on reinstall and uninstall.
func TestInstructionsKeepUserText(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	o := hosttest.Options(t, repo, conffile.ScopeProject, nil)
	f := paths(o)
	ctx := context.Background()
	if _, err := (Adapter{}).Install(ctx, o); err != nil {
		t.Fatal(err)
	}
	withUser := hosttest.ReadFile(t, f.Instructions) + "\nAlso: write tests.\n"
	testenv.WriteFile(t, filepath.Dir(f.Instructions), filepath.Base(f.Instructions), strings.Replace(withUser, blockBegin, "Mine first.\n"+blockBegin, 1))
	if res, err := (Adapter{}).Install(ctx, o); err != nil || res.Changed() {
		t.Fatalf("reinstall: %+v, %v", res, err)
	}
	o.Uninstall = true
	if _, err := (Adapter{}).Install(ctx, o); err != nil {
		t.Fatal(err)
	}
	if got := hosttest.ReadFile(t, f.Instructions); got != instructionsFront+"Mine first.\n\nAlso: write tests.\n" {
		t.Fatalf("after uninstall:\n%q", got)
	}
	testenv.WriteFile(t, filepath.Dir(f.Instructions), filepath.Base(f.Instructions), blockBegin+"\nno end\n")
	o.Uninstall = false
	if _, err := (Adapter{}).Install(ctx, o); err == nil || !strings.Contains(err.Error(), "no end marker") {
		t.Fatalf("a block without its end: %v", err)
	}
}

func editOf(res conffile.Result, path string) conffile.FileEdit {
	for _, e := range res.Edits {
		if e.Path == path {
			return e
		}
	}
	return conffile.FileEdit{}
}

func statusOf(sts []conffile.Status, scope string) conffile.Status {
	for _, st := range sts {
		if st.Scope == scope {
			return st
		}
	}
	return conffile.Status{}
}

func jjStatus(t *testing.T, repo string) string {
	t.Helper()
	return testenv.Run(t, repo, "jj", "--no-pager", "--color", "never", "status")
}

func assertJSON(t *testing.T, path, want string) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal([]byte(hosttest.ReadFile(t, path)), &a); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(want), &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("%s = %s, want %s", path, ja, jb)
	}
}

// Doctor's findings: folder trust from $COPILOT_HOME/config.json (its
// comment lines read past), -p's MCP loading, hooks turned off, and the
// gate that fails open.
func TestInstalledFindings(t *testing.T) {
	repo := hosttest.Repo(t)
	ch := filepath.Join(t.TempDir(), "copilot-home")
	envs := map[string]string{"COPILOT_HOME": ch}
	o := hosttest.Options(t, repo, conffile.ScopeLocal, envs)
	for _, exe := range []string{o.Exe, o.HookExe} {
		testenv.WriteFile(t, filepath.Dir(exe), filepath.Base(exe), "#!/bin/sh\n")
		os.Chmod(exe, 0o755)
	}
	ctx := context.Background()
	res, err := Adapter{}.Install(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "not a trusted folder") }) {
		t.Fatalf("install notes do not say the folder is untrusted: %v", res.Notes)
	}
	finding := func(check string) conffile.Finding {
		t.Helper()
		for _, f := range statusOf(Adapter{}.Installed(o), conffile.ScopeLocal).Findings {
			if f.Check == check {
				return f
			}
		}
		t.Fatalf("no %s finding", check)
		return conffile.Finding{}
	}
	if f := finding("trust"); f.OK || !strings.Contains(f.Fix, "trustedFolders") {
		t.Fatalf("untrusted: %+v", f)
	}
	if f := finding("prompt-mcp"); f.OK || !strings.Contains(f.Fix, "GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true") {
		t.Fatalf("-p untrusted: %+v", f)
	}
	envs["GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP"] = "true"
	if f := finding("prompt-mcp"); !f.OK {
		t.Fatalf("-p with the variable: %+v", f)
	}
	if f := finding("fail-open"); !f.OK || !strings.Contains(f.Detail, "denies a tool call whose PreToolUse command fails") {
		t.Fatalf("fail-open with the binaries there: %+v", f)
	}
	// Trusted through a folder above the project, as Copilot writes
	// config.json (comment lines first).
	testenv.WriteFile(t, ch, "config.json", "// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  \"trustedFolders\": ["+q(filepath.Dir(repo))+"]\n}\n")
	if f := finding("trust"); !f.OK {
		t.Fatalf("trusted: %+v", f)
	}
	delete(envs, "GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP")
	if f := finding("prompt-mcp"); !f.OK {
		t.Fatalf("-p in a trusted folder: %+v", f)
	}
	// A sibling folder with the project's name as a prefix is no trust.
	testenv.WriteFile(t, ch, "config.json", `{"trustedFolders":[`+q(repo[:len(repo)-1])+`]}`)
	if f := finding("trust"); f.OK {
		t.Fatalf("a prefix is not a parent: %+v", f)
	}
	// Hooks turned off in the repo's local settings.
	testenv.WriteFile(t, filepath.Join(repo, ".github", "copilot"), "settings.local.json", `{"disableAllHooks": true}`)
	if f := finding("hooks-disabled"); f.OK || !strings.Contains(f.Detail, "gate is off") {
		t.Fatalf("hooks off: %+v", f)
	}
	// The hook binary gone: the gate fails open, doctor fails.
	os.Remove(o.HookExe)
	if f := finding("fail-open"); f.OK || !strings.Contains(f.Detail, "not an executable") || f.Fix == "" {
		t.Fatalf("binary missing: %+v", f)
	}
}

func TestLaunchAndDetect(t *testing.T) {
	t.Parallel()
	a := Adapter{}
	if got := a.Launch("fix the bug", ""); !slices.Equal(got, []string{"-i", "fix the bug"}) {
		t.Errorf("Launch start = %q", got)
	}
	if got := a.Launch("", ""); len(got) != 0 {
		t.Errorf("Launch without a prompt = %q", got)
	}
	if got := a.Launch("", "0cb916db-26aa-40f2-86b5-1ba81b225fd2"); !slices.Equal(got, []string{"--resume=0cb916db-26aa-40f2-86b5-1ba81b225fd2"}) {
		t.Errorf("Launch resume = %q", got)
	}
	home := t.TempDir()
	none := func(string) (string, error) { return "", os.ErrNotExist }
	if a.Detect(home, none) {
		t.Error("detected without a CLI or ~/.copilot")
	}
	if !a.Detect(home, func(string) (string, error) { return "/usr/bin/copilot", nil }) {
		t.Error("not detected with copilot on PATH")
	}
	os.Mkdir(filepath.Join(home, ".copilot"), 0o755)
	if !a.Detect(home, none) {
		t.Error("not detected with ~/.copilot")
	}
}

// A project without planq's wiring is not wired, whatever other
// servers and hooks it has (Claude Code's .mcp.json is not Copilot's).
func TestInstalledNothing(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.WriteFile(t, repo, ".mcp.json", `{"mcpServers":{"planq":{"command":"planq","args":["mcp","serve"]}}}`)
	testenv.WriteFile(t, repo, ".github/hooks/other.json", userHooksFile)
	o := hosttest.Options(t, repo, conffile.ScopeProject, nil)
	for _, st := range (Adapter{}).Installed(o) {
		if st.Wired() || len(st.Findings) != 0 || len(st.Missing) != len(Hooks) {
			t.Fatalf("%s scope: %+v", st.Scope, st)
		}
	}
	if _, err := os.Stat(filepath.Join(repo, ".github", "mcp.json")); !os.IsNotExist(err) {
		t.Fatalf("Installed wrote a file (%v)", err)
	}
}
