package claude

import (
	"context"
	"encoding/json"
	"github.com/planq-dev/planq/hooks/conffile"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile/unified"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

const userSettings = `{
    "permissions": {"allow": ["Bash(go test:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/audit-bash"}]}
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}
        ]
    },
    "model": "opus"
}
`

const userMCP = `{
  "mcpServers": {
    "github": {"type": "stdio", "command": "gh-mcp", "args": ["serve"], "env": {"TOKEN": "x"}}
  },
  "other": [1, 2.50, {"deep": null}]
}
`

type world struct {
	repo, home, exe string
}

func newWorld(t *testing.T) world {
	t.Helper()
	w := world{repo: t.TempDir(), home: t.TempDir(), exe: "/opt/planq/bin/planq"}
	return w
}

func (w world) opts(scope string) InstallOptions {
	return InstallOptions{Scope: scope, ProjectDir: w.repo, Home: w.home, Exe: w.exe}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func decode(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("invalid JSON written: %v\n%s", err, data)
	}
	return m
}

// planqHooks returns event -> planq hook commands in a settings document.
func planqHooks(t *testing.T, settings map[string]any) map[string][]string {
	out := map[string][]string{}
	hooks, _ := settings["hooks"].(map[string]any)
	for ev, groups := range hooks {
		for _, g := range groups.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				cmd := h.(map[string]any)["command"].(string)
				if strings.Contains(cmd, "planq") {
					if ev == "PreToolUse" && !conffile.FailsClosed(cmd) {
						t.Errorf("the gate's command %q does not fail closed", cmd)
					}
					out[ev] = append(out[ev], conffile.Line(conffile.HookArgv(cmd)...))
				}
			}
		}
	}
	return out
}

func TestInstallProjectScopeKeepsEverythingElseAndIsIdempotent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	settingsPath := filepath.Join(w.repo, ".claude", "settings.json")
	mcpPath := filepath.Join(w.repo, ".mcp.json")
	write(t, settingsPath, userSettings)
	write(t, mcpPath, userMCP)

	res, err := Install(ctx, w.opts(ScopeProject))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edits) != 2 {
		t.Fatalf("first install edited %d files, want 2", len(res.Edits))
	}
	settings := decode(t, read(t, settingsPath))
	mcp := decode(t, read(t, mcpPath))

	// planq is registered with the absolute binary path...
	server := mcp["mcpServers"].(map[string]any)["planq"].(map[string]any)
	if server["command"] != w.exe || !reflect.DeepEqual(server["args"], []any{"mcp", "serve"}) || server["type"] != "stdio" {
		t.Fatalf("planq server entry = %v", server)
	}
	got := planqHooks(t, settings)
	for _, h := range Hooks {
		want := []string{w.exe + " hook " + h.Subcommand}
		if !reflect.DeepEqual(got[h.Event], want) {
			t.Errorf("%s hooks = %v, want %v", h.Event, got[h.Event], want)
		}
	}
	// ...and nothing of the user's is lost.
	orig := decode(t, userMCP)
	if !reflect.DeepEqual(mcp["mcpServers"].(map[string]any)["github"], orig["mcpServers"].(map[string]any)["github"]) ||
		!reflect.DeepEqual(mcp["other"], orig["other"]) {
		t.Fatalf(".mcp.json lost the user's keys:\n%s", read(t, mcpPath))
	}
	if !strings.Contains(read(t, mcpPath), `2.50`) {
		t.Fatalf("number 2.50 was reformatted:\n%s", read(t, mcpPath))
	}
	origSettings := decode(t, userSettings)
	if !reflect.DeepEqual(settings["permissions"], origSettings["permissions"]) || settings["model"] != "opus" {
		t.Fatalf("settings lost the user's keys:\n%s", read(t, settingsPath))
	}
	pre := settings["hooks"].(map[string]any)["PreToolUse"].([]any)
	if first := pre[0].(map[string]any); first["matcher"] != "Bash" {
		t.Fatalf("user's PreToolUse hook moved or lost: %v", pre)
	}
	stop := settings["hooks"].(map[string]any)["Stop"].([]any)
	if len(stop) != 2 || !strings.Contains(read(t, settingsPath), "notify-send done") {
		t.Fatalf("user's Stop hook lost: %v", stop)
	}

	// A second run changes nothing, byte for byte.
	beforeS, beforeM := read(t, settingsPath), read(t, mcpPath)
	res, err = Install(ctx, w.opts(ScopeProject))
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed() {
		t.Fatalf("second install changed %d files:\n%s", len(res.Edits), unified.Edit(res.Edits[0]))
	}
	if read(t, settingsPath) != beforeS || read(t, mcpPath) != beforeM {
		t.Fatal("second install rewrote a file")
	}

	// Uninstall removes only planq's entries.
	if _, err := Install(ctx, InstallOptions{Scope: ScopeProject, ProjectDir: w.repo, Home: w.home, Uninstall: true}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(decode(t, read(t, mcpPath)), orig) {
		t.Fatalf("uninstall did not restore .mcp.json:\n%s", read(t, mcpPath))
	}
	if !reflect.DeepEqual(decode(t, read(t, settingsPath)), origSettings) {
		t.Fatalf("uninstall did not restore settings.json:\n%s", read(t, settingsPath))
	}
}

