package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
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
	st := openState(t, repo, true)
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
	// As the session-end hook writes it: the entry names its lineage and change.
	must(st.Log(ctx, fmt.Sprintf("Claude Code session s1 ended (other). Lineage %s (%q): 2 change(s). Resume with `planq resume %s`.", jj.ShortID(root), limiterTask, jj.ShortID(current)), changelog.TypeEnd, ""))
	must(st.Handoff(ctx, "The limiter is in; the router wiring needs a 429 response", []string{"Return 429 with Retry-After", "Document the limits"}, "docs"))
	must(st.Scratch(ctx, "## Notes\n\n- bucket size 100, refill 100/min\n- check the proxy's X-Forwarded-For before limiting by IP\n", staterepo.ScratchReplace))
	must(st.CreateCheckpoint(ctx, "before-router", staterepo.OwnerUser))
	must(st.Promote(ctx))

	ts := openTranscripts(t, repo)
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

// longWord is a line without a break opportunity, as a pasted path, hash or
// minified blob leaves one in a description, a file name or a transcript.
var longWord = strings.Repeat("src/internal/handlers/ratelimit/", 100)

// fixerTask is the task of the scale fixture's conflicted workspace.
const fixerTask = "Merge the limiter branches"

// fixerLeft are its Left to do items: more than an Overview card shows.
var fixerLeft = []string{
	"resolve the conflicts in conf/",
	"rerun the load test at 500 requests a second",
	"`" + longWord + "` is a path with no break in it",
	"ask ops about the proxy's X-Forwarded-For",
	"update the changelog",
	"bump the client library",
	"write the migration note",
	"close the tracking issue",
}

// addScale turns the test project into one a busy team has: a workspace
// whose change conflicts in 20 files with long names and whose summary has
// more Left to do items than a card shows and a line without a break;
// a state entry and a transcript line without one; n generated session
// lineages; and two bad lineage records (a directory not named by a change
// id, a record whose root is no change id). It returns the fixer change.
func addScale(t *testing.T, p project, n int) string {
	t.Helper()
	run := func(args ...string) string { return testenv.Run(t, p.Repo, "jj", args...) }
	id := func() string { return strings.TrimSpace(run("log", "--no-graph", "-r", "@", "-T", "change_id")) }
	conf := func(side string) {
		for i := range 20 {
			testenv.WriteFile(t, p.Repo, fmt.Sprintf("conf/%02d-%s.yaml", i, strings.Repeat("rate-limit-settings-", 6)), "limit: "+side+"\n")
		}
	}
	run("new", p.Root, "-m", "Limits from the config file")
	conf("100")
	a := id()
	run("new", p.Root, "-m", "Limits from the environment")
	conf("200")
	b := id()
	run("edit", p.Current)
	fixer := filepath.Join(t.TempDir(), "fixer")
	run("workspace", "add", "--name", "fixer", "-r", a, "-r", b, fixer)
	desc := fixerTask + " " + longWord + "\n\nDone:\n- nothing yet\n\nKey decisions:\n- none\n\nLeft to do:\n"
	for _, it := range fixerLeft {
		desc += "- " + it + "\n"
	}
	desc += "\nOpen questions:\n- keep both limits, or the lower one?\n"
	testenv.Run(t, fixer, "jj", "describe", "-m", desc)
	fixerChange := strings.TrimSpace(testenv.Run(t, fixer, "jj", "log", "--no-graph", "-r", "@", "-T", "change_id"))
	run("status")

	if _, err := openState(t, p.Repo, false).Learn(context.Background(), "A path can be long: "+longWord, "Seen in the conflict"); err != nil {
		t.Fatal(err)
	}
	ts := openTranscripts(t, p.Repo)
	path, err := ts.Path(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "look at " + longWord}})
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	f.Close()

	writeLineages(t, ts, n, time.Now().Add(-time.Hour))
	// Two bad records: a copy of a lineage under a name that is no change
	// id, and a record whose root is none.
	good, err := ts.Dir(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(ts.ProjectDir(), "abc123"), os.DirFS(good)); err != nil {
		t.Fatal(err)
	}
	foreign := "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
	dir, _ := ts.Dir(foreign)
	testenv.WriteFile(t, dir, transcript.SessionFile, `{"project":"shop-api","root":"Invalid) | all() | (x","changes":["abc123"]}`)
	return fixerChange
}

// writeLineages stores n session records with generated root ids, as a
// project's history of sessions leaves them, Updated before until. They are
// written as the store lays them out (session.json in the root's
// directory), not through Store.Update, which would take a minute for
// 10,000 with its locks and indexes.
func writeLineages(t testing.TB, ts *transcript.Store, n int, until time.Time) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(27, 27))
	roots := make([]string, 0, n)
	for i := range n {
		b := make([]byte, 32)
		for j := range b {
			b[j] = byte('k' + r.IntN(16))
		}
		root := string(b)
		at := until.Add(-time.Duration(i+1) * time.Minute).UTC()
		sess := transcript.Session{Project: ts.Project, Root: root, Task: fmt.Sprintf("Generated session %d", i+1),
			Changes: []string{root}, Created: at, Updated: at}
		data, err := json.Marshal(sess)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := ts.Dir(root)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, transcript.SessionFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
	}
	return roots
}

// openState opens the state store of repo's project, its warnings
// dropped; with create, it makes the state repo first.
func openState(t testing.TB, repo string, create bool) *staterepo.Store {
	t.Helper()
	st, err := staterepo.Open(staterepo.Options{Dir: repo, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	if create {
		if _, err := st.Init(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// openTranscripts returns the transcript store of repo's project.
func openTranscripts(t testing.TB, repo string) *transcript.Store {
	t.Helper()
	st := openState(t, repo, false)
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// A teammate's lineage, as `planq state pull` leaves one: recorded on
// teammateOrigin, with its lines imported from there.
const (
	teammateOrigin = "bea-laptop-3f9a1c"
	teammateRoot   = "pzxwvutsrqponmlkpzxwvutsrqponmlk"
	teammateTask   = "Log every request"
)

// addTeammateLineage stores the teammate's lineage in the test project.
func addTeammateLineage(t *testing.T, p project) {
	t.Helper()
	ctx := context.Background()
	ts := openTranscripts(t, p.Repo)
	if _, err := ts.Update(ctx, teammateRoot, func(s *transcript.Session) error {
		s.Task, s.Origin = teammateTask, teammateOrigin
		s.AddChange(teammateRoot)
		s.AddAgent(transcript.Agent{ID: "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f", Host: "claude", Origin: teammateOrigin, Started: time.Now()})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","sessionId":"9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f","message":{"role":"user","content":"Log every request with its latency (heron-log)."}}` + "\n"
	if _, err := ts.Import(ctx, teammateRoot, teammateOrigin, 1, []byte(line)); err != nil {
		t.Fatal(err)
	}
}
