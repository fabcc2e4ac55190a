// Package testenv builds isolated environments with real jj and git
// repositories for planq's tests.
package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/planq-dev/planq/jj"
)

// Isolate points HOME, XDG_CONFIG_HOME and PLANQ_HOME at fresh temp dirs and
// sets a fixed jj/git identity, so tests never read or write the user's
// config. It returns the temp HOME.
func Isolate(t testing.TB) string {
	t.Helper()
	// Keep Go's build and module caches where they were: moving HOME would
	// send every `go build` in a test to an empty cache.
	for k, v := range goCaches() {
		t.Setenv(k, v)
	}
	git := jjGit() // before JJ_CONFIG moves
	home := t.TempDir()
	noGoTelemetry(t, filepath.Join(home, ".config"))
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("PLANQ_HOME", filepath.Join(home, ".planq"))
	t.Setenv("JJ_CONFIG", filepath.Join(home, "jjconfig.toml"))
	t.Setenv("JJ_USER", "Test User")
	t.Setenv("JJ_EMAIL", "test@example.com")
	t.Setenv("GIT_AUTHOR_NAME", "Test User")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Test User")
	t.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	t.Setenv("PLANQ_AGENT", "")
	t.Setenv("PLANQ_HOST", "")
	if git.Setting != "" && git.Setting != "git" {
		// The user's jj fetches with this git (scripts/install-git.sh sets
		// it); so does the isolated one.
		cfg := fmt.Sprintf("[git]\nexecutable-path = %q\n", git.Setting)
		if err := os.WriteFile(os.Getenv("JJ_CONFIG"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// jjGit is the git the user's jj runs, asked once per test binary.
var jjGit = sync.OnceValue(func() jj.GitInfo {
	g, _ := jj.New(".").Git(context.Background())
	return g
})

// RequireGitForJJ fails the test unless jj runs a git it can fetch with
// (>= 2.42), naming the fix. Call it after Isolate.
func RequireGitForJJ(t testing.TB) {
	t.Helper()
	RequireJJ(t)
	g := jjGit()
	if !g.Suitable() {
		t.Fatalf("jj runs %s, and jj needs git >= %s to fetch: run `make test` (or bash scripts/install-git.sh), which points jj at one", g, jj.MinGitVersion)
	}
}

// goCaches returns GOCACHE, GOMODCACHE and GOPATH as go resolves them for
// the real HOME, asked once per test binary.
var goCaches = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 3 {
		return nil
	}
	return map[string]string{"GOCACHE": vals[0], "GOMODCACHE": vals[1], "GOPATH": vals[2]}
})

// RequireJJ skips the test loudly when jj is not installed, and in the
// short suite: every test that drives real jj comes here first.
func RequireJJ(t testing.TB) {
	t.Helper()
	SkipShort(t, "drives real jj")
	if _, err := exec.LookPath("jj"); err != nil {
		t.Skip("SKIPPED: jj is not on PATH; run `make install` (scripts/install-jj.sh) first")
	}
}

// JJRepo creates a colocated jj repo in a temp dir and returns its path.
func JJRepo(t testing.TB) string {
	t.Helper()
	RequireJJ(t)
	dir := t.TempDir()
	Run(t, dir, "git", "init", "-q", "-b", "main")
	Run(t, dir, "jj", "git", "init", "--colocate")
	return dir
}

// JJOnlyRepo creates a non-colocated jj repo (no .git in the workspace).
func JJOnlyRepo(t testing.TB) string {
	t.Helper()
	RequireJJ(t)
	dir := t.TempDir()
	Run(t, dir, "jj", "git", "init", "--no-colocate")
	return dir
}

// BareRemote creates a bare git repo and adds it to the jj repo at dir as
// remote name.
func BareRemote(t testing.TB, dir, name string) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), name+".git")
	Run(t, "", "git", "init", "-q", "--bare", "-b", "main", bare)
	Run(t, dir, "jj", "git", "remote", "add", name, bare)
	return bare
}

// Run runs a command in dir and fails the test on error; it returns stdout.
func Run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, msg)
	}
	return string(out)
}

// WriteFile writes content to dir/rel, creating parent directories.
func WriteFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BuildPlanq builds the planq binary into a temp dir and returns its path.
// root is the module root relative to the calling test's package. In a
// package whose tests run under Main, it is built once and shared by every
// test that asks (see build).
func BuildPlanq(t testing.TB, root string) string {
	t.Helper()
	return build(t, root, "planq")
}