func TestInstallIntoNothingAndUninstallRemovesPlanqOnlyFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	res, err := Install(ctx, w.opts(ScopeProject))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Edits {
		if e.Before != nil {
			t.Fatalf("%s existed before", e.Path)
		}
	}
	if _, err := Install(ctx, InstallOptions{Scope: ScopeProject, ProjectDir: w.repo, Home: w.home, Uninstall: true}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(w.repo, ".mcp.json"), filepath.Join(w.repo, ".claude", "settings.json")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s still exists after uninstall (it held only planq): %v", p, err)
		}
	}
	// Uninstalling again is a no-op.
	res, err = Install(ctx, InstallOptions{Scope: ScopeProject, ProjectDir: w.repo, Home: w.home, Uninstall: true})
	if err != nil || res.Changed() {
		t.Fatalf("second uninstall: %+v, %v", res, err)
	}
}

func TestInstallLocalAndUserScopeEditClaudeJSON(t *testing.T) {
	t.Parallel()
	claudeJSON := `{
  "numStartups": 3,
  "projects": {
    "/some/other": {"mcpServers": {"x": {"command": "x"}}, "allowedTools": []}
  },
  "mcpServers": {"global": {"command": "g"}}
}`
	for _, scope := range []string{ScopeLocal, ScopeUser} {
		t.Run(scope, func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			path := filepath.Join(w.home, ".claude.json")
			write(t, path, claudeJSON)
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Install(ctx, w.opts(scope)); err != nil {
				t.Fatal(err)
			}
			doc := decode(t, read(t, path))
			var servers map[string]any
			if scope == ScopeLocal {
				servers = doc["projects"].(map[string]any)[w.repo].(map[string]any)["mcpServers"].(map[string]any)
				if _, ok := doc["mcpServers"].(map[string]any)["planq"]; ok {
					t.Fatal("local scope wrote the user-wide mcpServers")
				}
			} else {
				servers = doc["mcpServers"].(map[string]any)
			}
			if servers["planq"].(map[string]any)["command"] != w.exe {
				t.Fatalf("planq not registered: %v", servers)
			}
			if doc["numStartups"].(float64) != 3 || doc["projects"].(map[string]any)["/some/other"] == nil || doc["mcpServers"].(map[string]any)["global"] == nil {
				t.Fatalf("other keys lost:\n%s", read(t, path))
			}
			if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
				t.Fatalf("~/.claude.json mode %v, want 0600 kept", info.Mode().Perm())
			}
			settings := filepath.Join(w.repo, ".claude", "settings.local.json")
			if scope == ScopeUser {
				settings = filepath.Join(w.home, ".claude", "settings.json")
			}
			if got := planqHooks(t, decode(t, read(t, settings))); len(got) != len(Hooks) {
				t.Fatalf("hooks in %s: %v", settings, got)
			}
			if res, _ := Install(ctx, w.opts(scope)); res.Changed() {
				t.Fatal("second install changed files")
			}
			if _, err := Install(ctx, InstallOptions{Scope: scope, ProjectDir: w.repo, Home: w.home, Uninstall: true}); err != nil {
				t.Fatal(err)
			}
			doc = decode(t, read(t, path))
			if !reflect.DeepEqual(doc["projects"].(map[string]any)["/some/other"], decode(t, claudeJSON)["projects"].(map[string]any)["/some/other"]) {
				t.Fatal("uninstall touched another project")
			}
			if strings.Contains(read(t, path), w.exe) {
				t.Fatalf("uninstall left planq in ~/.claude.json:\n%s", read(t, path))
			}
		})
	}
}

