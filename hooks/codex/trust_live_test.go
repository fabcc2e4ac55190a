package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// codexHooks asks the real Codex (app-server, hooks/list) which hooks it
// sees in dir, with their state keys, hashes and trust.
func codexHooks(t *testing.T, bin, home, dir string) []map[string]any {
	t.Helper()
	ctx := testenv.Context(t)
	cmd := exec.CommandContext(ctx, bin, "app-server", "-c", "analytics.enabled=false")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := in.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "planq-test", "version": "1"}}})
	send(map[string]any{"method": "initialized"})
	send(map[string]any{"id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{dir}}})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []map[string]any `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		if len(msg.Result.Data) != 1 {
			t.Fatalf("hooks/list: %s", sc.Text())
		}
		return msg.Result.Data[0].Hooks
	}
	t.Fatalf("codex app-server ended without answering hooks/list: %v", sc.Err())
	return nil
}

// TestTrustAgainstCodex checks planq's hook keys and hashes against the ones
// the real Codex computes, and that the findings follow Codex's own trust
// status: untrusted after install, trusted once the printed lines are in the
// user's config.toml, and the project's trust for project scope.
func TestTrustAgainstCodex(t *testing.T) {
	t.Parallel()
	bin := fakemodel.EnsureCodex(t)
	for _, scope := range []string{conffile.ScopeUser, conffile.ScopeProject} {
		t.Run(scope, func(t *testing.T) {
			home, repo := t.TempDir(), t.TempDir()
			repo, _ = filepath.EvalSymlinks(repo)
			if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			o := conffile.Options{Scope: scope, ProjectDir: repo, Home: home, Exe: "/opt/planq dir/planq", HookExe: "/opt/planq dir/planq-hook"}
			if _, err := (Adapter{}).Install(context.Background(), o); err != nil {
				t.Fatal(err)
			}
			userFile := filepath.Join(home, ".codex", "config.toml")
			if scope == conffile.ScopeProject {
				// As a user told by planq doctor would.
				appendFile(t, userFile, fmt.Sprintf("\n[projects.%s]\ntrust_level = \"trusted\"\n", tomlString(repo)))
			}
			_, hooksFile := paths(o)
			_, doc, err := conffile.LoadJSON(hooksFile, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			mine := planqHandlers(hooksFile, doc)
			theirs := codexHooks(t, bin, home, repo)
			if len(mine) != len(Hooks) || len(theirs) != len(mine) {
				t.Fatalf("planq sees %d handlers, Codex %d, want %d: %+v", len(mine), len(theirs), len(Hooks), theirs)
			}
			byKey := map[string]map[string]any{}
			for _, h := range theirs {
				byKey[h["key"].(string)] = h
			}
			for _, h := range mine {
				c, ok := byKey[h.Key]
				if !ok {
					t.Fatalf("Codex has no hook %s; it has %v", h.Key, keys(byKey))
				}
				if c["currentHash"] != h.Hash || c["trustStatus"] != "untrusted" {
					t.Errorf("%s: Codex says hash %v (%v), planq computes %s", h.Key, c["currentHash"], c["trustStatus"], h.Hash)
				}
			}
			st := status(t, o)
			f := finding(st, "hook-trust")
			if f == nil || f.OK || !strings.Contains(f.Fix, "[hooks.state.") {
				t.Fatalf("hook-trust finding before trusting = %+v", f)
			}
			if pt := finding(st, "project-trust"); scope == conffile.ScopeProject && (pt == nil || !pt.OK) {
				t.Fatalf("project-trust finding = %+v, want trusted", pt)
			}
			// The lines the fix prints trust the hooks, as Codex sees it.
			_, lines, _ := strings.Cut(f.Fix, ":\n")
			appendFile(t, userFile, "\n"+lines+"\n")
			for _, c := range codexHooks(t, bin, home, repo) {
				if c["trustStatus"] != "trusted" {
					t.Errorf("after the fix Codex says %v is %v", c["key"], c["trustStatus"])
				}
			}
			if f := finding(status(t, o), "hook-trust"); f == nil || !f.OK {
				t.Fatalf("hook-trust finding after trusting = %+v", f)
			}
		})
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func status(t *testing.T, o conffile.Options) conffile.Status {
	t.Helper()
	for _, st := range (Adapter{}).Installed(o) {
		if st.Scope == o.Scope {
			return st
		}
	}
	t.Fatalf("no status for scope %s", o.Scope)
	return conffile.Status{}
}

func finding(st conffile.Status, check string) *conffile.Finding {
	for i := range st.Findings {
		if st.Findings[i].Check == check {
			return &st.Findings[i]
		}
	}
	return nil
}

func keys(m map[string]map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
