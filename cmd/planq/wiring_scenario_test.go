package main

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/conffile/unified"
	"github.com/planq-dev/planq/internal/testenv"
)

// userFiles are a user's own config for one host: files committed to the
// project's main (repo), files in the project that the user's .gitignore
// keeps untracked (ignored), and files in the home (home). The modes of
// some are not 0644 (modes).
type userFiles struct {
	repo, ignored, home map[string]string
	modes               map[string]os.FileMode
}

// wiringCase is one host's part of the scenario: the user's config, the
// local-scope files that are planq's in the project, and its doctor
// checks' prefix.
type wiringCase struct {
	host, display, prefix string
	// user is the user's config for an install of scope; local are the
	// host's local-scope files in the project (the tracked-file refusal
	// commits them).
	user  func(scope string) userFiles
	local []string
}

var wiringCases = []wiringCase{
	{host: "claude", display: "Claude Code", prefix: "", local: []string{".claude/settings.local.json"},
		user: func(scope string) userFiles {
			return userFiles{
				repo: map[string]string{
					".mcp.json":             "{\n   \"mcpServers\": {\n      \"github\": {\"type\": \"stdio\", \"command\": \"gh-mcp\", \"args\": [\"serve\"]}\n   }\n}\n",
					".claude/settings.json": "{\n\t\"permissions\": {\"allow\": [\"Bash(go test:*)\"]},\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"my-audit\"}]}\n\t\t]\n\t}\n}\n",
				},
				ignored: map[string]string{".claude/settings.local.json": "{\n    \"permissions\": {\"deny\": [\"Bash(rm:*)\"]},\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]}\n}"},
				home: map[string]string{
					".claude.json":          "{\n\t\"numStartups\": 7,\n\t\"projects\": {\n\t\t\"/elsewhere\": {\"allowedTools\": [], \"mcpServers\": {}}\n\t},\n\t\"mcpServers\": {\"mine\": {\"type\": \"stdio\", \"command\": \"my-mcp\"}}\n}\n",
					".claude/settings.json": "{\n  \"model\": \"opus\",\n  \"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"my-start\"}]}]}\n}\n",
				},
				modes: map[string]os.FileMode{".claude.json": 0o600},
			}
		}},
	{host: "opencode", display: "OpenCode", prefix: "opencode-", local: []string{".opencode/opencode.json", ".opencode/plugin/planq.js"},
		user: func(scope string) userFiles {
			jsonc := "{\n  // my OpenCode settings (JSONC: comments and trailing commas)\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"theme\": \"dark\",\n  \"mcp\": {\n    \"github\": {\"type\": \"local\", \"command\": [\"gh-mcp\"]}, // GitHub's\n  },\n}\n"
			return userFiles{
				repo:    map[string]string{"opencode.json": jsonc},
				ignored: map[string]string{".opencode/opencode.json": strings.ReplaceAll(jsonc, "  ", "\t")},
				home:    map[string]string{".config/opencode/opencode.json": jsonc},
			}
		}},
	{host: "codex", display: "Codex", prefix: "codex-", local: []string{".codex/config.toml", ".codex/hooks.json"},
		user: func(scope string) userFiles {
			toml := "# my codex settings\nmodel = \"gpt-5.5\" # the default\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n"
			hooks := "{\n    \"hooks\": {\n        \"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"my-prompt-log\"}]}]\n    }\n}\n"
			f := userFiles{
				home:  map[string]string{".codex/config.toml": toml, ".codex/hooks.json": hooks},
				modes: map[string]os.FileMode{".codex/config.toml": 0o644},
			}
			if scope == conffile.ScopeProject {
				f.repo = map[string]string{".codex/config.toml": toml, ".codex/hooks.json": hooks}
			} else {
				f.ignored = map[string]string{".codex/config.toml": toml, ".codex/hooks.json": hooks}
			}
			return f
		}},
	{host: "gemini", display: "Gemini CLI", prefix: "gemini-", local: []string{".gemini/settings.json"},
		user: func(scope string) userFiles {
			settings := "{\n  // Gemini CLI strips comments\n  \"general\": {\"vimMode\": true},\n  \"mcpServers\": {\"github\": {\"command\": \"gh-mcp\"}},\n  \"hooks\": {\n    \"BeforeTool\": [{\"matcher\": \"run_shell_command\", \"hooks\": [{\"type\": \"command\", \"command\": \"my-audit\"}]}]\n  }\n}\n"
			f := userFiles{home: map[string]string{".gemini/settings.json": settings}}
			if scope == conffile.ScopeProject {
				f.repo = map[string]string{".gemini/settings.json": settings}
			} else {
				f.ignored = map[string]string{".gemini/settings.json": settings}
			}
			return f
		}},
	{host: "copilot", display: "Copilot CLI", prefix: "copilot-", local: []string{".github/mcp.json", ".github/hooks/planq.json", ".github/instructions/planq.instructions.md"},
		user: func(scope string) userFiles {
			mcp := "{\n\t\"mcpServers\": {\n\t\t\"github\": {\"type\": \"local\", \"command\": \"gh-mcp\", \"tools\": [\"*\"]}\n\t}\n}\n"
			f := userFiles{
				repo: map[string]string{
					".github/hooks/mine.json":                    "{\"version\": 1, \"hooks\": {\"preToolUse\": [{\"type\": \"command\", \"bash\": \"my-audit\"}]}}\n",
					".github/instructions/style.instructions.md": "---\napplyTo: \"**\"\n---\nWrite short functions.\n",
				},
				home: map[string]string{
					".copilot/mcp-config.json":         mcp,
					".copilot/settings.json":           "{\n  \"model\": \"gpt-5\",\n  \"hooks\": {\"PreToolUse\": [{\"type\": \"command\", \"bash\": \"my-audit\", \"timeoutSec\": 5}]}\n}\n",
					".copilot/copilot-instructions.md": "# My instructions\n\nBe brief.",
				},
			}
			if scope == conffile.ScopeProject {
				f.repo[".github/mcp.json"] = mcp
			} else {
				f.ignored = map[string]string{".github/mcp.json": mcp}
			}
			return f
		}},
}

