package opencode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosttest"
	"github.com/planq-dev/planq/internal/testenv"
)

func installOpts(t *testing.T, repo, scope string) conffile.Options {
	t.Helper()
	bin := t.TempDir()
	return conffile.Options{Scope: scope, ProjectDir: repo, Home: os.Getenv("HOME"), Exe: filepath.Join(bin, "planq"), HookExe: filepath.Join(bin, "planq-hook")}
}

// Each scope writes the server and the plugin where OpenCode reads them,
// keeps the user's settings, changes nothing the second time, and uninstall
// takes back exactly what install added.
func TestInstallScopes(t *testing.T) {
	for _, scope := range []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser} {
		t.Run(scope, func(t *testing.T) {
			testenv.Isolate(t)
			repo := testenv.JJRepo(t)
			o := installOpts(t, repo, scope)
			server, plugin := paths(o)
			// The user's own settings, and another server, are kept.
			user := `{"model":"anthropic/claude","mcp":{"github":{"type":"remote","url":"https://x"}}}` + "\n"
			if scope != conffile.ScopeLocal {
				testenv.WriteFile(t, filepath.Dir(server), filepath.Base(server), user)
			}
			ctx := context.Background()
			dry := o
			dry.DryRun = true
			res, err := Adapter{}.Install(ctx, dry)
			if err != nil || !res.Changed() {
				t.Fatalf("dry run: %+v, %v", res, err)
			}
			if _, err := os.Stat(plugin); !os.IsNotExist(err) {
				t.Fatalf("the dry run wrote the plugin (%v)", err)
			}
			if _, err = (Adapter{}).Install(ctx, o); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Model string `json:"model"`
				MCP   map[string]struct {
					Type        string            `json:"type"`
					Command     []string          `json:"command"`
					Environment map[string]string `json:"environment"`
				} `json:"mcp"`
			}
			if err := json.Unmarshal([]byte(hosttest.ReadFile(t, server)), &doc); err != nil {
				t.Fatal(err)
			}
			p := doc.MCP["planq"]
			if p.Type != "local" || strings.Join(p.Command, " ") != o.Exe+" mcp serve" || p.Environment["PLANQ_HOST"] != "opencode" {
				t.Fatalf("planq's server entry: %+v", p)
			}
			if scope != conffile.ScopeLocal && (doc.Model != "anthropic/claude" || doc.MCP["github"].Type != "remote") {
				t.Fatalf("the user's settings were lost:\n%s", hosttest.ReadFile(t, server))
			}
			if js := hosttest.ReadFile(t, plugin); !strings.Contains(js, `const HOOK = "`+o.HookExe+`"`) || !strings.Contains(js, `const PLANQ = "`+o.Exe+`"`) {
				t.Fatalf("plugin does not run planq's binaries:\n%.400s", js)
			}
			sts := Adapter{}.Installed(conffile.Options{ProjectDir: repo, Home: o.Home})
			var wired []string
			for _, st := range sts {
				if st.Server && len(st.Missing) == 0 {
					wired = append(wired, st.Scope)
					if len(st.ToolHookExes) != 1 || st.ToolHookExes[0] != o.HookExe {
						t.Errorf("status tool hook binaries %v, want %s", st.ToolHookExes, o.HookExe)
					}
				}
			}
			if strings.Join(wired, ",") != scope {
				t.Fatalf("status says wired in %v, want %s", wired, scope)
			}
			if res, err := (Adapter{}).Install(ctx, o); err != nil || res.Changed() {
				t.Fatalf("second install changed %d files (%v)", len(res.Edits), err)
			}
			if scope == conffile.ScopeLocal {
				// jj does not see the local wiring: it is in no change.
				if st := testenv.Run(t, repo, "jj", "diff", "--summary"); strings.Contains(st, ".opencode") {
					t.Fatalf("the local wiring is part of the change:\n%s", st)
				}
			}
			un := o
			un.Uninstall = true
			if _, err := (Adapter{}).Install(ctx, un); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(plugin); !os.IsNotExist(err) {
				t.Fatalf("uninstall left the plugin (%v)", err)
			}
			switch scope {
			case conffile.ScopeLocal:
				if _, err := os.Stat(server); !os.IsNotExist(err) {
					t.Fatalf("uninstall left %s, which held only planq", server)
				}
			default:
				if got := hosttest.ReadFile(t, server); strings.Contains(got, "planq") || !strings.Contains(got, "github") {
					t.Fatalf("after uninstall:\n%s", got)
				}
			}
		})
	}
}

// A file at the plugin's path that is not planq's is never overwritten.
func TestInstallKeepsAForeignPlugin(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	o := installOpts(t, repo, conffile.ScopeProject)
	_, plugin := paths(o)
	testenv.WriteFile(t, filepath.Dir(plugin), "planq.js", "export const Mine = async () => ({})\n")
	if _, err := (Adapter{}).Install(context.Background(), o); err == nil || !strings.Contains(err.Error(), "not planq's plugin") {
		t.Fatalf("install over a foreign plugin: %v", err)
	}
	if got := hosttest.ReadFile(t, plugin); !strings.Contains(got, "Mine") {
		t.Fatalf("the foreign plugin was changed:\n%s", got)
	}
}
