// Package hosttest holds what the host adapters' tests share: a repo and
// install options to wire it with, reading a file, a captured hook payload
// from testdata, and a gate run through an adapter's protocol as the host
// runs its pre-tool-use hook.
package hosttest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
)

// Repo isolates the test (testenv.Isolate) and returns a fresh jj repo,
// its symlinks resolved as hosts resolve a project.
func Repo(t testing.TB) string {
	t.Helper()
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	return repo
}

// Options are the options of an install in scope for the project repo,
// with planq and planq-hook in a directory whose name has a space (they
// are not there) and the host's environment read from env.
func Options(t testing.TB, repo, scope string, env map[string]string) conffile.Options {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "with space")
	return conffile.Options{Scope: scope, ProjectDir: repo, Home: os.Getenv("HOME"), Exe: filepath.Join(bin, "planq"), HookExe: filepath.Join(bin, "planq-hook"),
		Getenv: func(k string) string { return env[k] }}
}

// ReadFile returns the file at path; a failure ends the test.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Fixture returns the payload a host sent a logging hook (testdata/NAME.json,
// captured with go test -tags capture) after edit has pointed it at the
// test's project and transcript.
func Fixture(t testing.TB, name string, edit func(payload map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(ReadFile(t, filepath.Join("testdata", name+".json"))), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := json.Marshal(m)
	return out
}

// Gate runs the pre-tool-use hook on payload through proto, as the host
// runs it, and returns its exit status and its answer decoded as an R (nil
// when it printed nothing); an answer that is not an R ends the test.
func Gate[R any](t testing.TB, proto session.Protocol, payload string, getenv func(string) string) (int, *R) {
	t.Helper()
	var out, errb bytes.Buffer
	code := session.RunPreToolUse(context.Background(), proto, strings.NewReader(payload), &out, &errb, getenv)
	s := strings.TrimSpace(out.String())
	if s == "" {
		return code, nil
	}
	var r R
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("reply %q: %v", s, err)
	}
	return code, &r
}
