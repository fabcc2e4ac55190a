package staterepo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
)

// TestWorkspacesShareTheProjectEachWithItsAgent: every jj workspace of a
// repo writes to the one state repo of its project, each on an agent branch
// of its own, and the state worktree stays out of every working copy.
func TestWorkspacesShareTheProjectEachWithItsAgent(t *testing.T) {
	for _, kind := range []string{"colocated", "jj only"} {
		t.Run(kind, func(t *testing.T) {
			testenv.Isolate(t)
			dir := testenv.JJRepo(t)
			if kind == "jj only" {
				dir = testenv.JJOnlyRepo(t)
			}
			ctx := context.Background()
			ws := filepath.Join(t.TempDir(), "agent one")
			if _, err := jj.New(dir).WorkspaceAdd(ctx, ws, jj.WorkspaceAddOptions{Name: "agent-one"}); err != nil {
				t.Fatal(err)
			}
			open := func(d string) *staterepo.Store {
				s, err := staterepo.Open(staterepo.Options{Dir: d})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			mainStore, wsStore := open(dir), open(ws)
			if mainStore.Project != wsStore.Project || mainStore.Bare != wsStore.Bare {
				t.Fatalf("workspace project %q (%s), main %q (%s): want one state repo", wsStore.Project, wsStore.Bare, mainStore.Project, mainStore.Bare)
			}
			if mainStore.Agent == wsStore.Agent || wsStore.Agent != "agent-one" || wsStore.AgentSource != staterepo.SourceWorkspace {
				t.Fatalf("agents: main %q, workspace %q (%s); want the workspace's own, agent-one", mainStore.Agent, wsStore.Agent, wsStore.AgentSource)
			}
			if _, err := mainStore.Log(ctx, "main's entry", changelog.TypeImplement, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := wsStore.Log(ctx, "workspace's entry", changelog.TypeImplement, ""); err != nil {
				t.Fatal(err)
			}
			for d, want := range map[string]string{dir: "main's entry", ws: "workspace's entry"} {
				data, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(staterepo.WorktreeDir), staterepo.ChangelogFile))
				if err != nil || !strings.Contains(string(data), want) {
					t.Errorf("%s's changelog = %q, %v; want %q", d, data, err, want)
				}
				if _, err := os.Stat(filepath.Join(d, ".gitignore")); err == nil {
					t.Errorf("%s has a .gitignore: planq's ignore rule must stay out of the working copy", d)
				}
				files, err := jj.New(d).DiffSummary(ctx, "@")
				if err != nil {
					t.Fatal(err)
				}
				if len(files) != 0 {
					t.Errorf("%s's change holds %+v; the state worktree must be ignored", d, files)
				}
			}
		})
	}
}