// BuildPlanqWithHook builds planq and, beside it, planq-hook and
// planq-sandbox, as make install does, and returns planq's path; like
// BuildPlanq, once per test binary under Main.
func BuildPlanqWithHook(t testing.TB, root string) string {
	t.Helper()
	return build(t, root, "planq", "planq-hook", "planq-sandbox")
}

// builds are the binaries build made once: a *builtOnce per root and
// list of commands.
var builds sync.Map

type builtOnce struct {
	once sync.Once
	path string
	err  error
}

// build builds cmds (directories under root/cmd) into one directory and
// returns the first one's path; the short suite skips a test that asks. A go build that finds everything in the
// cache still links each binary (seconds of CPU for planq), so under Main
// the directory is a SharedTempDir made once for the test binary; tests
// only read and run what is there (one that breaks a binary copies it
// first). Without Main, which removes shared dirs, each test builds into
// its own t.TempDir.
func build(t testing.TB, root string, cmds ...string) string {
	t.Helper()
	SkipShort(t, "builds planq's binaries")
	if !mainRuns.Load() {
		p, err := buildInto(t.TempDir(), root, cmds)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := builds.LoadOrStore(abs+"\x00"+strings.Join(cmds, " "), &builtOnce{})
	b := v.(*builtOnce)
	b.once.Do(func() {
		dir, err := SharedTempDir("planq-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path, b.err = buildInto(dir, abs, cmds)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// buildInto runs go build for each of cmds into dir, as make build does
// (BuildEnv), and returns the first one's path.
func buildInto(dir, root string, cmds []string) (string, error) {
	for _, name := range cmds {
		cmd := GoBuild(root, filepath.Join(dir, name), "./cmd/"+name)
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v\n%s", name, err, b)
		}
	}
	return filepath.Join(dir, cmds[0]), nil
}

// BuildEnv is the environment for building planq's binaries as make
// and the release archives do: static, without cgo.
func BuildEnv() []string {
	return append(os.Environ(), "CGO_ENABLED=0")
}

// GoBuild is the go build of pkg into out, run in dir, that the tests
// build planq's binaries with: static like make build and the release
// archives (BuildEnv), and -trimpath like the archives (scripts/dist.sh),
// so that the dist test's build for this platform reuses every package
// these compiled and only links (a full compile of planq and its
// dependencies is minutes on two busy cores).
func GoBuild(dir, out, pkg string, flags ...string) *exec.Cmd {
	cmd := exec.Command("go", append(append([]string{"build", "-trimpath"}, flags...), "-o", out, pkg)...)
	cmd.Dir = dir
	cmd.Env = BuildEnv()
	return cmd
}

// RemoteWithMain creates a bare git repo whose main holds one commit (a
// README), as a project's origin would, and returns its path.
func RemoteWithMain(t testing.TB) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "origin.git")
	Run(t, "", "git", "init", "-q", "--bare", "-b", "main", bare)
	PushCommit(t, bare, "README.md", "# project\n", "Initial commit")
	return bare
}

// PushCommit commits content to rel on top of the remote's main, as someone
// else would, and pushes it; it returns the new commit id.
func PushCommit(t testing.TB, bare, rel, content, msg string) string {
	t.Helper()
	work := t.TempDir()
	Run(t, work, "git", "init", "-q", "-b", "main")
	Run(t, work, "git", "remote", "add", "origin", bare)
	if strings.TrimSpace(Run(t, work, "git", "ls-remote", "origin", "refs/heads/main")) != "" {
		Run(t, work, "git", "fetch", "-q", "origin", "main")
		Run(t, work, "git", "reset", "-q", "--hard", "FETCH_HEAD")
	}
	WriteFile(t, work, rel, content)
	Run(t, work, "git", "add", "--", rel)
	Run(t, work, "git", "commit", "-q", "-m", msg)
	Run(t, work, "git", "push", "-q", "origin", "HEAD:refs/heads/main")
	return strings.TrimSpace(Run(t, work, "git", "rev-parse", "HEAD"))
}

// Clone clones the remote into a fresh colocated jj repo, as a user starting
// on a project does (`jj git clone --colocate`), and returns its path.
func Clone(t testing.TB, bare string) string {
	t.Helper()
	RequireGitForJJ(t)
	dir := filepath.Join(t.TempDir(), "clone")
	Run(t, "", "jj", "git", "clone", "--colocate", bare, dir)
	return dir
}

// EnsureChromium returns a headless-capable Chromium for browser tests,
// running the module's scripts/install-chromium.sh to
// find or install one; it skips the test loudly, naming the script, when
// the script cannot install one here (exit code 3).
func EnsureChromium(t testing.TB) string {
	t.Helper()
	SkipShort(t, "drives a real browser")
	c := chromium()
	switch {
	case c.skip != "":
		t.Skipf("SKIPPED: no Chromium for the browser tests; run `bash scripts/install-chromium.sh` (or `make chromium`) as root: %s", c.skip)
	case c.err != nil:
		t.Fatal(c.err)
	}
	return c.path
}

// chromiumResult is what scripts/install-chromium.sh found.
type chromiumResult struct {
	path, skip string
	err        error
}

// chromium runs scripts/install-chromium.sh once per test binary.
var chromium = sync.OnceValue(func() chromiumResult {
	root, err := ModuleRoot()
	if err != nil {
		return chromiumResult{err: err}
	}
	script := filepath.Join(root, "scripts", "install-chromium.sh")
	cmd := exec.Command("bash", script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	r := chromiumResult{path: strings.TrimSpace(string(out))}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		r.skip = strings.TrimSpace(stderr.String())
		return r
	}
	if err != nil || r.path == "" {
		r.err = fmt.Errorf("bash %s: %v\n%s", script, err, stderr.String())
	}
	return r
})

// ModuleRoot returns the module's root, the nearest directory holding
// go.mod at or above the working directory (a test's package directory),
// where the project's scripts are.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// CleanEnv is the environment of a user with nothing set up but the tools
// the tests run: a PATH of the directories that hold go, jj and git and the
// system's bin directories, and an empty HOME, so no go env file, git
// config or jj config of this machine applies. Only Go's build and module
// caches are kept, as Isolate keeps them, so a build in it reuses the cache.
func CleanEnv(t testing.TB) []string {
	t.Helper()
	var path []string
	for _, tool := range []string{"go", "jj", "git"} {
		if p, err := exec.LookPath(tool); err == nil && !slices.Contains(path, filepath.Dir(p)) {
			path = append(path, filepath.Dir(p))
		}
	}
	path = append(path, "/usr/local/bin", "/usr/bin", "/bin")
	home := t.TempDir()
	noGoTelemetry(t, filepath.Join(home, ".config"))
	env := []string{"PATH=" + strings.Join(path, string(os.PathListSeparator)), "HOME=" + home}
	for k, v := range goCaches() {
		env = append(env, k+"="+v)
	}
	return env
}

// noGoTelemetry turns Go's telemetry off for a HOME whose config directory
// is configDir: else every go command run there counts into
// configDir/go/telemetry, and a go process still writing there when the test
// ends makes removing the temp HOME fail.
func noGoTelemetry(t testing.TB, configDir string) {
	t.Helper()
	dir := filepath.Join(configDir, "go", "telemetry")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mode"), []byte("off"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sharedDirs are the SharedTempDirs Main removes.
var sharedDirs struct {
	sync.Mutex
	list []string
}

// SharedTempDir makes a temp dir that lives as long as the test binary, for
// what its tests build once and share (a binary, a template repository).
// Main removes it; a package that uses it has
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
func SharedTempDir(prefix string) (string, error) {
	d, err := os.MkdirTemp("", prefix)
	if err == nil {
		sharedDirs.Lock()
		sharedDirs.list = append(sharedDirs.list, d)
		sharedDirs.Unlock()
	}
	return d, err
}

// mainRuns says the test binary runs under Main, which removes the
// SharedTempDirs when the tests are done.
var mainRuns atomic.Bool

// Main runs a package's tests, then removes its SharedTempDirs, so a run
// leaves nothing in the temp dir.
func Main(m *testing.M) {
	mainRuns.Store(true)
	code := m.Run()
	sharedDirs.Lock()
	for _, d := range sharedDirs.list {
		os.RemoveAll(d)
	}
	sharedDirs.Unlock()
	os.Exit(code)
}