func TestInstallUpdatesAMovedBinaryInPlace(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	if _, err := Install(ctx, w.opts(ScopeProject)); err != nil {
		t.Fatal(err)
	}
	settingsPath := filepath.Join(w.repo, ".claude", "settings.json")
	w.exe = "/home/me/go/bin/my planq dir/planq"
	res, err := Install(ctx, w.opts(ScopeProject))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Edits) != 2 {
		t.Fatalf("moved binary: %d edits, want 2", len(res.Edits))
	}
	got := planqHooks(t, decode(t, read(t, settingsPath)))
	if want := []string{`'/home/me/go/bin/my planq dir/planq' hook stop`}; !reflect.DeepEqual(got["Stop"], want) {
		t.Fatalf("Stop hooks = %v, want %v (old path replaced, the new one quoted)", got["Stop"], want)
	}
}

func TestInstallDryRunPrintsDiffAndWritesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	settingsPath := filepath.Join(w.repo, ".claude", "settings.json")
	write(t, settingsPath, userSettings)
	o := w.opts(ScopeProject)
	o.DryRun = true
	res, err := Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if read(t, settingsPath) != userSettings {
		t.Fatal("dry run wrote settings.json")
	}
	if _, err := os.Stat(filepath.Join(w.repo, ".mcp.json")); !os.IsNotExist(err) {
		t.Fatal("dry run created .mcp.json")
	}
	var diffs strings.Builder
	for _, e := range res.Edits {
		diffs.WriteString(unified.Edit(e))
	}
	d := diffs.String()
	for _, want := range []string{
		"--- /dev/null\n+++ b" + filepath.Join(w.repo, ".mcp.json"),
		"--- a" + settingsPath + "\n+++ b" + settingsPath,
		`"command": "/opt/planq/bin/planq hook session-start",`,
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	// planq adds; a line of the user's only gains the comma before planq's.
	for _, l := range strings.Split(d, "\n") {
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") && !strings.Contains(d, "\n+"+l[1:]+",\n") {
			t.Errorf("the diff rewrites a line of the user's: %q\n%s", l, d)
		}
	}
}

func TestInstallRefusesBrokenFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	settingsPath := filepath.Join(w.repo, ".claude", "settings.json")
	write(t, settingsPath, `{"hooks": {"Stop": "oops"}}`)
	_, err := Install(context.Background(), w.opts(ScopeProject))
	if err == nil || !strings.Contains(err.Error(), "hooks.Stop is not a list") {
		t.Fatalf("err = %v", err)
	}
	write(t, settingsPath, `{"hooks": `)
	_, err = Install(context.Background(), w.opts(ScopeProject))
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.repo, ".mcp.json")); !os.IsNotExist(err) {
		t.Fatal("a failed install wrote .mcp.json")
	}
	if _, err := Install(context.Background(), InstallOptions{Scope: "global", ProjectDir: w.repo, Home: w.home, Exe: w.exe}); err == nil {
		t.Fatal("scope global accepted")
	}
}

func TestInstalledReportsWiring(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	if _, err := Install(context.Background(), w.opts(ScopeProject)); err != nil {
		t.Fatal(err)
	}
	st := Installed(w.repo, w.home)
	if st[0].Scope != ScopeProject || !st[0].Server || st[0].ServerExe != w.exe || len(st[0].Missing) != 0 {
		t.Fatalf("project status = %+v", st[0])
	}
	if st[1].Server || len(st[1].Hooks) != 0 {
		t.Fatalf("local status = %+v", st[1])
	}
}

// Local scope registers the server in the user's ~/.claude.json by adding
// exactly planq's entry (Claude Code's own `claude mcp add-json` would
// rewrite the file and add keys of its own), real Claude Code reads it from
// there, and uninstalling gives the file back byte for byte.
func TestLocalRegistrationIsReadByClaudeCode(t *testing.T) {
	t.Parallel()
	claude := fakemodel.EnsureClaude(t)
	w := newWorld(t)
	claudeJSON := filepath.Join(w.home, ".claude.json")
	user := "{\n\t\"numStartups\": 3,\n\t\"projects\": {\n\t\t\"/elsewhere\": {\"mcpServers\": {}}\n\t}\n}\n"
	write(t, claudeJSON, user)
	o := w.opts(ScopeLocal)
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got := read(t, claudeJSON)
	want := strings.Replace(user, "\"mcpServers\": {}}\n", "\"mcpServers\": {}},\n\t\t"+
		`"`+w.repo+`": {"mcpServers": {"planq": {"type": "stdio", "command": "/opt/planq/bin/planq", "args": ["mcp", "serve"]}}}`+"\n", 1)
	if got != want {
		t.Fatalf("~/.claude.json after install:\n%s\nwant only planq's entry added:\n%s", got, want)
	}
	// Claude Code finds the server for this project (in a copy of the
	// home: claude writes its own keys to the file it reads).
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude.json"), got)
	cmd := exec.Command(claude, "mcp", "get", ServerName)
	cmd.Dir, cmd.Env = w.repo, append(os.Environ(), "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "/opt/planq/bin/planq") || !strings.Contains(strings.ToLower(string(out)), "local") {
		t.Fatalf("claude mcp get planq: %v\n%s", err, out)
	}
	o.Uninstall = true
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if back := read(t, claudeJSON); back != user {
		t.Fatalf("~/.claude.json after uninstall:\n%q\nwant the user's bytes:\n%q", back, user)
	}
}

