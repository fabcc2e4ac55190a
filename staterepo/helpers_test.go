package staterepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// env is a test world: a code repo, a PLANQ_HOME and a HOME, all temporary.
type env struct {
	t    *testing.T
	home string // HOME
	pq   string // PLANQ_HOME
	repo string // code repo root
	vars map[string]string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	base := t.TempDir()
	e := &env{t: t, home: filepath.Join(base, "home"), pq: filepath.Join(base, "planq-home"), repo: filepath.Join(base, "code")}
	for _, d := range []string{e.home, e.repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.vars = map[string]string{"HOME": e.home, "PLANQ_HOME": e.pq}
	e.git(e.repo, "init", "-q", "-b", "main")
	return e
}

func (e *env) getenv(k string) string { return e.vars[k] }

// open opens a store for the code repo with the given agent ("" = default).
func (e *env) open(agent string) *Store {
	e.t.Helper()
	s, err := Open(Options{Dir: e.repo, Agent: agent, Getenv: e.getenv, LockTimeout: time.Minute})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// gitEnv is the environment for git commands: isolated from the machine's
// configuration.
func (e *env) gitEnv() []string {
	return append(os.Environ(), "HOME="+e.home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
}

// git runs the git CLI in dir and returns its trimmed stdout, failing the
// test on error.
func (e *env) git(dir string, args ...string) string {
	e.t.Helper()
	out, err := e.gitErr(dir, args...)
	if err != nil {
		e.t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

func (e *env) gitErr(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = e.gitEnv()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mkdirAll(d string) error { return os.MkdirAll(d, 0o755) }
