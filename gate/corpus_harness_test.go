package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// The command corpora (corpus_modifying_test.go, corpus_readonly_test.go)
// run each command the way an agent host runs it after the pre-tool-use
// hook has answered: the real planq-hook binary is given Claude Code's
// hook input for a Bash call while the project's gate is locked, and its
// answer decides — a denial runs nothing, an allow runs the original
// command, a rewrite runs the rewritten command exactly as Claude Code would
// (updatedInput.command through bash, in the project). The project, HOME's
// dot files and the PATH directory inside the sandbox are compared before
// and after. Everything runs in a throwaway copy of a real jj repository
// (sandbox_test.go), with HOME, TMPDIR and PATH under the test's control.
//
// Under -short only the verdicts are checked, in process.

// corpusCase is one command of a corpus.
type corpusCase struct {
	// cmd is the command. {T} stands for the sandbox's directory (the
	// project is {T}/repo, the working directory), {PORT} for the port of
	// the local HTTP server and {SOCK} for its unix socket, {TMUX} for the
	// local tmux server's socket (see server).
	cmd string
	// needs lists the programs the command needs besides bash, coreutils,
	// jj and git. A modifying command whose program is missing is still
	// judged (and must be held); a read-only one is skipped, saying so.
	needs []string
	// only says why the command is judged but never run: it would reach
	// outside the sandbox (another host, a system daemon, the network).
	only string
	// server is a local server the harness starts, outside any sandbox,
	// before the command runs: "http" (an HTTP API on 127.0.0.1:{PORT}
	// and on the unix socket {SOCK}, which writes GET|PUT /write/NAME into
	// the project) or "tmux" (a tmux server on {TMUX} whose session runs in
	// the project).
	server string
	// miss (modifying) says why the parser-only gate lets it through: a
	// known limit of a gate without the OS sandbox. deny (read-only) says
	// why the parser-only gate denies it. Both are checked: a mark that is
	// no longer true fails the test.
	miss, deny string
	// sure (modifying): the parser must be sure it modifies, and deny it
	// without running even with the OS sandbox at hand (a visible write
	// into the project, or a server the sandbox cannot hold).
	sure bool
}

// corpusClass is a named group of cases.
type corpusClass struct {
	name  string
	cases []corpusCase
}

// hookAnswer is what the host does with a call after the hook answered.
type hookAnswer struct {
	kind    string // answerDeny, answerAllow or answerRewrite
	command string // answerRewrite: the command the host runs instead
	reason  string
}

const (
	answerDeny    = "deny"
	answerAllow   = "allow"
	answerRewrite = "rewrite"
)

func (h hookAnswer) held() bool { return h.kind != answerAllow }