// TestWiringNeverLeaksAndUninstallGivesEverythingBack is, for every host
// and scope, a project holding the user's own config (comments, odd
// indentation, their own servers and hooks): install, a session that
// declares its change and pushes it (planq's MCP server over stdio, the
// host's PLANQ_HOST, real jj and a bare git remote), then uninstall. The
// pushed tree holds planq's wiring only in project scope; in local scope a
// file of planq's wiring that gets tracked makes doctor fail and jj_push
// refuse, naming it; after uninstall every file of the user's is as it was,
// byte for byte and mode, and no directory planq made is left; doctor says
// what is the case at each step. In local scope a file of the host's that
// the repo already tracks is refused, with nothing written.
func TestWiringNeverLeaksAndUninstallGivesEverythingBack(t *testing.T) {
	planq := buildPlanq(t)
	for _, c := range wiringCases {
		for _, scope := range []string{conffile.ScopeLocal, conffile.ScopeProject, conffile.ScopeUser} {
			t.Run(c.host+"/"+scope, func(t *testing.T) { wiringScenario(t, planq, c, scope) })
		}
		t.Run(c.host+"/local-tracked", func(t *testing.T) { trackedLocalRefused(t, planq, c) })
	}
}

// wiringWorld is one scenario's project, home and planq.
type wiringWorld struct {
	t            *testing.T
	planq        string
	repo, bare   string
	home         string
	env          []string
	host, prefix string
}

