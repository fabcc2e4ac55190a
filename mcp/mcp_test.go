package mcp_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	planqmcp "github.com/planq-dev/planq/mcp"
	"github.com/planq-dev/planq/mcp/toolnames"
)

var updateSnaps = flag.Bool("update-toolsnaps", os.Getenv("UPDATE_TOOLSNAPS") == "true", "rewrite __toolsnaps__/*.snap from the current schemas")

// jjToolNames are the tools of the jj half of the server.
var jjToolNames = toolnames.JJ()

// session is an in-process MCP client connected to a server for dir.
type session struct {
	t   *testing.T
	c   *client.Client
	dir string
}

func connect(t *testing.T, dir string) *session {
	t.Helper()
	return connectWith(t, planqmcp.Options{Dir: dir, Version: "test"})
}

func connectWith(t *testing.T, opts planqmcp.Options) *session {
	t.Helper()
	dir := opts.Dir
	c, err := client.NewInProcessClient(planqmcp.New(opts))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "planq-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Instructions, "jj_init") {
		t.Errorf("server instructions do not explain the workflow: %q", res.Instructions)
	}
	return &session{t: t, c: c, dir: dir}
}

// call invokes a tool and returns its result; wantErr says whether the
// result must be an error result.
func (s *session) call(name string, args map[string]any, wantErr bool) (map[string]any, string) {
	s.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.c.CallTool(context.Background(), req)
	if err != nil {
		s.t.Fatalf("%s: protocol error: %v", name, err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError != wantErr {
		s.t.Fatalf("%s(%v): isError = %v, want %v; text: %s", name, args, res.IsError, wantErr, text)
	}
	var structured map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &structured)
	}
	if !wantErr && structured == nil {
		s.t.Fatalf("%s: no structured content", name)
	}
	if strings.TrimSpace(text) == "" {
		s.t.Fatalf("%s: empty text rendering", name)
	}
	return structured, text
}

func TestToolSnapshots(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, t.TempDir())
	list, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tool := range list.Tools {
		seen[tool.Name] = true
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("__toolsnaps__", tool.Name+".snap")
		if *updateSnaps {
			if err := os.MkdirAll("__toolsnaps__", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no snapshot (%v); run UPDATE_TOOLSNAPS=true go test ./mcp/ and review the new file", tool.Name, err)
			continue
		}
		if string(want) != string(got) {
			t.Errorf("%s: schema drifted from %s; if intended, run UPDATE_TOOLSNAPS=true go test ./mcp/ and commit the snapshot.\ngot:\n%s", tool.Name, path, got)
		}
	}
	for _, name := range jjToolNames {
		if !seen[name] {
			t.Errorf("tool %s is not registered", name)
		}
	}
}

// The server registers exactly the tools package toolnames names, the one
// list every other copy of planq's tool names comes from (the Gemini CLI
// adapter's gate, which knows them by name alone).
func TestToolNamesAreTheServersTools(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, t.TempDir())
	list, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range list.Tools {
		got = append(got, tool.Name)
	}
	want := toolnames.All()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the server registers %q\ntoolnames.All() says %q", got, want)
	}
}

func TestToolsListBudget(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, t.TempDir())
	list, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var jjTools []mcp.Tool
	for _, tool := range list.Tools {
		for _, n := range jjToolNames {
			if tool.Name == n {
				jjTools = append(jjTools, tool)
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"tools": jjTools})
	t.Logf("tools/list for the jj tools: %d bytes", len(b))
	// Nine jj tools at about 750 bytes each: every byte is in every
	// session's prompt.
	if len(b) >= 7*1024 {
		t.Errorf("tools/list for the jj tools is %d bytes of JSON; keep it under 7 KB", len(b))
	}
}

func TestAnnotationsAreTruthful(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, t.TempDir())
	list, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{"jj_status": true, "query_ancestor": true}
	for _, tool := range list.Tools {
		a := tool.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: not all four annotations are set: %+v", tool.Name, a)
			continue
		}
		if readOnly[tool.Name] && (!*a.ReadOnlyHint || *a.DestructiveHint) {
			t.Errorf("%s: read-only tool must be readOnlyHint true, destructiveHint false", tool.Name)
		}
		if tool.Name == "jj_abandon" && !*a.DestructiveHint {
			t.Error("jj_abandon must be destructive")
		}
		if tool.Name == "jj_push" && !*a.OpenWorldHint {
			t.Error("jj_push must be open-world")
		}
		if tool.OutputSchema.Type == "" && tool.RawOutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
	}
}