// corpusTemplate is the sandbox template (sandbox_test.go) with the files
// the corpora need besides, snapshotted by jj, and the gate's state read
// once by the hook, so that every copy starts locked with a warm cache.
var corpusTemplate = corpusOnce(func() (string, error) {
	base, err := sandboxTemplate()
	if err != nil {
		return "", err
	}
	t, err := corpusTemp("planq-corpus-")
	if err != nil {
		return "", err
	}
	if err := copyTree(base, t); err != nil {
		return "", err
	}
	s := corpusSandboxAt(t)
	for name, content := range corpusFiles {
		p := filepath.Join(s.repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(s.bin, 0o755); err != nil {
		return "", err
	}
	if _, err := writeTools(filepath.Join(t, toolsDir), corpusTool, corpusTools...); err != nil {
		return "", err
	}
	if err := corpusHome(s); err != nil {
		return "", err
	}
	steps := [][]string{
		{"python3", "-c", "import sqlite3; c=sqlite3.connect('data.db'); c.execute('create table t(x)'); c.execute('insert into t values (1),(2)'); c.commit(); c.close()"},
		{"chmod", "+x", "tools/report"},
		// @- is a mutable commit of the session's (the sandbox's first
		// commit is tagged, so immutable), and @ differs from it (and from
		// git's HEAD): jj and git commands that rewrite history or reset
		// files have something to change.
		{"jj", "commit", "-m", "corpus fixtures"},
		{"bash", "-c", "echo changed again >> notes.txt && echo draft > draft.txt"},
		{"jj", "status"},
		// Fewer files make every copy cheaper.
		{"git", "repack", "-a", "-d", "-q"},
		{"git", "prune-packed"},
		{"bash", "-c", "rm -f .git/hooks/*.sample"},
	}
	for _, st := range steps {
		if out, err := s.command(context.Background(), st[0], st[1:]...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %v\n%s", strings.Join(st, " "), err, out)
		}
	}
	if !testenv.Short() && hookBinaryPath() != "" {
		// The gate's state, read once: every copy then answers from the
		// cache, as a session's hook does after its first call.
		if _, err := s.hook(context.Background(), "touch warm.txt", nil); err != nil {
			return "", err
		}
	}
	return t, nil
})

// corpusHome prepares the sandbox's HOME as a user's would be: jj runs
// the git the machine's jj is set up with (scripts/install-git.sh), and Go's
// telemetry is off, so that go commands write nothing in HOME by
// themselves.
func corpusHome(s *corpusSandbox) error {
	files := map[string]string{filepath.Join(s.home, ".config", "go", "telemetry", "mode"): "off\n"}
	if out, err := exec.Command("jj", "config", "get", "git.executable-path").Output(); err == nil {
		if g := strings.TrimSpace(string(out)); g != "" {
			files[s.getenv("JJ_CONFIG")] = fmt.Sprintf("[git]\nexecutable-path = %q\n", g)
		}
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// corpusFiles are the project files the corpora use besides the sandbox's.
var corpusFiles = map[string]string{
	"Makefile":            "test:\n\t@echo tests pass\ncheck:\n\t@echo checks pass\ncompile:\n\ttouch built.txt\nhelp:\n\t@echo 'targets: test check compile help'\n",
	"Cargo.toml":          "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
	"src/main.rs":         "fn main() {\n    println!(\"hello\");\n}\n",
	"golden_test.go":      "package main\n\nimport (\n\t\"flag\"\n\t\"os\"\n\t\"testing\"\n)\n\nvar update = flag.Bool(\"update\", false, \"rewrite the golden file\")\n\nfunc TestGolden(t *testing.T) {\n\tif *update {\n\t\tif err := os.WriteFile(\"golden.txt\", []byte(\"3\\n\"), 0o644); err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n\t}\n}\n",
	"hello.py":            "print('hello')\n",
	"mod.py":              "\"\"\"A module for pydoc.\"\"\"\n\n\ndef f():\n    \"\"\"Return one.\"\"\"\n    return 1\n",
	"hello.js":            "console.log('hello');\n",
	"hello.pl":            "print \"hello\\n\";\n",
	"hello.lua":           "print('hello')\n",
	"hello.rb":            "puts 'hello'\n",
	"hello.php":           "<?php echo \"hello\\n\";\n",
	"Hello.java":          "public class Hello {\n    public static void main(String[] args) {\n        System.out.println(\"hello\");\n    }\n}\n",
	"native/x.c":          "#include <stdio.h>\n\nint main(void) {\n    printf(\"hello\\n\");\n    return 0;\n}\n",
	"data.xml":            "<?xml version=\"1.0\"?>\n<root><item>1</item></root>\n",
	"data.yaml":           "name: fixture\nitems:\n  - 1\n  - 2\n",
	"data.csv":            "a,b\n1,2\n3,4\n",
	"fix.patch":           "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
	"tsconfig.json":       "{\"compilerOptions\": {\"strict\": true, \"outDir\": \"out\"}, \"include\": [\"web/*.ts\"]}\n",
	"web/index.ts":        "export const answer: number = 42;\n",
	"tools/report":        "#!/bin/sh\necho \"report: $(ls | wc -l) entries\"\n",
	"docs/guide.md":       "# Guide\n\nSome text.\n",
	"scripts/setup.sh":    "touch setup-done.txt\n",
	"scripts/greet.bash":  "greet() { echo \"hi $1\"; }\ngreet world\n",
	"config/app.json":     "{\"port\": 8080, \"debug\": false}\n",
	"tests/test_more.txt": "fixture\n",
	"lib/lib.go":          "// Package lib makes ./... match more than one package, as in most projects.\npackage lib\n\n// Answer is the answer.\nconst Answer = 42\n",
	"fmt_me.go":           "package main\n\nvar   answer=42\n",
	"scripts/w.js":        "require('fs').writeFileSync('made.txt', 'x');\n",
}

// The corpora's template and binaries are made once for the corpus tests
// that run one after another, and removed when the last of them ends
// (corpusUse); a later one makes them again.
var corpusShared struct {
	mu    sync.Mutex
	users int
	reset []func()
	dirs  []string // temp dirs to remove
}

// corpusOnce is sync.OnceValues that corpusUse can forget.
func corpusOnce[T any](f func() (T, error)) func() (T, error) {
	var mu sync.Mutex
	var done bool
	var v T
	var err error
	corpusShared.mu.Lock()
	corpusShared.reset = append(corpusShared.reset, func() {
		mu.Lock()
		defer mu.Unlock()
		done = false
	})
	corpusShared.mu.Unlock()
	return func() (T, error) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			v, err = f()
			done = true
		}
		return v, err
	}
}

// corpusTemp makes a temp dir that lives as long as the corpus tests.
func corpusTemp(pattern string) (string, error) {
	d, err := os.MkdirTemp("", pattern)
	if err == nil {
		corpusShared.mu.Lock()
		corpusShared.dirs = append(corpusShared.dirs, d)
		corpusShared.mu.Unlock()
	}
	return d, err
}

// corpusUse keeps the shared template and binaries while t runs.
func corpusUse(t *testing.T) {
	corpusShared.mu.Lock()
	corpusShared.users++
	corpusShared.mu.Unlock()
	t.Cleanup(func() {
		corpusShared.mu.Lock()
		defer corpusShared.mu.Unlock()
		if corpusShared.users--; corpusShared.users > 0 {
			return
		}
		for _, d := range corpusShared.dirs {
			os.RemoveAll(d)
		}
		corpusShared.dirs = nil
		for _, r := range corpusShared.reset {
			r()
		}
	})
}

// corpusSandbox is a sandbox with the corpus's environment: PATH, HOME,
// TMPDIR, the tool homes, and the session's project for the hook.
type corpusSandbox struct {
	*sandbox
	bin  string // a directory on PATH inside the sandbox
	sock string // a short directory for unix sockets ({SOCK}, {TMUX})
	port string // the local HTTP server's port, once started
}

func corpusSandboxAt(dir string) *corpusSandbox {
	s := &corpusSandbox{sandbox: &sandbox{dir: dir, repo: filepath.Join(dir, "repo"), home: filepath.Join(dir, "home"), tmp: filepath.Join(dir, "tmp")}}
	s.bin = filepath.Join(dir, "bin")
	s.setEnv()
	s.env = corpusEnv(s.env, s.dir, s.bin)
	return s
}

// newCorpusSandbox copies the corpus template into a fresh temp dir for a
// case whose command runs (m.run). Where only the verdict is asked, nothing
// runs and nothing changes, so the cases share one copy: under -short the
// template itself, else a copy the hook may record its metrics and gate
// cache in.
func newCorpusSandbox(t *testing.T, m corpusMode) *corpusSandbox {
	t.Helper()
	tmpl, err := corpusTemplate()
	if err != nil {
		t.Skipf("SKIPPED executing commands: %v", err)
	}
	if testenv.Short() {
		return corpusSandboxAt(tmpl)
	}
	if !m.run {
		d, err := corpusJudgeCopy()
		if err != nil {
			t.Fatal(err)
		}
		return corpusSandboxAt(d)
	}
	d := t.TempDir()
	if err := copyTree(tmpl, d); err != nil {
		t.Fatal(err)
	}
	return corpusSandboxAt(d)
}

// corpusJudgeCopy is the copy of the template that the cases whose
// verdict alone is checked share.
var corpusJudgeCopy = corpusOnce(func() (string, error) {
	tmpl, err := corpusTemplate()
	if err != nil {
		return "", err
	}
	d, err := corpusTemp("planq-corpus-judge-")
	if err != nil {
		return "", err
	}
	return d, copyTree(tmpl, d)
})

// corpusEnv replaces the sandbox's PATH with one the test controls: a
// directory inside the sandbox (empty: where commands plant programs) and
// the sandbox's tools (T/tools: wrappers of the programs the corpora may
// run, corpusTools, and a case's needs; nothing else installed here is on
// it). Tool homes stay where they are for reading (rustup's toolchains)
// and move into the sandbox where programs write (cargo's registry, go
// install's binaries).
func corpusEnv(env []string, dir, bin string) []string {
	out := make([]string, 0, len(env)+8)
	for _, e := range env {
		if !strings.HasPrefix(e, "PATH=") {
			out = append(out, e)
		}
	}
	dirs := []string{bin, filepath.Join(dir, toolsDir)}
	out = append(out, "PATH="+strings.Join(dirs, string(os.PathListSeparator)),
		"PLANQ_HOME="+filepath.Join(dir, "planq"),
		"CLAUDE_PROJECT_DIR="+filepath.Join(dir, "repo"),
		"CARGO_HOME="+filepath.Join(dir, "home", ".cargo"),
		"CARGO_NET_OFFLINE=true",
		"GOBIN="+filepath.Join(dir, "home", "go", "bin"),
		"PYTHONDONTWRITEBYTECODE=",
		"XDG_CONFIG_HOME="+filepath.Join(dir, "home", ".config"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "home", ".cache"),
		"XDG_DATA_HOME="+filepath.Join(dir, "home", ".local", "share"),
		"TMUX=", "SSH_AUTH_SOCK=", "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(dir, "tmp", "no-bus"),
		"DOCKER_HOST=unix://"+filepath.Join(dir, "tmp", "no-docker.sock"), "KUBECONFIG="+filepath.Join(dir, "tmp", "no-kubeconfig"),
	)
	if h := rustupHome(); h != "" {
		out = append(out, "RUSTUP_HOME="+h)
	}
	return out
}

// corpusTools are the programs the corpora's commands run without naming
// them in needs, besides sandboxTools (coreutils and the like, the
// scripting languages the fixture's files are in, the local servers'
// clients). Each is on the corpus's PATH as a wrapper (writeTools) when
// this machine has it; a command that finds one missing is skipped with a
// note, and one that runs a program on neither list fails: the table
// would depend on what else is installed.
var corpusTools = []string{
	"base64", "cmp", "column", "comm", "csplit", "dd", "df", "du", "expr", "fallocate", "getconf", "id", "install",
	"mkfifo", "nice", "nl", "nohup", "nproc", "od", "paste", "printenv", "realpath", "seq", "setsid", "sha256sum",
	"shred", "split", "stat", "stdbuf", "tac", "timeout", "truncate", "uname", "uniq", "whoami", "sleep", "kill",
	"rmdir", "touch", "chown", "ln", "sync", "yes", "md5sum", "sha1sum", "cksum", "fold", "fmt", "join", "pr",
	"ptx", "tsort", "unexpand", "expand", "shuf", "numfmt", "factor", "basenc", "b2sum", "sum", "mktemp", "rbash",
	"file", "less", "more", "ldd", "getent", "locale", "iconv", "patch", "xxd", "bzip2", "xz", "zstd", "zcat",
	"gunzip", "python3", "pydoc3", "perl", "curl", "wget", "tmux", "gofmt", "hostname", "ps", "which",
}

// corpusTool finds a program where the corpora look for it: the tool
// chains' directories (toolDirs), then the system's; "" when this machine
// has none.
func corpusTool(name string) string {
	for _, d := range append(toolDirs(), "/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin") {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// toolDirs are the directories outside the system's where the tool chains
// the corpora run live on this machine (Go, rustup's proxies, the Python
// on PATH), found once from the test's own PATH. Programs are taken from
// them by name (corpusTool), so that nothing else the machine has
// installed there changes what the corpora run.
var toolDirs = sync.OnceValue(func() []string {
	var dirs []string
	add := func(d string) {
		switch d {
		case "", "/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin":
			return
		}
		if !containsString(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, name := range []string{"go", "cargo", "jj", "node"} {
		if p, err := exec.LookPath(name); err == nil {
			add(filepath.Dir(p))
		}
	}
	// A Python behind pyenv's shims: put the interpreter's own directory on
	// PATH, not the shims (they need pyenv's home).
	if out, err := exec.Command("python3", "-c", "import os, sys; print(os.path.dirname(sys.executable))").Output(); err == nil {
		add(strings.TrimSpace(string(out)))
	}
	return dirs
})

// rustupHome is where rustup's toolchains are: RUSTUP_HOME, else the
// .rustup beside the .cargo/bin its proxies are in, else HOME's. Found
// from the proxies too, so that a test run with a clean HOME (env -i
// HOME=<empty dir>, as CI runs) and the user's rustup still on PATH does
// not send rustc and cargo looking for toolchains in the sandbox's HOME.
var rustupHome = sync.OnceValue(func() string {
	if h := os.Getenv("RUSTUP_HOME"); h != "" {
		return h
	}
	var homes []string
	if p := corpusTool("rustup"); p != "" {
		homes = append(homes, filepath.Dir(filepath.Dir(filepath.Dir(p)))) // H/.cargo/bin/rustup: H
	}
	if home, err := os.UserHomeDir(); err == nil {
		homes = append(homes, home)
	}
	for _, home := range homes {
		if _, err := os.Stat(filepath.Join(home, ".rustup")); err == nil {
			return filepath.Join(home, ".rustup")
		}
	}
	return ""
})

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// missing returns the first program of c.needs that this machine does
// not have.
func (s *corpusSandbox) missing(c corpusCase) string {
	for _, n := range c.needs {
		if corpusTool(n) == "" {
			return n
		}
	}
	if c.server == "tmux" && corpusTool("tmux") == "" {
		return "tmux"
	}
	return ""
}

// caseTools are a case's needs and the programs they run by name.
func caseTools(c corpusCase) []string {
	var names []string
	for _, n := range c.needs {
		names = append(names, n)
		names = append(names, toolCompanions[n]...)
	}
	return names
}

// needTools puts a case's needs on its copy's PATH (T/tools).
func (s *corpusSandbox) needTools(t *testing.T, c corpusCase) {
	t.Helper()
	if _, err := writeTools(filepath.Join(s.dir, toolsDir), corpusTool, caseTools(c)...); err != nil {
		t.Fatal(err)
	}
}

// ranMissing reports the program a command's output says it could not
// find: a fault of the table (t fails) when this machine has it, since it
// was not on the corpus's PATH; a skip, with a note, when it does not.
func ranMissing(t *testing.T, ty *corpusTally, class, mode, cmd, out string) {
	t.Helper()
	for _, name := range notFoundIn(out) {
		if corpusTool(name) != "" {
			t.Fatalf("%q runs %s, which is on the corpus's PATH only when the case names it in needs (or corpusTools lists it); output:\n%s", cmd, name, out)
		}
		ty.add(class, func(r *tallyRow) { r.skipped++ })
		ty.note("%s: skipped, %s is not installed: %s", mode, name, cmd)
		t.Skipf("SKIPPED: %s is not installed here; output:\n%s", name, out)
	}
}

// expand replaces the placeholders in a case's command.
func (s *corpusSandbox) expand(cmd string) string {
	return strings.NewReplacer("{T}", s.dir, "{PORT}", s.port, "{SOCK}", filepath.Join(s.sock, "api.sock"),
		"{TMUX}", filepath.Join(s.sock, "tmux.sock")).Replace(cmd)
}

// hookBinary builds planq-hook (and planq-sandbox) once per test binary,
// as make does.
var hookBinary = corpusOnce(func() (string, error) {
	dir, err := corpusTemp("planq-corpus-hook-")
	if err != nil {
		return "", err
	}
	// planq-sandbox beside planq-hook, as make install puts them: the
	// hook's rewritten commands start it.
	for _, b := range []string{"planq-sandbox", "planq-hook"} {
		if msg, err := testenv.GoBuild("", filepath.Join(dir, b), "github.com/planq-dev/planq/cmd/"+b).CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", b, err, msg)
		}
	}
	return filepath.Join(dir, "planq-hook"), nil
})

// hookBinaryPath is the built hook, or "" when it could not be built (the
// tests that need it fail on hookBinary's error).
func hookBinaryPath() string {
	p, err := hookBinary()
	if err != nil {
		return ""
	}
	return p
}

// hook runs the real pre-tool-use hook on a Bash call of cmd, locked, in
// the project, with the sandbox's environment (and extra variables), and
// reads its answer as Claude Code does: exit status 2 denies with stderr as
// the reason; any other non-zero status is a hook error, after which Claude
// Code carries on with the call; on 0, stdout's hookSpecificOutput decides.
func (s *corpusSandbox) hook(ctx context.Context, cmd string, extra []string) (hookAnswer, error) {
	bin, err := hookBinary()
	if err != nil {
		return hookAnswer{}, err
	}
	in, _ := json.Marshal(map[string]any{
		"session_id": "corpus", "transcript_path": filepath.Join(s.tmp, "transcript.jsonl"), "cwd": s.repo,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": cmd, "description": "a corpus command"}, "tool_use_id": "toolu_corpus",
	})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bin, "pre-tool-use")
	c.Dir, c.Env = s.repo, append(append([]string(nil), s.env...), extra...)
	c.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err = c.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() == 2:
		return hookAnswer{kind: answerDeny, reason: strings.TrimSpace(stderr.String())}, nil
	case errors.As(err, &ee):
		return hookAnswer{kind: answerAllow, reason: "hook error (the host carries on): " + strings.TrimSpace(stderr.String())}, nil
	case err != nil:
		return hookAnswer{}, fmt.Errorf("run planq-hook: %v", err)
	}
	if len(bytes.TrimSpace(stdout.Bytes())) == 0 {
		return hookAnswer{kind: answerAllow}, nil
	}
	var out struct {
		Continue *bool  `json:"continue"`
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		Specific *struct {
			Decision     string          `json:"permissionDecision"`
			Reason       string          `json:"permissionDecisionReason"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return hookAnswer{}, fmt.Errorf("planq-hook printed something Claude Code cannot read: %v: %s", err, stdout.Bytes())
	}
	if out.Continue != nil && !*out.Continue || out.Decision == "block" {
		return hookAnswer{kind: answerDeny, reason: out.Reason}, nil
	}
	sp := out.Specific
	if sp == nil {
		return hookAnswer{kind: answerAllow}, nil
	}
	if sp.Decision == "deny" {
		return hookAnswer{kind: answerDeny, reason: sp.Reason}, nil
	}
	if len(sp.UpdatedInput) > 0 {
		var u struct {
			Command *string `json:"command"`
		}
		if err := json.Unmarshal(sp.UpdatedInput, &u); err != nil || u.Command == nil {
			return hookAnswer{}, fmt.Errorf("planq-hook's updatedInput has no command: %s", sp.UpdatedInput)
		}
		return hookAnswer{kind: answerRewrite, command: *u.Command, reason: sp.Reason}, nil
	}
	// "allow" and "ask" run the original command (a user who is asked may
	// say yes).
	return hookAnswer{kind: answerAllow, reason: sp.Reason}, nil
}

// verdict judges cmd in process the way the hook does (gate.Evaluate, the
// gate assumed locked), with the OS sandbox at hand or not: the -short mode
// of the corpora, and the parser-only mode where the hook cannot be told to
// leave the sandbox aside.
func (s *corpusSandbox) verdict(cmd string, withSandbox bool) hookAnswer {
	return s.verdictWith(cmd, withSandbox, nil)
}

// verdictWith is verdict with the variables of extra (NAME=VALUE) set in
// the environment the gate reads.
func (s *corpusSandbox) verdictWith(cmd string, withSandbox bool, extra []string) hookAnswer {
	in, _ := json.Marshal(map[string]string{"command": cmd, "description": "a corpus command"})
	call := ToolCall{Name: "Bash", Tool: Tool{Kind: KindShell, Field: "command"}, Input: in}
	getenv := s.getenv
	if len(extra) > 0 {
		env := append(append([]string(nil), s.env...), extra...)
		getenv = func(k string) string {
			v := ""
			for _, e := range env { // the last one wins, as in exec
				if n, val, _ := strings.Cut(e, "="); n == k {
					v = val
				}
			}
			return v
		}
	}
	opt := EvalOptions{ProjectDir: s.repo, AssumeLocked: true, Getenv: getenv}
	if withSandbox {
		opt.SandboxEntry = []string{"planq-sandbox"}
	}
	ev := Evaluate(context.Background(), call, s.repo, opt)
	switch d := ev.Decision; {
	case d.Sandbox:
		return hookAnswer{kind: answerRewrite, command: d.Command, reason: ev.Verdict.Reason}
	case !d.Allow:
		return hookAnswer{kind: answerDeny, reason: d.Message}
	}
	return hookAnswer{kind: answerAllow, reason: ev.Verdict.Reason}
}

// exec runs a command as Claude Code's Bash tool does: bash -c, in the
// project, stdin closed. It returns the exit status and the output.
func (s *corpusSandbox) exec(cmd string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := s.command(ctx, "bash", "-c", cmd)
	c.Stdin = strings.NewReader("")
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, b.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), b.String()
	}
	return -1, b.String() + "\n" + err.Error()
}

// state is what a command must not change: every file of the project,
// its .jj and .git included (only git's object store, which grows by
// content anyone may add, jj's index, a cache, and git's stat cache are left
// out: the index's entries are compared instead); HOME, dot files and all,
// but for the caches programs may fill; the PATH directory inside the
// sandbox; and the directory above the project, where configuration files
// (go.work, package.json, .gitconfig) would change what programs do in it.
type state struct {
	files map[string]string // path: content hash and mode
	index []byte            // git's index, as it was
}

func (s *corpusSandbox) state() state {
	m := map[string]string{}
	walk := func(prefix, root string, skip func(rel string) bool) {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
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
				return nil
			}
			key := prefix + rel
			switch {
			case d.IsDir():
				m[key+"/"] = fmt.Sprintf("dir:%o", info.Mode().Perm())
			case d.Type()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				m[key] = "link:" + target
			case d.Type().IsRegular():
				data, err := os.ReadFile(p)
				if err != nil {
					m[key] = "unreadable"
					return nil
				}
				sum := sha256.Sum256(data)
				m[key] = hex.EncodeToString(sum[:8]) + fmt.Sprintf(":%o", info.Mode().Perm())
			default:
				m[key] = "special:" + info.Mode().Type().String()
			}
			return nil
		})
	}
	walk("repo/", s.repo, func(rel string) bool {
		return rel == ".git/objects" || rel == ".git/index" || rel == ".jj/repo/index"
	})
	walk("home/", s.home, func(rel string) bool {
		return rel == ".cache" || rel == ".npm" || rel == ".cargo/registry" || rel == ".cargo/.package-cache" || rel == ".cargo/.global-cache"
	})
	walk("bin/", s.bin, func(string) bool { return false })
	walk("above/", s.dir, func(rel string) bool {
		return rel == "repo" || rel == "home" || rel == "tmp" || rel == "bin" || rel == "planq"
	})
	index, _ := os.ReadFile(filepath.Join(s.repo, ".git", "index"))
	return state{files: m, index: index}
}

// changes lists what differs between two states. When git's index
// changed, its entries are compared (a program that only refreshed its
// stat cache changed nothing).
func (s *corpusSandbox) changes(before, after state) []string {
	var out []string
	for k, v := range after.files {
		if b, ok := before.files[k]; !ok {
			out = append(out, k+" (new)")
		} else if b != v {
			out = append(out, k)
		}
	}
	for k := range before.files {
		if _, ok := after.files[k]; !ok {
			out = append(out, k+" (removed)")
		}
	}
	if !bytes.Equal(before.index, after.index) && !bytes.Equal(s.indexEntries(before.index), s.indexEntries(after.index)) {
		out = append(out, "repo/.git/index (entries)")
	}
	sort.Strings(out)
	return out
}

// indexEntries lists the entries of a git index (ls-files -s -v: the
// mode, object, stage, path and the assume-unchanged and skip-worktree
// flags).
func (s *corpusSandbox) indexEntries(index []byte) []byte {
	if index == nil {
		return nil
	}
	f, err := os.CreateTemp(s.tmp, "index-")
	if err != nil {
		return []byte(err.Error())
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(index)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return []byte("cannot copy the index")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := s.command(ctx, "git", "ls-files", "-s", "-v")
	c.Env = append(append([]string(nil), s.env...), "GIT_INDEX_FILE="+f.Name())
	out, err := c.Output()
	if err != nil {
		return []byte("git ls-files: " + err.Error())
	}
	return out
}

// startServer starts the case's local server, outside any sandbox, and
// stops it when the test ends.
func (s *corpusSandbox) startServer(t *testing.T, kind string) {
	t.Helper()
	if kind == "" {
		return
	}
	d, err := os.MkdirTemp("", "pq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	s.sock = d
	switch kind {
	case "http":
		h := writeAPI(s.repo)
		for _, network := range []string{"tcp", "unix"} {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = filepath.Join(d, "api.sock")
			}
			l, err := net.Listen(network, addr)
			if err != nil {
				t.Fatal(err)
			}
			if network == "tcp" {
				s.port = fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
			}
			srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
			go srv.Serve(l)
			t.Cleanup(func() { srv.Close() })
		}
	case "tmux":
		sock := filepath.Join(d, "tmux.sock")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c := s.command(ctx, "tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "corpus", "-c", s.repo, "-x", "80", "-y", "24")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("start tmux: %v\n%s", err, out)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = s.command(ctx, "tmux", "-S", sock, "kill-server").Run()
		})
	default:
		t.Fatalf("unknown server %q", kind)
	}
}

// writeAPI is a local HTTP API of the kind a dev server or a daemon
// offers: GET or PUT /write/NAME writes the request's body (or "x") to the
// file NAME of the project. It is the process the sandbox cannot hold.
func writeAPI(repo string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The file is the first element after /write/, whatever follows
		// (git asks for /write/NAME/info/refs).
		name, ok := strings.CutPrefix(r.URL.Path, "/write/")
		name, _, _ = strings.Cut(name, "/")
		if !ok || name == "" || name == "." || name == ".." {
			fmt.Fprintln(w, "ok")
			return
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20))
		if body.Len() == 0 {
			body.WriteString("x")
		}
		if err := os.WriteFile(filepath.Join(repo, filepath.FromSlash(name)), body.Bytes(), 0o644); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "written")
	})
}

// corpusTally counts what a corpus showed, per class, for the summary a
// corpus test logs at the end (the numbers the issue asks about).
type corpusTally struct {
	mu      sync.Mutex
	classes []string
	rows    map[string]*tallyRow
	notes   []string
}

type tallyRow struct {
	cases, denied, rewritten, allowed, ran, escaped, failed, skipped int
}

func (ty *corpusTally) row(class string) *tallyRow {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	if ty.rows == nil {
		ty.rows = map[string]*tallyRow{}
	}
	r, ok := ty.rows[class]
	if !ok {
		r = &tallyRow{}
		ty.rows[class] = r
		ty.classes = append(ty.classes, class)
	}
	return r
}

func (ty *corpusTally) add(class string, f func(r *tallyRow)) {
	r := ty.row(class)
	ty.mu.Lock()
	defer ty.mu.Unlock()
	f(r)
}

// answered counts the hook's answer to a case of class.
func (ty *corpusTally) answered(class string, ans hookAnswer) {
	ty.add(class, func(r *tallyRow) {
		switch ans.kind {
		case answerDeny:
			r.denied++
		case answerRewrite:
			r.rewritten++
		default:
			r.allowed++
		}
	})
}

func (ty *corpusTally) note(format string, args ...any) {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	ty.notes = append(ty.notes, fmt.Sprintf(format, args...))
}

// report logs the table.
func (ty *corpusTally) report(t *testing.T, title string) {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	var b strings.Builder
	var tot tallyRow
	fmt.Fprintf(&b, "%s\n%-34s %5s %5s %5s %5s %5s %5s %5s %5s\n", title, "class", "cases", "deny", "rewr", "allow", "ran", "escap", "fail", "skip")
	for _, c := range ty.classes {
		r := ty.rows[c]
		fmt.Fprintf(&b, "%-34s %5d %5d %5d %5d %5d %5d %5d %5d\n", c, r.cases, r.denied, r.rewritten, r.allowed, r.ran, r.escaped, r.failed, r.skipped)
		tot.cases += r.cases
		tot.denied += r.denied
		tot.rewritten += r.rewritten
		tot.allowed += r.allowed
		tot.ran += r.ran
		tot.escaped += r.escaped
		tot.failed += r.failed
		tot.skipped += r.skipped
	}
	fmt.Fprintf(&b, "%-34s %5d %5d %5d %5d %5d %5d %5d %5d\n", "total", tot.cases, tot.denied, tot.rewritten, tot.allowed, tot.ran, tot.escaped, tot.failed, tot.skipped)
	sort.Strings(ty.notes)
	for _, n := range ty.notes {
		b.WriteString(n + "\n")
	}
	t.Log(b.String())
}

// corpusMode is one way the gate may be set up: the parser-only gate
// (where no OS sandbox is available), or with the sandbox, where a locked
// shell call the parser is not sure of runs sandboxed.
type corpusMode struct {
	name    string
	sandbox bool     // locked shell calls may run in the OS sandbox
	env     []string // added to the hook's environment
	run     bool     // the commands run; else only the verdicts are checked
	inProc  bool     // the verdicts come from gate.Evaluate, not the hook binary
}

// corpusParserOnlyEnv turns the OS sandbox off for the hook, as a user can
// (the parser-only gate where a sandbox exists).
const corpusParserOnlyEnv = "PLANQ_SANDBOX=off"

// corpusModes are the modes the corpora run in here. Under -short both are
// judged in process. Otherwise the real hook is asked once what it does on
// this machine: where it runs locked calls in the sandbox, the corpora run
// that way, and the parser-only verdicts are checked with the sandbox
// turned off (in process, if the hook cannot be told to); where it cannot,
// they run parser-only, and the sandbox's verdicts are checked in process.
func corpusModes(t *testing.T) []corpusMode {
	if testenv.Short() {
		return []corpusMode{{name: "parser-only", inProc: true}, {name: "sandbox", sandbox: true, inProc: true}}
	}
	p, err := hookProbe()
	if err != nil {
		t.Fatal(err)
	}
	if !p.rewrites {
		t.Logf("the hook does not run locked commands in an OS sandbox here (%s): the corpora run parser-only, and the sandbox's verdicts are checked in process", p.why)
		return []corpusMode{{name: "parser-only", run: true}, {name: "sandbox", sandbox: true, inProc: true}}
	}
	parser := corpusMode{name: "parser-only", env: []string{corpusParserOnlyEnv}}
	if !p.offWorks {
		t.Logf("%s does not turn the OS sandbox off for the hook: the parser-only verdicts are checked in process", corpusParserOnlyEnv)
		parser = corpusMode{name: "parser-only", inProc: true}
	}
	return []corpusMode{{name: "sandbox", sandbox: true, run: true}, parser}
}

// hookProbe asks the real hook, once, whether it runs a locked command the
// parser cannot judge (python3 -c) in the OS sandbox, and whether
// corpusParserOnlyEnv makes it deny it instead.
type probeResult struct {
	rewrites, offWorks bool
	why                string
}

var hookProbe = corpusOnce(func() (probe probeResult, err error) {
	tmpl, err := corpusTemplate()
	if err != nil {
		return probe, err
	}
	s := corpusSandboxAt(tmpl)
	const cmd = "python3 -c 'print(1)'"
	on, err := s.hook(context.Background(), cmd, nil)
	if err != nil {
		return probe, err
	}
	probe.rewrites, probe.why = on.kind == answerRewrite, on.reason
	if probe.rewrites {
		off, err := s.hook(context.Background(), cmd, []string{corpusParserOnlyEnv})
		if err != nil {
			return probe, err
		}
		probe.offWorks = off.kind == answerDeny
	}
	return probe, nil
})

// shortPlaceholders stand in for the servers' addresses when nothing runs.
func (s *corpusSandbox) shortPlaceholders() {
	s.port, s.sock = "8080", filepath.Join(s.tmp, "pq")
}

// runCorpus runs the classes of a corpus, each case in parallel, and logs
// the tally when all are done. check runs one case.
func runCorpus(t *testing.T, classes []corpusClass, min int, check func(t *testing.T, m corpusMode, class string, c corpusCase, ty *corpusTally)) {
	n := 0
	names := map[string]bool{}
	for _, cl := range classes {
		n += len(cl.cases)
		for _, c := range cl.cases {
			if names[c.cmd] {
				t.Errorf("%q is in the corpus twice", c.cmd)
			}
			names[c.cmd] = true
		}
	}
	if n < min {
		t.Fatalf("the corpus has %d commands; it must have at least %d", n, min)
	}
	corpusUse(t)
	if !testenv.Short() {
		if _, err := hookBinary(); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range corpusModes(t) {
		t.Run(m.name, func(t *testing.T) {
			ty := &corpusTally{}
			for _, cl := range classes {
				ty.row(cl.name)
			}
			t.Cleanup(func() {
				if !t.Failed() || testing.Verbose() {
					ty.report(t, fmt.Sprintf("%s, %s mode (%d commands)", t.Name(), m.name, n))
				}
			})
			for _, cl := range classes {
				t.Run(cl.name, func(t *testing.T) {
					t.Parallel()
					for _, c := range cl.cases {
						c.sure = c.sure || sureClasses[cl.name]
						t.Run(corpusCaseName(c.cmd), func(t *testing.T) {
							t.Parallel()
							ty.add(cl.name, func(r *tallyRow) { r.cases++ })
							check(t, m, cl.name, c, ty)
						})
					}
				})
			}
		})
	}
}

// corpusCaseName names a case's subtest: the command's start, with only
// characters a shell takes literally, since the subtest's name goes into
// its temp dir, and so into the commands ({T}).
func corpusCaseName(cmd string) string {
	b := []byte(cmd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '=' || c == ',' || c == '+' || c == '@' || c == ':') {
			b[i] = '_'
		}
	}
	if len(b) > 60 {
		b = b[:60]
	}
	return string(b)
}

// answer is the hook's answer to a case: in process under -short, else
// from the real hook binary (and, for a modifying command, the same answer
// with no tool chain on PATH: what is held does not depend on what is
// installed).
func (s *corpusSandbox) answer(t *testing.T, m corpusMode, cmd string, modifying bool) hookAnswer {
	t.Helper()
	if m.inProc {
		return s.verdict(cmd, m.sandbox)
	}
	ans, err := s.hook(context.Background(), cmd, m.env)
	if err != nil {
		t.Fatal(err)
	}
	if modifying && m.run {
		// In process (the gate's judgement, which is where PATH is read),
		// so that each case starts one hook, not two.
		full, bare := s.verdictWith(cmd, m.sandbox, nil), s.verdictWith(cmd, m.sandbox, []string{"PATH=" + s.bin})
		if bare.kind != full.kind {
			t.Errorf("%q: the gate answers %s with the tool chains on PATH and %s without them (%s)", cmd, full.kind, bare.kind, bare.reason)
		}
	}
	return ans
}

// run runs what the host runs after the hook's answer, and returns the
// exit status, the output and what changed.
func (s *corpusSandbox) run(t *testing.T, cmd string, ans hookAnswer) (code int, out string, changed []string) {
	t.Helper()
	before := s.state()
	switch ans.kind {
	case answerDeny:
		return 0, "", nil
	case answerAllow:
		code, out = s.exec(cmd)
	case answerRewrite:
		code, out = s.exec(ans.command)
	}
	return code, out, s.changes(before, s.state())
}

// checkModifying runs one modifying command: the hook must hold it (deny
// it, or have it run in the OS sandbox; a case marked sure must be denied
// even with the sandbox at hand), and the project, HOME's dot files, the
// sandbox's PATH directory and the directory above the project must be
// unchanged after the host ran what the hook said. Unless the command
// cannot run here, it is then run again without the gate in the same
// (unchanged) copy, where it must change something: the table cannot claim
// a command modifies when it does not. The parser-only gate may let
// through what is marked miss, and nothing else.
func checkModifying(t *testing.T, m corpusMode, class string, c corpusCase, ty *corpusTally) {
	s := newCorpusSandbox(t, m)
	missing := s.missing(c)
	if !m.run || c.only != "" || missing != "" {
		s.shortPlaceholders()
	} else {
		s.startServer(t, c.server)
	}
	cmd := s.expand(c.cmd)
	ans := s.answer(t, m, cmd, true)
	ty.answered(class, ans)
	switch {
	case m.sandbox && !ans.held():
		t.Errorf("%q: the hook lets it through (%s)", cmd, ans.reason)
	case m.sandbox && c.sure && ans.kind != answerDeny:
		t.Errorf("%q: the parser must be sure it modifies (deny it without running, even with the sandbox), but the hook answers %s (%s)", cmd, ans.kind, ans.reason)
	case !m.sandbox && !ans.held() && c.miss == "":
		t.Errorf("%q: the hook lets it through (%s)", cmd, ans.reason)
	case !m.sandbox && ans.held() && c.miss != "":
		t.Errorf("%q: marked as let through (%s), but the hook holds it now: remove the mark (%s)", cmd, c.miss, ans.reason)
	case !ans.held():
		ty.note("%s: let through: %s — %s", m.name, c.cmd, c.miss)
	}
	if !m.run {
		return
	}
	switch {
	case c.only != "":
		t.Logf("judged only (%s): %s", c.only, ans.reason)
		return
	case missing != "":
		t.Logf("judged only: %s is not installed: %s", missing, ans.reason)
		ty.add(class, func(r *tallyRow) { r.skipped++ })
		return
	}
	s.needTools(t, c)
	code, out, changed := s.run(t, cmd, ans)
	if ans.kind != answerDeny {
		ty.add(class, func(r *tallyRow) { r.ran++ })
	}
	if len(changed) > 0 {
		ty.add(class, func(r *tallyRow) { r.escaped++ })
		if m.sandbox || c.miss == "" || ans.held() {
			t.Errorf("%q (hook: %s) changed %v; exit %d, output:\n%s", cmd, ans.kind, changed, code, out)
		}
		return
	}
	if ans.kind == answerRewrite && code == 0 && !strings.Contains(out, "read-only until the change is declared") {
		// Held by the kernel, and the command said nothing: fine, but
		// worth knowing (a command that gives up quietly).
		ty.note("%s: ran in the sandbox, exit 0, no write and no word of it: %s", m.name, c.cmd)
	}
	_, pout, pchanged := s.run(t, cmd, hookAnswer{kind: answerAllow})
	if len(pchanged) == 0 {
		ranMissing(t, ty, class, m.name, cmd, pout)
		t.Errorf("%q is in the table as modifying, but run without the gate it changed nothing; output:\n%s", cmd, pout)
	}
}

// checkReadOnly runs one read-only command: the hook must let it run
// (allowed, or run in the OS sandbox), and it must exit 0 without changing
// anything. The parser-only gate may deny what is marked deny, and nothing
// else; a command it denies is run without the gate instead, to show it
// really is read-only and succeeds.
func checkReadOnly(t *testing.T, m corpusMode, class string, c corpusCase, ty *corpusTally) {
	s := newCorpusSandbox(t, m)
	missing := s.missing(c)
	if !m.run || missing != "" {
		s.shortPlaceholders()
	} else {
		s.startServer(t, c.server)
	}
	if m.run && missing != "" {
		ty.add(class, func(r *tallyRow) { r.skipped++ })
		ty.note("%s: skipped, %s is not installed: %s", m.name, missing, c.cmd)
		t.Skipf("SKIPPED: %s is not installed", missing)
	}
	cmd := s.expand(c.cmd)
	ans := s.answer(t, m, cmd, false)
	ty.answered(class, ans)
	switch {
	case ans.kind == answerDeny && (m.sandbox || c.deny == ""):
		t.Errorf("%q: the hook denies it: %s", cmd, ans.reason)
	case !m.sandbox && ans.kind != answerDeny && c.deny != "":
		t.Errorf("%q: marked as denied (%s), but the hook lets it run now: remove the mark", cmd, c.deny)
	case ans.kind == answerDeny:
		ty.note("%s: denied: %s — %s", m.name, c.cmd, c.deny)
	}
	if !m.run {
		return
	}
	run := ans
	if ans.kind == answerDeny {
		run = hookAnswer{kind: answerAllow} // the proof that it is read-only
	} else {
		ty.add(class, func(r *tallyRow) { r.ran++ })
	}
	s.needTools(t, c)
	code, out, changed := s.run(t, cmd, run)
	if code != 0 {
		ranMissing(t, ty, class, m.name, cmd, out)
		ty.add(class, func(r *tallyRow) { r.failed++ })
		t.Errorf("%q (hook: %s) exited %d; output:\n%s", cmd, ans.kind, code, out)
	}
	if len(changed) > 0 {
		t.Errorf("%q (hook: %s) is in the table as read-only, but it changed %v; output:\n%s", cmd, ans.kind, changed, out)
	}
}