// newWiringWorld makes the project (a clone of a bare remote whose main
// holds f.repo and a .gitignore for f.ignored) and the home, with the
// user's files, a PATH on which host looks installed, and nothing else.
func newWiringWorld(t *testing.T, planq string, c wiringCase, f userFiles) *wiringWorld {
	t.Helper()
	testenv.Isolate(t)
	home := os.Getenv("HOME")
	bare := filepath.Join(t.TempDir(), "origin.git")
	testenv.Run(t, "", "git", "init", "-q", "--bare", "-b", "main", bare)
	work := t.TempDir()
	testenv.Run(t, work, "git", "init", "-q", "-b", "main")
	committed := maps.Clone(f.repo)
	if committed == nil {
		committed = map[string]string{}
	}
	committed["README.md"] = "# project\n"
	if len(f.ignored) > 0 {
		committed[".gitignore"] = strings.Join(slices.Sorted(maps.Keys(f.ignored)), "\n") + "\n"
	}
	for p, data := range committed {
		testenv.WriteFile(t, work, p, data)
	}
	testenv.Run(t, work, "git", "add", "-A")
	testenv.Run(t, work, "git", "commit", "-q", "-m", "The project, with its team's config")
	testenv.Run(t, work, "git", "push", "-q", bare, "main")
	repo := testenv.Clone(t, bare)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	for p, data := range f.ignored {
		testenv.WriteFile(t, repo, p, data)
	}
	for p, data := range f.home {
		testenv.WriteFile(t, home, p, data)
	}
	for p, mode := range f.modes {
		for _, root := range []string{repo, home} {
			if _, err := os.Stat(filepath.Join(root, p)); err == nil {
				if err := os.Chmod(filepath.Join(root, p), mode); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	path := fakeCLI(t, c.host) + ":" + jjDir(t) + ":/usr/local/bin:/usr/bin:/bin"
	env := append(os.Environ(), "PATH="+path)
	return &wiringWorld{t: t, planq: planq, repo: repo, bare: bare, home: home, env: env, host: c.host, prefix: c.prefix}
}

// planqCmd runs the planq binary in the project and returns its output
// and exit status.
func (w *wiringWorld) planqCmd(args ...string) (string, int) {
	w.t.Helper()
	cmd := exec.Command(w.planq, args...)
	cmd.Dir, cmd.Env = w.repo, w.env
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return string(out), code
}

// doctor runs planq doctor --json and returns its checks by name.
func (w *wiringWorld) doctor() map[string]check {
	w.t.Helper()
	out, _ := w.planqCmd("doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
		w.t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	checks := map[string]check{}
	for _, c := range rep.Checks {
		checks[c.Name] = c
	}
	return checks
}

// jj runs jj in the project.
func (w *wiringWorld) jj(args ...string) string {
	w.t.Helper()
	return testenv.Run(w.t, w.repo, "jj", append([]string{"--no-pager", "--color", "never"}, args...)...)
}

// snapshot is every file (bytes and mode) and directory of the user's
// config places: the project but its jj and git stores (info/exclude
// kept) and the session's own files, and the home but planq's and jj's.
func (w *wiringWorld) snapshot() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	walk := func(label, root string, skip func(rel string) bool) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if rel != "." && skip(rel) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if d.IsDir() {
				out[label+rel+"/"] = info.Mode().Perm().String()
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[label+rel] = info.Mode().Perm().String() + "\n" + string(data)
			return nil
		})
		if err != nil {
			w.t.Fatal(err)
		}
	}
	walk("$REPO/", w.repo, func(rel string) bool {
		switch {
		case rel == ".git/info" || rel == ".git/info/exclude":
			return false
		case rel == ".jj" || rel == ".git" || strings.HasPrefix(rel, ".git/"):
			return true
		}
		return strings.HasPrefix(rel, "session-")
	})
	walk("$HOME/", w.home, func(rel string) bool {
		return rel == ".planq" || rel == "jjconfig.toml" || rel == ".cache" || rel == ".config/jj"
	})
	return out
}

// sameAs fails the test for each difference between two snapshots.
func (w *wiringWorld) sameAs(what string, before, after map[string]string) {
	w.t.Helper()
	for _, p := range slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, bool) bool) {
		for k := range before {
			yield(k, true)
		}
		for k := range after {
			yield(k, true)
		}
	}))) {
		b, inBefore := before[p]
		a, inAfter := after[p]
		switch {
		case !inBefore:
			w.t.Errorf("%s: %s is new", what, p)
		case !inAfter:
			w.t.Errorf("%s: %s is gone", what, p)
		case a != b:
			w.t.Errorf("%s: %s changed:\n%s", what, p, unified.Diff("/"+p, []byte(b), []byte(a)))
		}
	}
}