func TestNotARepo(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, t.TempDir())
	for _, name := range []string{"jj_init", "jj_describe", "jj_new"} {
		_, text := s.call(name, map[string]any{"description": "x"}, true)
		if !strings.Contains(text, "jj_git_init") {
			t.Errorf("%s outside a repo: %q does not tell the agent to call jj_git_init", name, text)
		}
	}
	st, text := s.call("jj_status", nil, false)
	if st["gate_locked"] != true || st["is_repo"] != false || !strings.Contains(text, "jj_git_init") {
		t.Errorf("jj_status outside a repo = %v / %q", st, text)
	}
}

func TestGitInitThenInit(t *testing.T) {
	testenv.Isolate(t)
	dir := t.TempDir()
	testenv.Run(t, dir, "git", "init", "-q")
	testenv.WriteFile(t, dir, "README", "hi\n")
	testenv.Run(t, dir, "git", "add", "README")
	testenv.Run(t, dir, "git", "commit", "-qm", "initial")
	s := connect(t, dir)

	out, text := s.call("jj_git_init", nil, false)
	if out["initialized"] != true || !strings.Contains(text, "jj_init") {
		t.Errorf("jj_git_init = %v / %q", out, text)
	}
	if _, err := os.Stat(filepath.Join(dir, ".jj")); err != nil {
		t.Fatal("jj_git_init made no .jj")
	}
	again, _ := s.call("jj_git_init", nil, false)
	if again["initialized"] != false {
		t.Error("a second jj_git_init re-initialized")
	}
	st, _ := s.call("jj_status", nil, false)
	if st["gate_locked"] != true {
		t.Error("gate unlocked before jj_init")
	}
	res, text := s.call("jj_init", map[string]any{"description": "Add a greeting"}, false)
	if res["gate_unlocked"] != true || res["description"] != "Add a greeting" || !strings.Contains(text, "unlocked") {
		t.Errorf("jj_init = %v / %q", res, text)
	}
	// The git history is kept: the new change sits on the imported commit.
	ch, err := jj.New(dir).Show(context.Background(), "@-")
	if err != nil || ch.Description != "initial" {
		t.Errorf("@- = %+v, %v; want the git commit 'initial'", ch, err)
	}
}

func TestInitDescribesEmptyChangeInPlace(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	s := connect(t, dir)
	before, _ := jj.New(dir).Current(context.Background())
	res, _ := s.call("jj_init", map[string]any{"description": "Work"}, false)
	if res["in_place"] != true || res["change_id"] != before.ChangeID {
		t.Errorf("jj_init on an empty undescribed @ = %v; want it described in place (%s)", res, before.ChangeID)
	}
	// Now @ is described: a second jj_init stacks a new change.
	res2, _ := s.call("jj_init", map[string]any{"description": "More work", "base": "@"}, false)
	if res2["in_place"] == true || res2["change_id"] == before.ChangeID {
		t.Errorf("second jj_init = %v; want a new change", res2)
	}
}

