package gate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
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

// A sandbox is a throwaway copy of a real jj repository (colocated with
// git) in a temp dir T: the project at T/repo, a home at T/home, a temp
// dir at T/tmp and its PATH at T/tools (sandboxpath_test.go). The class
// tests run each command there, as a child bash with HOME, TMPDIR, PATH
// and its working directory inside T, and compare the
// project before and after, so that a table's "modifies" or "read-only"
// cannot drift from what the command really does. Commands are never run
// anywhere else; a case that could reach outside T (absolute paths outside
// it, ~, the network, other processes, the system) is judged by analysis
// alone and says so.
type sandbox struct {
	dir, repo, home, tmp string
	env                  []string
}

// sandboxTemplate builds the repository every sandbox copies, once per test
// binary: a Go module with a test, a Makefile with test, check and build
// targets, a package.json with scripts, a virtualenv activation script, an
// archive, a build directory, a git tag, and a working copy that differs
// from the git HEAD (so git commands that reset files change them).
var sandboxTemplate = sync.OnceValues(func() (string, error) {
	for _, b := range []string{"jj", "git", "bash"} {
		if _, err := exec.LookPath(b); err != nil {
			return "", fmt.Errorf("%s is not installed", b)
		}
	}
	t, err := testenv.SharedTempDir("planq-gate-sandbox-")
	if err != nil {
		return "", err
	}
	s := &sandbox{dir: t, repo: filepath.Join(t, "repo"), home: filepath.Join(t, "home"), tmp: filepath.Join(t, "tmp")}
	s.setEnv()
	for _, d := range []string{s.repo, s.home, s.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	if _, err := writeTools(filepath.Join(t, toolsDir), lookPath, sandboxTools...); err != nil {
		return "", err
	}
	if err := writeZip(filepath.Join(s.repo, "a.zip"), "z.txt", "zipped\n"); err != nil {
		return "", err
	}
	files := map[string]string{
		"go.mod":              "module example.com/fixture\n\ngo 1.21\n",
		"main.go":             "package main\n\nfunc add(a, b int) int { return a + b }\n\nfunc main() { println(add(1, 2)) }\n",
		"main_test.go":        "package main\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
		"README.md":           "# fixture\n",
		"notes.txt":           "hello\nworld\n",
		"f":                   "a\nb\nc\n",
		"build/out.txt":       "built\n",
		"src/lib.txt":         "library\n",
		"Makefile":            "test:\n\t@echo tests pass\ncheck:\n\t@echo checks pass\ncompile:\n\ttouch built.txt\n",
		".gitignore":          "*.log\n",
		"debug.log":           "ignored\n",
		"package.json":        `{"name":"fixture","version":"1.0.0","private":true,"scripts":{"test":"sh scripts/test.sh","build":"touch dist.txt","test:update":"touch snapshot.txt","lint":"echo lint ok","prepack":"touch packed.txt"}}` + "\n",
		"scripts/test.sh":     "for a in \"$@\"; do case \"$a\" in -u|*update*) touch snapshot.txt;; esac; done\necho tests pass\n",
		".venv/bin/activate":  "VIRTUAL_ENV=\"$PWD/.venv\"\nexport VIRTUAL_ENV\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\nexport PATH\n",
		"scripts/hello.sh":    "echo hello\n",
		"tests/test_basic.py": "def test_ok():\n    assert True\n",
	}
	for name, content := range files {
		p := filepath.Join(s.repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	steps := [][]string{
		{"jj", "git", "init", "--colocate", "."},
		{"bash", "-c", "echo inside > extracted.txt && tar cf a.tar extracted.txt && rm extracted.txt"},
		{"jj", "commit", "-m", "init"},
		{"git", "tag", "-a", "v1.0", "-m", "first release"},
		{"bash", "-c", "echo changed >> notes.txt && echo new > new.txt"},
		{"jj", "status"},
	}
	for _, st := range steps {
		if out, err := s.command(context.Background(), st[0], st[1:]...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %v\n%s", strings.Join(st, " "), err, out)
		}
	}
	return t, nil
})

func (s *sandbox) setEnv() {
	s.env = []string{
		"PATH=" + filepath.Join(s.dir, toolsDir), "HOME=" + s.home, "TMPDIR=" + s.tmp, "LANG=C", "TERM=dumb",
		"JJ_CONFIG=" + filepath.Join(s.home, "jj.toml"), "JJ_USER=Sandbox", "JJ_EMAIL=sandbox@example.com",
		"GIT_AUTHOR_NAME=Sandbox", "GIT_AUTHOR_EMAIL=sandbox@example.com", "GIT_COMMITTER_NAME=Sandbox",
		"GIT_COMMITTER_EMAIL=sandbox@example.com", "GIT_CONFIG_NOSYSTEM=1",
		"GOPROXY=off", "GOTOOLCHAIN=local", "npm_config_cache=" + filepath.Join(s.home, ".npm"),
		"npm_config_update_notifier=false", "npm_config_offline=true",
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if v := goEnv(k); v != "" {
			s.env = append(s.env, k+"="+v)
		}
	}
}

var goEnvs = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return m
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if i < len(v) {
			m[k] = v[i]
		}
	}
	return m
})

