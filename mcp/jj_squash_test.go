package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

// TestSquashFoldsAWorkspaceChange: a subagent's workspace change, a child
// of the session's @, is folded in with jj_squash; its files land in @,
// @ keeps its summary, and the folded change is gone.
func TestSquashFoldsAWorkspaceChange(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	s := connect(t, dir)
	ctx := context.Background()

	_, text := s.call("jj_squash", map[string]any{"from": "@-"}, true)
	if !strings.Contains(text, "jj_init") && !strings.Contains(text, "immutable") && !strings.Contains(text, "root") {
		t.Logf("jj_squash before any change: %q", text)
	}
	init, _ := s.call("jj_init", map[string]any{"description": "Add greeting\n\nDone:\n- nothing yet"}, false)
	testenv.WriteFile(t, dir, "main.txt", "main\n")

	main := jj.New(dir)
	wsDir := filepath.Join(t.TempDir(), "agent-1")
	ws, err := main.WorkspaceAdd(ctx, wsDir, jj.WorkspaceAddOptions{Name: "agent-1", Parents: []string{"@"}, Message: "Subagent: write the helper"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wsDir, "helper.txt"), []byte("helper\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not snapshotted: no jj command ran in the workspace since.

	_, text = s.call("jj_squash", map[string]any{"from": ""}, true)
	if !strings.Contains(text, "from is empty") {
		t.Errorf("jj_squash with no from = %q", text)
	}
	_, text = s.call("jj_squash", map[string]any{"from": "@"}, true)
	if !strings.Contains(text, "same change") {
		t.Errorf("jj_squash of @ into @ = %q", text)
	}

	out, text := s.call("jj_squash", map[string]any{"from": ws.Change.ChangeID}, false)
	if out["from"] != ws.Change.ChangeID || out["into"] != init["change_id"] {
		t.Fatalf("jj_squash = %v", out)
	}
	if files, _ := out["files"].([]any); len(files) != 1 || files[0] != "helper.txt" {
		t.Errorf("jj_squash files = %v, want helper.txt", out["files"])
	}
	if !strings.Contains(text, "Subagent: write the helper") || !strings.Contains(text, "jj_describe") {
		t.Errorf("jj_squash text = %q", text)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "helper.txt")); err != nil || string(got) != "helper\n" {
		t.Fatalf("helper.txt in the main working copy = %q, %v; want the folded file", got, err)
	}
	cur, err := main.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cur.Description, "Add greeting") {
		t.Errorf("@'s description after the squash = %q, want its own kept", cur.Description)
	}
	if files, _ := main.DiffSummary(ctx, "@"); len(files) != 2 {
		t.Errorf("@ diff = %+v, want main.txt and helper.txt", files)
	}
	if ok, err := main.Resolves(ctx, ws.Change.ChangeID); err != nil || ok {
		t.Errorf("the folded change still resolves (%v, %v); jj_squash must abandon it", ok, err)
	}
}

// TestStaleWorkspaceUpdatedAndSaid: a tool call in a workspace another
// workspace left stale updates it and says so.
func TestStaleWorkspaceUpdatedAndSaid(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	ctx := context.Background()
	main := jj.New(dir)
	wsDir := filepath.Join(t.TempDir(), "two")
	if _, err := main.WorkspaceAdd(ctx, wsDir, jj.WorkspaceAddOptions{Name: "two", Message: "two"}); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, wsDir, "f.txt", "x\n")
	if _, err := jj.New(wsDir).Current(ctx); err != nil {
		t.Fatal(err)
	}
	ops, err := main.Run(ctx, "op", "log", "--no-graph", "-T", `id ++ "\n"`, "--limit", "2")
	if err != nil {
		t.Fatal(err)
	}
	if err := main.OpRestore(ctx, strings.Fields(string(ops))[1]); err != nil {
		t.Fatal(err)
	}
	s := connect(t, wsDir)
	out, text := s.call("jj_status", nil, false)
	if !strings.Contains(text, "stale") || !strings.Contains(text, "update-stale") {
		t.Errorf("jj_status in a stale workspace = %q, want it to say the working copy was updated", text)
	}
	if out["change_id"] == nil {
		t.Errorf("jj_status = %v", out)
	}
}

// TestPushRefusesConflicts: two agents' changes that edit one file
// differently conflict where they meet; jj_push refuses that stack and
// names the file.
func TestPushRefusesConflicts(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	testenv.BareRemote(t, dir, "origin")
	ctx := context.Background()
	c := jj.New(dir)
	testenv.WriteFile(t, dir, "shared.txt", "base\n")
	if err := c.Describe(ctx, "@", "base"); err != nil {
		t.Fatal(err)
	}
	base, _ := c.Current(ctx)
	var sides []string
	for _, content := range []string{"agent one\n", "agent two\n"} {
		ch, err := c.New(ctx, "agent's edit", base.ChangeID)
		if err != nil {
			t.Fatal(err)
		}
		testenv.WriteFile(t, dir, "shared.txt", content)
		if _, err := c.Current(ctx); err != nil {
			t.Fatal(err)
		}
		sides = append(sides, ch.ChangeID)
	}
	if _, err := c.New(ctx, "Merge the agents' work", sides...); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, dir, "notes.txt", "merged\n")
	s := connect(t, dir)
	_, text := s.call("jj_push", map[string]any{"dry_run": true}, true)
	if !strings.Contains(text, "conflicts") || !strings.Contains(text, "shared.txt") {
		t.Errorf("jj_push of a conflicted stack = %q, want a refusal naming shared.txt", text)
	}
}
