//go:build unix

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/transcript"
)

// TestQueryAncestorFetchesTheLineageOfAChangeWithoutItsRoot: a teammate's
// agent went on from its session's root in a second change whose
// description names no session (no Session: trailer). On another machine,
// query_ancestor of that change finds its lineage on the state remote
// through its ancestors (the root is one) and returns the transcript; a
// change of no lineage gets none, and no error.
func TestQueryAncestorFetchesTheLineageOfAChangeWithoutItsRoot(t *testing.T) {
	t.Parallel()
	testenv.RequireJJ(t)
	rng := rand.New(rand.NewPCG(25, 4))
	a, b := teammates(t)
	// (jj may first say it imported the code remote's refs.)
	ids := strings.Fields(a.jjRun(t, "jj", "log", "-r", "@-", "--no-graph", "-T", "change_id"))
	plain := ids[len(ids)-1]

	// Two lineages, so that the nearest ancestor's is the one asked for:
	// an older one rooted lower down, and the one whose second change is
	// queried.
	var roots []string
	for i, task := range []string{"older session", "the session"} {
		if err := os.WriteFile(filepath.Join(a.repo, fmt.Sprintf("step-%d.txt", i)), []byte(task+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		a.jjRun(t, "jj", "describe", "-m", task)
		root := a.jjRun(t, "jj", "log", "-r", "@", "--no-graph", "-T", "change_id")
		roots = append(roots, root)
		a.write(t, rng, root, 5, true)
		a.jjRun(t, "jj", "new")
	}
	root := roots[1]
	// The agent goes on in a new change of the same lineage, described
	// without a trailer.
	if err := os.WriteFile(filepath.Join(a.repo, "more.txt"), []byte("more\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.jjRun(t, "jj", "describe", "-m", "tune the rate limiter")
	child := a.jjRun(t, "jj", "log", "-r", "@", "--no-graph", "-T", "change_id")
	if _, err := a.ts.Update(context.Background(), root, func(s *transcript.Session) error {
		s.AddChange(child)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a.write(t, rng, root, 3, true)
	a.jjRun(t, "jj", "new")
	a.jjRun(t, "jj", "bookmark", "set", "main", "-r", "@-")
	a.jjRun(t, "git", "push", "-q", "origin", "main")
	if r := a.run(0, "state", "push"); r.code != 0 {
		t.Fatalf("a's state push: %s", r.out)
	}
	b.jjRun(t, "git", "fetch", "-q", "origin")
	c := startServerEnv(t, b.repo, b.jjEnv())
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "lazy-test", "version": "1"}})
	c.notify("notifications/initialized")

	out := c.callTool("query_ancestor", map[string]any{"change_id": child, "include": []string{"transcript"}})
	tr, _ := out["transcript"].(map[string]any)
	lines, _ := tr["lines"].([]any)
	if tr == nil || tr["session_root"] != root || len(lines) == 0 || strings.Contains(fmt.Sprint(tr["note"]), "failed") {
		t.Fatalf("query_ancestor of %s (a change after its lineage's root, no Session trailer): %v", child[:8], out)
	}
	if _, err := b.ts.Load(roots[0]); err == nil {
		t.Errorf("b fetched the older lineage %s too; want only the one %s is in", roots[0][:8], child[:8])
	}

	// A change below every lineage: nothing to fetch, no error.
	out = c.callTool("query_ancestor", map[string]any{"change_id": plain, "include": []string{"transcript"}})
	if tr, _ := out["transcript"].(map[string]any); tr != nil && tr["session_root"] != nil && tr["session_root"] != "" {
		t.Errorf("query_ancestor of %s, in no lineage: %v", plain[:8], out)
	}
}