func TestShellQuoteRoundTrips(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/usr/bin/planq", "/a b/planq", "/it's/planq", `/x"y/planq`, "/tmp/go-build1/b001/planq.test",
		`C:\Users\Ann Lee\AppData\Local\planq\planq.exe`, "/$HOME/`x`/planq", "/tab\there/planq"} {
		cmd := HookCommand(p, "stop")
		if f := conffile.Fields(cmd); len(f) != 3 || f[0] != p || !conffile.IsPlanqHook(cmd, "stop", "", "") {
			t.Errorf("%q -> %q -> %q", p, cmd, f)
		}
		// A real shell reads the quoted path back as one word, unchanged.
		if out, err := exec.Command("sh", "-c", "printf %s "+conffile.Quote(p)).Output(); err != nil || string(out) != p {
			t.Errorf("sh reads %q back as %q (%v)", conffile.Quote(p), out, err)
		}
	}
	for _, cmd := range []string{"/usr/bin/notify hook stop", "planq hook stop now", "planq stop", "planq hook other"} {
		if conffile.IsPlanqHook(cmd, "stop", "", "") {
			t.Errorf("%q taken for planq's stop hook", cmd)
		}
	}
}

func TestInstallMovesAnOldCatchAllToolHookToTheGatedMatcher(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	settingsPath := filepath.Join(w.repo, ".claude", "settings.json")
	old := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[` +
		`{"type":"command","command":"audit-log"},` +
		`{"type":"command","command":"` + w.exe + ` hook pre-tool-use","timeout":10}]}]}}`
	write(t, settingsPath, old)
	if _, err := Install(context.Background(), w.opts(ScopeProject)); err != nil {
		t.Fatal(err)
	}
	doc := decode(t, read(t, settingsPath))
	groups := doc["hooks"].(map[string]any)["PreToolUse"].([]any)
	var catchAll, gated []string
	for _, g := range groups {
		group := g.(map[string]any)
		for _, h := range group["hooks"].([]any) {
			cmd := h.(map[string]any)["command"].(string)
			switch group["matcher"] {
			case "*":
				catchAll = append(catchAll, cmd)
			case GatedTools:
				gated = append(gated, cmd)
			}
		}
	}
	if !reflect.DeepEqual(catchAll, []string{"audit-log"}) {
		t.Errorf("catch-all group = %v, want only the user's audit-log", catchAll)
	}
	if len(gated) != 1 || !strings.HasSuffix(strings.Join(conffile.HookArgv(gated[0]), " "), "hook pre-tool-use") {
		t.Errorf("gated group = %v, want planq's pre-tool-use", gated)
	}
}

// TestLocalScopeHooksStayOutOfJJ: local scope's hooks file is ignored through
// the repo's own exclude file, so jj never snapshots it into a change and no
// `jj new` takes planq's hooks off the disk; the working copy is untouched.
func TestLocalScopeHooksStayOutOfJJ(t *testing.T) {
	testenv.Isolate(t)
	for kind, repo := range map[string]string{"colocated": testenv.JJRepo(t), "jj only": testenv.JJOnlyRepo(t)} {
		t.Run(kind, func(t *testing.T) {
			w := newWorld(t)
			w.repo = repo
			ctx := context.Background()
			dry, err := Install(ctx, InstallOptions{Scope: ScopeLocal, ProjectDir: w.repo, Home: w.home, Exe: w.exe, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			var diffs string
			for _, e := range dry.Edits {
				diffs += unified.Edit(e)
			}
			if !strings.Contains(diffs, "info/exclude") || !strings.Contains(diffs, "+/.claude/settings.local.json") {
				t.Errorf("--dry-run does not show the exclude edit:\n%s", diffs)
			}
			res, err := Install(ctx, w.opts(ScopeLocal))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(res.Notes, "\n"), "jj and git ignore the local wiring") {
				t.Errorf("notes %q do not say the hooks file is ignored", res.Notes)
			}
			if st := testenv.Run(t, w.repo, "jj", "--no-pager", "diff", "--summary"); st != "" {
				t.Errorf("jj sees the install in the working copy:\n%s", st)
			}
			testenv.Run(t, w.repo, "jj", "new", "root()", "-m", "elsewhere")
			if got := planqHooks(t, decode(t, read(t, filepath.Join(w.repo, ".claude", "settings.local.json")))); len(got) != len(Hooks) {
				t.Errorf("after jj new elsewhere the hooks are %v", got)
			}
			if again, _ := Install(ctx, w.opts(ScopeLocal)); again.Changed() {
				t.Errorf("a second install changed %v", again.Edits)
			}
			un := w.opts(ScopeLocal)
			un.Uninstall = true
			res, err = Install(ctx, un)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range dry.Edits {
				if got, _ := conffile.ReadOrNil(e.Path); string(got) != string(e.Before) {
					t.Errorf("after uninstall %s is\n%q\nwant it back as it was:\n%q", e.Path, got, e.Before)
				}
			}
			if _, err := os.Stat(filepath.Join(w.repo, ".claude")); !os.IsNotExist(err) {
				t.Errorf("the .claude directory planq made is still there (%v)", err)
			}
		})
	}
}

// With planq-hook beside planq, the tool hooks run it; the session hooks
// stay on planq. Reinstalling without it moves them back, in place, and
// uninstalling removes either form.
func TestInstallWiresToolHooksToPlanqHook(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	settings := filepath.Join(w.repo, ".claude", "settings.json")
	o := w.opts(ScopeProject)
	o.HookExe = "/opt/planq/bin/planq-hook"
	if _, err := Install(ctx, o); err != nil {
		t.Fatal(err)
	}
	got := planqHooks(t, decode(t, read(t, settings)))
	want := map[string][]string{
		"SessionStart": {"/opt/planq/bin/planq hook session-start"},
		"PreToolUse":   {"/opt/planq/bin/planq-hook pre-tool-use"},
		"PostToolUse":  {"/opt/planq/bin/planq-hook post-tool-use"},
		"PreCompact":   {"/opt/planq/bin/planq hook pre-compact"},
		"Stop":         {"/opt/planq/bin/planq hook stop"},
		"SessionEnd":   {"/opt/planq/bin/planq hook session-end"},

		"WorktreeCreate": {"/opt/planq/bin/planq hook worktree-create"},
		"WorktreeRemove": {"/opt/planq/bin/planq hook worktree-remove"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hooks:\n%v\nwant\n%v", got, want)
	}
	st := Installed(w.repo, w.home)[0]
	if len(st.Missing) != 0 || !reflect.DeepEqual(st.ToolHookExes, []string{"/opt/planq/bin/planq-hook"}) {
		t.Errorf("Installed: %+v", st)
	}
	// Again: nothing changes.
	if res, err := Install(ctx, o); err != nil || res.Changed() {
		t.Fatalf("second install changed %v, %v", res.Edits, err)
	}
	// Without planq-hook the tool hooks go back to planq hook, in place.
	if _, err := Install(ctx, w.opts(ScopeProject)); err != nil {
		t.Fatal(err)
	}
	got = planqHooks(t, decode(t, read(t, settings)))
	if !reflect.DeepEqual(got["PreToolUse"], []string{"/opt/planq/bin/planq hook pre-tool-use"}) {
		t.Fatalf("PreToolUse after reinstalling without planq-hook: %v", got["PreToolUse"])
	}
	if _, err := Install(ctx, o); err != nil {
		t.Fatal(err)
	}
	un := w.opts(ScopeProject)
	un.Uninstall, un.Exe = true, ""
	if _, err := Install(ctx, un); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s: %s", settings, read(t, settings))
	}
}

func TestHookBinaryBeside(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "planq")
	if got := conffile.HookBinaryBeside(exe); got != "" {
		t.Errorf("no planq-hook: %q", got)
	}
	write(t, filepath.Join(dir, "planq-hook"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(dir, "planq-hook"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := conffile.HookBinaryBeside(exe); got != filepath.Join(dir, "planq-hook") {
		t.Errorf("planq-hook beside planq: %q", got)
	}
}
