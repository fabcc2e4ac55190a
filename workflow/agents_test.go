package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/workflow"
)

// Agents lists the repo's main working copy first, then its added
// workspaces by name, each with its change, whether it is declared, its
// summary and its diff stat, from any workspace of the repo; outside a jj
// repo it says so.
func TestAgents(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	base := t.TempDir()
	for _, name := range []string{"zed", "amy"} {
		testenv.Run(t, repo, "jj", "workspace", "add", "--name", name, filepath.Join(base, name))
	}
	amy := filepath.Join(base, "amy")
	testenv.Run(t, amy, "jj", "describe", "-m", "Amy's task\n\nLeft to do:\n- more")
	testenv.WriteFile(t, amy, "a.txt", "a\n")
	testenv.Run(t, amy, "jj", "status")

	list, err := workflow.Agents(ctx, workflow.Options{Dir: filepath.Join(base, "zed")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "default,amy,zed" || !list[0].Main || list[1].Main {
		t.Fatalf("agents = %v (main %v)", names, list[0].Main)
	}
	a := list[1]
	if !a.Declared || a.Summary != "Amy's task" || !strings.Contains(a.Description, "Left to do") ||
		!strings.Contains(a.DiffStat, "1 file changed") || a.Conflicts == nil || len(a.Conflicts) != 0 || a.Change == "" {
		t.Errorf("amy = %+v", a)
	}
	if z := list[2]; z.Declared || z.Summary != "" || z.Change == a.Change {
		t.Errorf("zed = %+v", z)
	}

	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.Agents(ctx, workflow.Options{Dir: plain}); err == nil || !strings.Contains(err.Error(), "not in a jj repo") {
		t.Errorf("outside a jj repo: %v", err)
	}
}
