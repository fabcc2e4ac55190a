package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestEveryBinaryReportsOneVersion builds planq, planq-hook and
// planq-sandbox each way a user does, from a fresh git clone of this source
// in a clean environment (an empty HOME: no go env file, so Go stamps the
// VCS pseudo-version as it does on a fresh machine), and checks that
// `planq --version`, `planq version`, `planq-hook version` and
// `planq-sandbox --version` name one version and that planq doctor finds
// the three matching.
func TestEveryBinaryReportsOneVersion(t *testing.T) {
	testenv.SkipShort(t, "builds planq, planq-hook and planq-sandbox five ways")
	t.Parallel()
	root := sourceClone(t)
	for _, tc := range []struct {
		name string
		cmds func(dir string) [][]string
		env  []string
		want string // the version, or its start, when the build names it
	}{
		{name: "go build", want: "v0.0.0-", cmds: func(dir string) [][]string {
			return [][]string{
				{"go", "build", "-o", filepath.Join(dir, "planq"), "./cmd/planq"},
				{"go", "build", "-o", filepath.Join(dir, "planq-hook"), "./cmd/planq-hook"},
				{"go", "build", "-o", filepath.Join(dir, "planq-sandbox"), "./cmd/planq-sandbox"},
			}
		}},
		{name: "go build without VCS stamping", env: []string{"GOFLAGS=-buildvcs=false"}, want: "dev", cmds: func(dir string) [][]string {
			return [][]string{
				{"go", "build", "-o", filepath.Join(dir, "planq"), "./cmd/planq"},
				{"go", "build", "-o", filepath.Join(dir, "planq-hook"), "./cmd/planq-hook"},
				{"go", "build", "-o", filepath.Join(dir, "planq-sandbox"), "./cmd/planq-sandbox"},
			}
		}},
		{name: "go install", cmds: func(dir string) [][]string {
			return [][]string{{"env", "GOBIN=" + dir, "go", "install", "./cmd/planq", "./cmd/planq-hook", "./cmd/planq-sandbox"}}
		}},
		{name: "make build", cmds: func(dir string) [][]string {
			return [][]string{{"make", "--no-print-directory", "build", "BUILDDIR=" + dir}}
		}},
		{name: "make build VERSION", want: "v9.8.7-test", cmds: func(dir string) [][]string {
			return [][]string{{"make", "--no-print-directory", "build", "BUILDDIR=" + dir, "VERSION=v9.8.7-test"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := append(testenv.CleanEnv(t), tc.env...)
			dir := t.TempDir()
			for _, args := range tc.cmds(dir) {
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir, cmd.Env = root, env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
				}
			}
			run := func(bin string, args ...string) string {
				cmd := exec.Command(filepath.Join(dir, bin), args...)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.Output()
				if err != nil && !strings.Contains(strings.Join(args, " "), "doctor") {
					t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
				}
				return strings.TrimSpace(string(out))
			}
			v := strings.TrimPrefix(run("planq", "--version"), "planq ")
			if v == "" || !strings.HasPrefix(v, tc.want) {
				t.Fatalf("planq --version says %q, want %q", v, tc.want)
			}
			if got := run("planq", "version"); got != "planq "+v {
				t.Errorf("planq version says %q, planq --version %q", got, v)
			}
			if got := run("planq-hook", "version"); got != "planq-hook "+v {
				t.Errorf("planq-hook version says %q, planq says %q", got, v)
			}
			if got := run("planq-sandbox", "--version"); got != "planq-sandbox "+v {
				t.Errorf("planq-sandbox --version says %q, planq says %q", got, v)
			}
			var rep doctorReport
			if err := json.Unmarshal([]byte(run("planq", "doctor", "--json")), &rep); err != nil {
				t.Fatalf("planq doctor --json: %v", err)
			}
			for _, c := range rep.Checks {
				if c.Name == "hook-bin" && (!c.OK || !strings.Contains(c.Detail, "serves the tool hooks") || !strings.Contains(c.Detail, "runs locked shell commands")) {
					t.Errorf("doctor on a pair built by %s: %+v", tc.name, c)
				}
			}
			t.Logf("%s: version %s", tc.name, v)
		})
	}
}

// sourceClone copies this module's source (the working tree as it is, not
// its last commit) into a fresh git repository with one commit, as a user's
// clone is, and returns its path.
func sourceClone(t *testing.T) string {
	t.Helper()
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "planq")
	// What is not source: VCS data anywhere, and at the top what the build,
	// make dist and the tool installs leave.
	vcs := []string{".git", ".jj", "node_modules"}
	built := []string{".tools", "dist", "bin", "planq", "planq-hook", "planq-sandbox"}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if slices.Contains(vcs, d.Name()) || (filepath.Dir(rel) == "." && slices.Contains(built, d.Name())) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("copy the source: %v", err)
	}
	git := []string{"-c", "user.name=Test User", "-c", "user.email=test@example.com"}
	testenv.Run(t, dst, "git", "init", "-q", "-b", "main")
	testenv.Run(t, dst, "git", "add", "-A")
	testenv.Run(t, dst, "git", append(git, "commit", "-q", "-m", "source")...)
	return dst
}
