// Package sessiontest holds what the tests of the session core (package
// hooks) and of the workflows over it (package workflow) share: jj run in a
// test's repo, the repo's current change and transcript store, a host
// transcript file to append to, and a repo wired for agent hosts whose new
// workspaces are wired the way `planq hook worktree-create` wires them. It
// drives the real jj, state repo and host installers.
package sessiontest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// JJ runs jj with args in dir, without pager or colour, and returns its
// output; a failure fails the test.
func JJ(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testenv.Run(t, dir, "jj", append([]string{"--no-pager", "--color", "never"}, args...)...)
}

// Current is the working-copy change of the jj repo at dir.
func Current(t testing.TB, dir string) jj.Change {
	t.Helper()
	c, err := jj.New(dir).Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Store is the transcript store of the project of the repo at dir.
func Store(t testing.TB, dir string) *transcript.Store {
	t.Helper()
	st, err := staterepo.Open(staterepo.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// AppendLines appends lines to the file at path (a host's transcript),
// making it when missing.
func AppendLines(t testing.TB, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		fmt.Fprintln(f, l)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Wire gives a new workspace ws of the repo whose main working copy is
// mainRoot planq's wiring, as workflow.NewWorkspace.Wire and
// hooks.Runner.WireWorkspace take it.
type Wire = func(ctx context.Context, mainRoot, ws string) error

// WiredRepo is a jj repo (links resolved) in an isolated HOME with planq
// installed for hostNames in local scope, the HOME, and the Wire that wires
// its new workspaces for the same hosts (hosts.WireWorkspace).
func WiredRepo(t testing.TB, hostNames ...string) (repo, home string, wire Wire) {
	t.Helper()
	testenv.Isolate(t)
	repo, home = testenv.JJRepo(t), os.Getenv("HOME")
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	exe := filepath.Join(t.TempDir(), "planq")
	o := conffile.Options{Scope: conffile.ScopeLocal, ProjectDir: repo, Home: home, Exe: exe}
	for _, host := range hostNames {
		ad, err := hosts.Lookup(host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ad.Install(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	wire = func(ctx context.Context, mainRoot, ws string) error {
		return hosts.WireWorkspace(ctx, conffile.Options{ProjectDir: mainRoot, Home: home, Exe: exe}, ws)
	}
	return repo, home, wire
}