func TestInitBaseDefaultsToTrunk(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	testenv.BareRemote(t, dir, "origin")
	c := jj.New(dir)
	ctx := context.Background()
	testenv.WriteFile(t, dir, "a", "1")
	c.Describe(ctx, "@", "trunk commit")
	testenv.Run(t, dir, "jj", "bookmark", "set", "main", "-r", "@")
	testenv.Run(t, dir, "jj", "git", "push", "--bookmark", "main", "--remote", "origin")
	trunk, err := c.Show(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	c.New(ctx, "side work")

	s := connect(t, dir)
	res, _ := s.call("jj_init", map[string]any{"description": "Fresh task"}, false)
	if res["base"] != "trunk()" {
		t.Errorf("base = %v, want trunk()", res["base"])
	}
	cur, _ := c.Current(ctx)
	if len(cur.Parents) != 1 || cur.Parents[0] != trunk.ChangeID {
		t.Errorf("new change's parent = %v, want trunk %s", cur.Parents, trunk.ChangeID)
	}
}

// TestInitFetchesNewerMain: in a clone whose origin moved on, jj_init
// fetches and starts the change on the new main, with no warning.
func TestInitFetchesNewerMain(t *testing.T) {
	testenv.Isolate(t)
	bare := testenv.RemoteWithMain(t)
	dir := testenv.Clone(t, bare)
	newer := testenv.PushCommit(t, bare, "CHANGES.md", "newer\n", "Newer main")

	s := connect(t, dir)
	res, text := s.call("jj_init", map[string]any{"description": "Fresh task"}, false)
	if res["base"] != "trunk()" || res["warning"] != nil || strings.Contains(text, "Warning") {
		t.Errorf("jj_init = %v\n%s\nwant base trunk() and no warning", res, text)
	}
	parent, err := jj.New(dir).Show(context.Background(), "@-")
	if err != nil || parent.CommitID != newer {
		t.Errorf("@- = %s, %v; want the fetched main %s", parent.CommitID, err, newer)
	}
	if _, err := os.Stat(filepath.Join(dir, "CHANGES.md")); err != nil {
		t.Errorf("the newer main's file is not in the working copy: %v", err)
	}
}

// TestInitCarriesUndescribedWork: what was in an undescribed @ stays on
// disk, in the declared change, and the model is told.
func TestInitCarriesUndescribedWork(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.Clone(t, testenv.RemoteWithMain(t))
	testenv.WriteFile(t, dir, "draft.txt", "user's draft\n")
	s := connect(t, dir)
	res, text := s.call("jj_init", map[string]any{"description": "Finish the draft"}, false)
	if res["in_place"] != true || !strings.Contains(text, "draft.txt") || !strings.Contains(text, "part of this change") {
		t.Errorf("jj_init = %v\n%s\nwant the draft carried and named", res, text)
	}
	files, err := jj.New(dir).DiffSummary(context.Background(), "@")
	if err != nil || len(files) != 1 || files[0].Path != "draft.txt" {
		t.Errorf("the declared change holds %v, %v; want draft.txt", files, err)
	}
}

func TestDescribeRefusesEmpty(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, testenv.JJRepo(t))
	for _, d := range []string{"", "   \n\t"} {
		_, text := s.call("jj_describe", map[string]any{"description": d}, true)
		if !strings.Contains(text, "empty") {
			t.Errorf("jj_describe(%q) error %q does not say it is empty", d, text)
		}
	}
	_, text := s.call("jj_describe", map[string]any{}, true)
	if !strings.Contains(strings.ToLower(text), "description") {
		t.Errorf("jj_describe without description: %q", text)
	}
}

func TestWorkflowNewAbandonQuery(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	s := connect(t, dir)
	root, _ := s.call("jj_init", map[string]any{"description": "Add rate limiting"}, false)
	testenv.WriteFile(t, dir, "ratelimit/bucket.go", "package ratelimit\n")
	desc := "Add rate limiting\n\nDone:\n- token bucket in ratelimit/bucket.go \"quoted\" ✓"
	s.call("jj_describe", map[string]any{"description": desc}, false)

	st, text := s.call("jj_status", nil, false)
	if st["gate_locked"] != false || st["description"] != desc || !strings.Contains(text, "ratelimit/bucket.go") {
		t.Errorf("jj_status = %v / %q", st, text)
	}

	nw, _ := s.call("jj_new", map[string]any{"description": "Add Redis backend"}, false)
	if nw["session_root"] != root["change_id"] || nw["parent"] != root["change_id"] {
		t.Errorf("jj_new = %v; want session root and parent %v", nw, root["change_id"])
	}
	if !strings.HasSuffix(nw["description"].(string), "Session: "+root["change_id"].(string)) {
		t.Errorf("checkpoint description %q lacks the Session trailer", nw["description"])
	}
	// A second checkpoint keeps the same root.
	nw2, _ := s.call("jj_new", map[string]any{"description": "Add metrics"}, false)
	if nw2["session_root"] != root["change_id"] {
		t.Errorf("second checkpoint root = %v, want %v", nw2["session_root"], root["change_id"])
	}
	st2, _ := s.call("jj_status", nil, false)
	if st2["session_root"] != root["change_id"] {
		t.Errorf("jj_status session_root = %v", st2["session_root"])
	}
	// Redescribing a checkpoint keeps its link to the session root.
	d2, _ := s.call("jj_describe", map[string]any{"description": "Add metrics\n\nDone:\n- counters"}, false)
	if r, _ := jj.SessionRoot(d2["description"].(string)); r != root["change_id"] {
		t.Errorf("jj_describe dropped the Session trailer: %q", d2["description"])
	}

	q, text := s.call("query_ancestor", map[string]any{"change_id": root["change_id"], "include": []string{"description", "diff"}}, false)
	if q["description"] != desc || !strings.Contains(q["diff"].(string), "+package ratelimit") || !strings.Contains(text, "Done:") {
		t.Errorf("query_ancestor = %v", q)
	}
	q2, _ := s.call("query_ancestor", map[string]any{"change_id": root["change_id"]}, false)
	if _, ok := q2["diff"]; ok || q2["description"] != desc {
		t.Errorf("default include should be description only: %v", q2)
	}
	q3, text := s.call("query_ancestor", map[string]any{"change_id": "@-", "include": []string{"transcript"}}, false)
	if !strings.Contains(text, "recorded no transcript yet") || q3["transcript"] == nil {
		t.Errorf("transcript before any is recorded: %v / %q", q3, text)
	}
	_, text = s.call("query_ancestor", map[string]any{"change_id": "nosuchchange"}, true)
	if !strings.Contains(text, "nosuchchange") {
		t.Errorf("query of a missing change: %q", text)
	}
	_, text = s.call("query_ancestor", map[string]any{"change_id": "@", "include": []string{"everything"}}, true)
	if !strings.Contains(text, "everything") {
		t.Errorf("bad include: %q", text)
	}

	testenv.WriteFile(t, dir, "metrics.go", "package main\n")
	ab, text := s.call("jj_abandon", nil, false)
	if ab["abandoned"] != nw2["change_id"] || ab["gate_locked"] != true || !strings.Contains(text, "jj_init") {
		t.Errorf("jj_abandon = %v / %q", ab, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "metrics.go")); !os.IsNotExist(err) {
		t.Error("abandon left the change's file behind")
	}
}

