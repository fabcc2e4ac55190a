package ui_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// project is a code repo built for a test the way agents leave one: described
// changes with living summaries, a parallel agent's workspace, state entries,
// a stored transcript and some metrics.
type project struct {
	Repo    string // the main workspace
	Root    string // the session lineage's root change
	Current string // the main workspace's change (@)
}

const (
	limiterTask = "Add rate limiting to the API"
	limiterDesc = limiterTask + `

A token bucket per API key, checked in the middleware before routing.

Done:
- ` + "`api/limit.go`" + `: the token bucket, 100 requests a minute per key
- unit tests for refill and burst

Key decisions:
- token bucket over a sliding window: it allows short bursts and needs one counter

Left to do:
- nothing

Open questions:
- none
`
	routerTask = "Wire the limiter into the router"
	routerDesc = routerTask + `

Done:
- ` + "`api/router.go`" + `: every route goes through **Limit**

Key decisions:
- limit before authentication, so floods never reach the database

Left to do:
- a 429 response with Retry-After
- document the limits in README.md

Open questions:
- per API key or per client IP behind a proxy?
`
)

// buildProject makes the test project; the environment is isolated first.
func buildProject(t *testing.T) project {
	t.Helper()
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	run := func(args ...string) string { return testenv.Run(t, repo, "jj", args...) }
	testenv.WriteFile(t, repo, ".planq/config.yaml", "project: shop-api\n")
	testenv.WriteFile(t, repo, "README.md", "# shop API\n")
	run("describe", "-m", "Initial commit")
	run("bookmark", "set", "main", "-r", "@")
	run("new", "-m", limiterDesc)
	testenv.WriteFile(t, repo, "api/limit.go", "package api\n\n// Limit allows 100 requests a minute per key.\nfunc Limit(key string) bool { return bucket(key).take() }\n")
	root := strings.TrimSpace(run("log", "--no-graph", "-r", "@", "-T", "change_id"))
	run("new", "-m", routerDesc)
	testenv.WriteFile(t, repo, "api/router.go", "package api\n\nfunc Route(key, path string) int {\n\tif !Limit(key) {\n\t\treturn 429\n\t}\n\treturn 200\n}\n")
	current := strings.TrimSpace(run("log", "--no-graph", "-r", "@", "-T", "change_id"))
	// A parallel agent in its own workspace, on the limiter change.
	docs := filepath.Join(t.TempDir(), "docs")
	run("workspace", "add", "--name", "docs", "-r", root, docs)
	testenv.Run(t, docs, "jj", "describe", "-m", "Document the rate limits\n\nDone:\n- nothing yet\n\nKey decisions:\n- none\n\nLeft to do:\n- a Rate limits section in README.md\n\nOpen questions:\n- none\n")
	run("status") // snapshot the main workspace

	ctx := context.Background()
	st, err := staterepo.Open(staterepo.Options{Dir: repo, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Init(ctx); err != nil {
		t.Fatal(err)
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Log(ctx, "Started on rate limiting: the API has none, and one client took it down last week", changelog.TypeStart, ""))
	must(st.Decide(ctx, "Token bucket per API key", []string{"sliding window log", "fixed window counter"}, "It allows short bursts and needs one counter per key"))
	must(st.Learn(ctx, "jj describe keeps the change id, so the lineage survives rewording", "Found while rewording the router change"))
	must(st.Log(ctx, "Wrote api/limit.go with refill and burst tests", changelog.TypeImplement, ""))
	must(st.Handoff(ctx, "The limiter is in; the router wiring needs a 429 response", []string{"Return 429 with Retry-After", "Document the limits"}, "docs"))
	must(st.Scratch(ctx, "## Notes\n\n- bucket size 100, refill 100/min\n- check the proxy's X-Forwarded-For before limiting by IP\n", staterepo.ScratchReplace))
	must(st.CreateCheckpoint(ctx, "before-router", staterepo.OwnerUser))
	must(st.Promote(ctx))

	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Update(ctx, root, func(s *transcript.Session) error {
		s.Task = limiterTask
		s.AddChange(root)
		s.AddChange(current)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path, err := ts.Path(root)
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"Add rate limiting to the API: 100 requests a minute per key."}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I will declare the change first, then add a token bucket in api/limit.go."}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./api/"}}]}}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok  \tshop/api\t0.012s"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"The limiter passes its tests; next I wire it into the router."}]}}`,
	}
	testenv.WriteFile(t, filepath.Dir(path), filepath.Base(path), strings.Join(lines, "\n")+"\n")

	dir, err := metrics.DirFor(repo, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	recs := []metrics.Record{
		{Time: now.Add(-3 * time.Hour), Kind: metrics.KindStart, Session: "s1"},
		{Time: now.Add(-3*time.Hour + 40*time.Second), Kind: metrics.KindDeclared, Session: "s1"},
		{Time: now.Add(-2 * time.Hour), Kind: metrics.KindGate, Tool: "Edit", Rule: "locked", Verdict: metrics.VerdictDeny},
		{Time: now.Add(-2 * time.Hour), Kind: metrics.KindGate, Tool: "Edit", Rule: "declared", Verdict: metrics.VerdictAllow},
		{Time: now.Add(-2 * time.Hour), Kind: metrics.KindGate, Tool: "Bash", Rule: "shell", Verdict: metrics.VerdictAllow},
		{Time: now.Add(-time.Hour), Kind: metrics.KindTool, Tool: "jj_describe"},
		{Time: now.Add(-time.Hour), Kind: metrics.KindTool, Tool: "planq_search"},
		{Time: now.Add(-time.Hour), Kind: metrics.KindEmptySearch, Query: "retry budget"},
		metrics.EscapesRecord("jj_init", "s1", "claude", nil),
	}
	if err := metrics.Append(dir, recs...); err != nil {
		t.Fatal(err)
	}
	return project{Repo: repo, Root: root, Current: current}
}