// pushedFiles are the files of the remote's main.
func (w *wiringWorld) pushedFiles() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	for _, p := range strings.Fields(testenv.Run(w.t, "", "git", "--git-dir", w.bare, "ls-tree", "-r", "--name-only", "main")) {
		out[p] = testenv.Run(w.t, "", "git", "--git-dir", w.bare, "show", "main:"+p)
	}
	return out
}

// session declares a change through planq's MCP server (as the host starts
// it), writes a file, writes the summary and pushes; it returns the server
// for more.
func (w *wiringWorld) session(name string) *rpcClient {
	w.t.Helper()
	c := startServerEnv(w.t, w.repo, append(w.env, "PLANQ_HOST="+w.host))
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": w.host, "version": "1"}})
	c.notify("notifications/initialized")
	c.callTool("jj_init", map[string]any{"description": "Add " + name})
	testenv.WriteFile(w.t, w.repo, name, "hello\n")
	c.callTool("jj_describe", map[string]any{"description": "Add " + name + "\n\nDone:\n- " + name + "\n\nKey decisions:\n- none\n\nLeft to do:\n- none\n\nOpen questions:\n- none"})
	if out := c.callTool("jj_push", map[string]any{}); out["pushed"] != true {
		w.t.Fatalf("jj_push did not push: %v", out)
	}
	return c
}

func wiringScenario(t *testing.T, planq string, c wiringCase, scope string) {
	f := c.user(scope)
	w := newWiringWorld(t, planq, c, f)
	before := w.snapshot()
	pushedBefore := w.pushedFiles()

	if out, code := w.planqCmd("mcp", "install", "--host", c.host, "--scope", scope); code != 0 {
		t.Fatalf("planq mcp install: exit %d\n%s", code, out)
	}
	// Only project scope's wiring is in the working-copy change.
	if d := w.jj("diff", "--summary"); (d != "") != (scope == conffile.ScopeProject) {
		t.Fatalf("after a %s-scope install, jj diff --summary = %q", scope, d)
	}
	checks := w.doctor()
	for _, name := range []string{"server", "hooks", "fail-open"} {
		if ch := checks[c.prefix+name]; !ch.OK {
			t.Errorf("doctor after install: %s%s = %+v", c.prefix, name, ch)
		}
	}
	if lw, ok := checks["local-wiring"]; ok != (scope == conffile.ScopeLocal) || ok && !lw.OK {
		t.Errorf("doctor after a %s-scope install: local-wiring %+v (reported: %v)", scope, lw, ok)
	}

	w.session("session-one.txt")
	pushed := w.pushedFiles()
	want := maps.Clone(pushedBefore)
	want["session-one.txt"] = "hello\n"
	if scope == conffile.ScopeProject {
		// The wiring went with the change (project scope is for sharing):
		// the pushed files are the project's own, with planq's entries.
		var wired []string
		for p, data := range pushed {
			if strings.Contains(data, "planq") && p != "session-one.txt" {
				wired = append(wired, p)
			}
		}
		if len(wired) == 0 {
			t.Errorf("project scope: the pushed tree holds no planq wiring: %v", slices.Sorted(maps.Keys(pushed)))
		}
	} else if !maps.Equal(pushed, want) {
		t.Errorf("%s scope: the pushed tree is %v, want the project's files and the session's only", scope, slices.Sorted(maps.Keys(pushed)))
	}

	if scope == conffile.ScopeLocal {
		w.leakCaught(c)
	}

	if out, code := w.planqCmd("mcp", "uninstall", "--host", c.host, "--scope", scope); code != 0 {
		t.Fatalf("planq mcp uninstall: exit %d\n%s", code, out)
	}
	w.sameAs("after uninstall", before, w.snapshot())
	checks = w.doctor()
	if ch := checks[c.prefix+"server"]; ch.OK || !strings.Contains(ch.Detail, "not registered with "+c.display) {
		t.Errorf("doctor after uninstall: %sserver = %+v", c.prefix, ch)
	}
	if _, ok := checks["local-wiring"]; ok {
		t.Errorf("doctor after uninstall still checks local wiring: %+v", checks["local-wiring"])
	}
	// Only this host is on the machine: doctor says nothing of Claude Code.
	if ch, ok := checks["server"]; ok && c.host != "claude" {
		t.Errorf("doctor on a machine with only %s checks Claude Code: %+v", c.display, ch)
	}
}