func TestQueryAncestorCapsHugeDiff(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	s := connect(t, dir)
	s.call("jj_init", map[string]any{"description": "big"}, false)
	testenv.WriteFile(t, dir, "big.txt", strings.Repeat("line of text\n", 10000))
	q, _ := s.call("query_ancestor", map[string]any{"change_id": "@", "include": []string{"diff"}}, false)
	diff := q["diff"].(string)
	if len(diff) > planqmcp.MaxDiffBytes+300 || !strings.Contains(diff, "truncated") || q["diff_truncated"] != true {
		t.Errorf("diff of %d bytes not capped with a marker", len(diff))
	}
}

func TestPushRefusesUndescribedAndDryRunChangesNothing(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	bare := testenv.BareRemote(t, dir, "origin")
	s := connect(t, dir)
	ctx := context.Background()
	c := jj.New(dir)

	testenv.WriteFile(t, dir, "a.go", "package a\n")
	c.New(ctx, "") // leaves the edit in an undescribed change
	testenv.WriteFile(t, dir, "b.go", "package b\n")
	c.Describe(ctx, "@", "b: add b.go")
	_, text := s.call("jj_push", nil, true)
	if !strings.Contains(text, "no description") {
		t.Errorf("push with an undescribed change: %q", text)
	}

	c.Describe(ctx, "@-", "a: add a.go")
	dry, text := s.call("jj_push", map[string]any{"dry_run": true}, false)
	if dry["pushed"] != false || len(dry["stack"].([]any)) != 2 || !strings.Contains(text, "Dry run") {
		t.Errorf("dry run = %v / %q", dry, text)
	}
	if out := testenv.Run(t, "", "git", "--git-dir", bare, "for-each-ref"); out != "" {
		t.Errorf("dry run pushed: remote refs %q", out)
	}
	if out := testenv.Run(t, dir, "jj", "bookmark", "list"); strings.Contains(out, "main") {
		t.Errorf("dry run moved the bookmark: %q", out)
	}
	_, text = s.call("jj_push", map[string]any{"bookmark": "../evil"}, true)
	if !strings.Contains(text, "bookmark") {
		t.Errorf("bad bookmark name: %q", text)
	}
}

func TestJJMissingNamesInstallCommand(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	s := connectWith(t, planqmcp.Options{Dir: dir, JJBin: filepath.Join(t.TempDir(), "jj")})
	_, text := s.call("jj_status", nil, true)
	if !strings.Contains(text, "not installed") || !strings.Contains(text, "install-jj.sh") {
		t.Errorf("jj missing: %q; want it to name the install command", text)
	}
}