func goEnv(k string) string { return goEnvs()[k] }

func (s *sandbox) getenv(k string) string {
	for _, e := range s.env {
		if n, v, _ := strings.Cut(e, "="); n == k {
			return v
		}
	}
	return ""
}

func (s *sandbox) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir, c.Env = s.repo, s.env
	c.WaitDelay = 5 * time.Second
	return c
}

// newSandbox copies the template into a fresh temp dir.
func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	tmpl, err := sandboxTemplate()
	if err != nil {
		t.Skipf("SKIPPED executing commands: %v", err)
	}
	d := tmpl
	if !testenv.Short() { // the short suite only judges, so the template serves every case
		d = t.TempDir()
		if err := copyTree(tmpl, d); err != nil {
			t.Fatal(err)
		}
	}
	s := &sandbox{dir: d, repo: filepath.Join(d, "repo"), home: filepath.Join(d, "home"), tmp: filepath.Join(d, "tmp")}
	s.setEnv()
	return s
}

// where is the sandbox as the gate sees it.
func (s *sandbox) where() Where { return Where{Root: s.repo, Cwd: s.repo, Getenv: s.getenv} }

// expand replaces {T} in a case's command with the sandbox's directory.
func (s *sandbox) expand(cmd string) string { return strings.ReplaceAll(cmd, "{T}", s.dir) }

// run runs cmd with bash in the project and returns what changed in it.
func (s *sandbox) run(t *testing.T, cmd string) (changed []string, out string) {
	t.Helper()
	before := s.snapshot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := s.command(ctx, "bash", "-c", cmd)
	c.Stdin = strings.NewReader("")
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	_ = c.Run() // a failing command is fine: what it changed is the question
	after := s.snapshot(t)
	for k, v := range after {
		if before[k] != v {
			changed = append(changed, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			changed = append(changed, k+" (removed)")
		}
	}
	sort.Strings(changed)
	return changed, b.String()
}

// snapshot hashes the project: every file outside .jj and .git, git's
// HEAD, refs and index entries (not its stat cache).
func (s *sandbox) snapshot(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	_ = filepath.WalkDir(s.repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.repo, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// jj's own records (and its keep refs in git) are how jj works,
			// not the project.
			if rel == ".jj" || rel == ".git/objects" || rel == ".git/logs" || rel == ".git/hooks" || rel == ".git/info" || rel == ".git/refs/jj" {
				return filepath.SkipDir
			}
			m[rel+"/"] = "dir"
			return nil
		}
		if strings.HasPrefix(rel, ".git/") && !(rel == ".git/HEAD" || rel == ".git/packed-refs" || strings.HasPrefix(rel, ".git/refs/")) {
			return nil
		}
		info, _ := d.Info()
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			m[rel] = "link:" + target
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		sum := sha256.Sum256(data)
		m[rel] = hex.EncodeToString(sum[:8]) + fmt.Sprintf(":%o", info.Mode().Perm())
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := s.command(ctx, "git", "ls-files", "-s").Output(); err == nil {
		sum := sha256.Sum256(out)
		m["(git index)"] = hex.EncodeToString(sum[:8])
	}
	return m
}

// copyTree copies a directory tree, keeping modes and symbolic links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case d.Type().IsRegular():
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			defer in.Close()
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, in); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
			return os.Chtimes(target, info.ModTime(), info.ModTime())
		}
		return nil
	})
}