// leakCaught tracks the local wiring in a new change, as a user might by
// mistake: doctor fails naming the file, and jj_push refuses naming it;
// the fix doctor gives (jj file untrack) puts it right.
func (w *wiringWorld) leakCaught(c wiringCase) {
	t := w.t
	t.Helper()
	w.jj("new", "trunk()", "-m", "Track everything")
	w.jj("file", "track", "--include-ignored", c.local[0])
	lw := w.doctor()["local-wiring"]
	if lw.OK || !strings.Contains(lw.Detail, c.local[0]) || !strings.Contains(lw.Detail, "tracked") || !strings.Contains(lw.Fix, "jj file untrack") {
		t.Errorf("doctor with %s tracked: local-wiring %+v", c.local[0], lw)
	}
	s := startServerEnv(t, w.repo, append(w.env, "PLANQ_HOST="+w.host))
	s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": w.host, "version": "1"}})
	if msg := s.toolError("jj_push", map[string]any{}); !strings.Contains(msg, "Refusing to push: planq's local wiring") || !strings.Contains(msg, c.local[0]) {
		t.Errorf("jj_push with %s in the stack: %q", c.local[0], msg)
	}
	w.jj("file", "untrack", c.local[0])
	if lw := w.doctor()["local-wiring"]; !lw.OK {
		t.Errorf("doctor after undoing the tracking: %+v", lw)
	}
}

// trackedLocalRefused: a project that tracks the host's local-scope file
// gets no local-scope install, told why and what to use, and nothing of
// the user's changes.
func trackedLocalRefused(t *testing.T, planq string, c wiringCase) {
	f := c.user(conffile.ScopeLocal)
	if f.repo == nil {
		f.repo = map[string]string{}
	}
	for p, data := range f.ignored {
		f.repo[p] = data
	}
	if _, ok := f.repo[c.local[0]]; !ok {
		f.repo[c.local[0]] = "{}\n"
	}
	f.ignored = nil
	w := newWiringWorld(t, planq, c, f)
	before := w.snapshot()
	out, code := w.planqCmd("mcp", "install", "--host", c.host, "--scope", "local")
	if code == 0 || !strings.Contains(out, "is part of the repo") || !strings.Contains(out, "--scope project") || !strings.Contains(out, "--scope user") {
		t.Fatalf("install into a project that tracks %s: exit %d\n%s", c.local[0], code, out)
	}
	w.sameAs("after the refusal", before, w.snapshot())
	if d := w.jj("diff", "--summary"); d != "" {
		t.Errorf("after the refusal jj diff --summary = %q", d)
	}
}

// jjDir is the directory of the jj on PATH.
func jjDir(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("jj")
	if err != nil {
		t.Skip("jj is not installed")
	}
	return filepath.Dir(p)
}