func TestJJFailureCarriesJJMessage(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, testenv.JJRepo(t))
	_, text := s.call("query_ancestor", map[string]any{"change_id": "@@@("}, true)
	if !strings.Contains(text, "revset") || strings.Contains(text, "abandoned") || strings.Contains(text, "exit status") || strings.Contains(text, "*jj.Error") {
		t.Errorf("bad revset: %q; want jj's own message, no Go error chain", text)
	}
	_, text = s.call("jj_init", map[string]any{"description": "x", "base": "nosuchbase"}, true)
	if !strings.Contains(text, "nosuchbase") {
		t.Errorf("unknown base: %q; want jj's message naming it", text)
	}
}

func TestQueryAncestorSaysWhenLineageIsBroken(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	s := connect(t, dir)
	ctx := context.Background()
	c := jj.New(dir)

	root, _ := s.call("jj_init", map[string]any{"description": "Root task", "base": "@"}, false)
	testenv.WriteFile(t, dir, "a.txt", "a")
	step, _ := s.call("jj_new", map[string]any{"description": "Step two"}, false)
	testenv.WriteFile(t, dir, "b.txt", "b")

	ok, text := s.call("query_ancestor", map[string]any{"change_id": "@-"}, false)
	if ok["warning"] != nil || strings.Contains(text, "Warning") {
		t.Errorf("an intact lineage got a warning: %v", ok["warning"])
	}

	// Rebase the checkpoint onto an unrelated parent (the root commit), then
	// move @ elsewhere: the checkpoint is no longer an ancestor of @, and is
	// cut off from its session root.
	testenv.Run(t, dir, "jj", "rebase", "-r", step["change_id"].(string), "-d", "root()")
	c.New(ctx, "elsewhere", root["change_id"].(string))
	q, text := s.call("query_ancestor", map[string]any{"change_id": step["change_id"]}, false)
	w, _ := q["warning"].(string)
	if !strings.Contains(w, "not an ancestor of @") || !strings.Contains(w, "rebased away from its session root") || !strings.Contains(text, "Warning") {
		t.Errorf("rebased checkpoint: warning %q", w)
	}

	// Abandon the root: the checkpoint's session can no longer be resumed.
	testenv.Run(t, dir, "jj", "abandon", root["change_id"].(string))
	q, _ = s.call("query_ancestor", map[string]any{"change_id": step["change_id"]}, false)
	if w, _ := q["warning"].(string); !strings.Contains(w, "no longer exists") {
		t.Errorf("abandoned root: warning %q", w)
	}
}

func TestDescribeNamesMissingSummarySections(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, testenv.JJRepo(t))
	_, text := s.call("jj_describe", map[string]any{"description": "Add limiter\n\nDone:\n- bucket"}, false)
	if !strings.Contains(text, "Key decisions:, Left to do:, Open questions:") {
		t.Errorf("partial summary: %q; want the missing sections named", text)
	}
	full := "Add limiter\n\nDone:\n- bucket\n\nKey decisions:\n- none\n\nLeft to do:\n- none\n\nOpen questions:\n- none"
	_, text = s.call("jj_describe", map[string]any{"description": full}, false)
	if strings.Contains(text, "lacks") {
		t.Errorf("complete summary still nagged: %q", text)
	}
}

// TestConcurrentToolCalls calls tools from many goroutines at once, as
// mcp-go's stdio worker pool does; run with -race it checks the shared
// server state (warm search index, branch cache, jj client).
func TestConcurrentToolCalls(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	s := connect(t, dir)
	s.call("jj_init", map[string]any{"description": "Concurrent work"}, false)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	call := func(name string, args map[string]any) {
		defer wg.Done()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := s.c.CallTool(context.Background(), req)
		if err != nil || res.IsError {
			errs <- fmt.Sprintf("%s: %v %v", name, err, res)
		}
	}
	for i := 0; i < 8; i++ {
		wg.Add(4)
		go call("jj_status", nil)
		go call("planq_log", map[string]any{"message": fmt.Sprintf("entry %d about tokens", i)})
		go call("planq_search", map[string]any{"query": "tokens"})
		go call("planq_context", nil)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	out, _ := s.call("planq_search", map[string]any{"query": "tokens", "limit": 20}, false)
	if hits, _ := out["hits"].([]any); len(hits) != 8 {
		t.Errorf("after 8 concurrent planq_log calls, search finds %d entries: %v", len(hits), out)
	}
}
