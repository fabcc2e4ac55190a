package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	planqmcp "github.com/planq-dev/planq/mcp"
	"github.com/planq-dev/planq/project"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// transcriptOf asks query_ancestor for rev's transcript with filter and
// returns the transcript part and the warning.
func transcriptOf(s *session, rev string, filter map[string]any) (map[string]any, string) {
	s.t.Helper()
	args := map[string]any{"change_id": rev, "include": []string{"transcript"}}
	if filter != nil {
		args["transcript_filter"] = filter
	}
	out, _ := s.call("query_ancestor", args, false)
	tr, _ := out["transcript"].(map[string]any)
	w, _ := out["warning"].(string)
	return tr, w
}

func lines(tr map[string]any) []map[string]any {
	var out []map[string]any
	for _, l := range tr["lines"].([]any) {
		out = append(out, l.(map[string]any))
	}
	return out
}

func TestQueryAncestorTranscript(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	c := jj.New(repo)
	d, err := jj.Declare(ctx, c, "Add rate limiting", "")
	if err != nil {
		t.Fatal(err)
	}
	root := d.Change.ChangeID
	st, err := staterepo.Open(staterepo.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir() + "/s.jsonl"
	var b strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&b, `{"type":"user","message":{"role":"user","content":"message %d%s"}}`+"\n", i, map[bool]string{true: " about the token bucket"}[i == 42])
	}
	os.WriteFile(src, []byte(b.String()), 0o644)
	if _, err := ts.Update(ctx, root, func(s *transcript.Session) error { s.Task = "Add rate limiting"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Copy(ctx, root, src, transcript.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, repo, "a.txt", "a\n")
	cp, _, err := jj.Checkpoint(ctx, c, "Second step")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Update(ctx, root, func(s *transcript.Session) error { s.AddChange(cp.ChangeID); return nil }); err != nil {
		t.Fatal(err)
	}
	s := connect(t, repo)

	// A search, from the checkpoint: the lineage's transcript, rendered.
	tr, w := transcriptOf(s, "@", map[string]any{"search": "Token Bucket"})
	if l := lines(tr); tr["session_root"] != root || len(l) != 1 || l[0]["n"] != 42.0 || l[0]["text"] != "user: message 42 about the token bucket" || tr["note"] != nil || w != "" {
		t.Fatalf("search result = %+v, warning %q", tr, w)
	}
	// A range.
	tr, _ = transcriptOf(s, "@", map[string]any{"range": []int{10, 12}})
	if l := lines(tr); len(l) != 3 || l[0]["text"] != "user: message 10" {
		t.Fatalf("range result = %+v", tr)
	}
	// No filter: the tail, saying so.
	tr, _ = transcriptOf(s, "@", nil)
	if l := lines(tr); len(l) != 100 || l[len(l)-1]["n"] != 150.0 || tr["truncated"] != true || !strings.Contains(fmt.Sprint(tr["note"]), "last 100 of 150") {
		t.Fatalf("tail result: %d lines, note %v", len(l), tr["note"])
	}
	// A change of no lineage has no transcript.
	if tr, _ = transcriptOf(s, "root()", nil); len(lines(tr)) != 0 || !strings.Contains(fmt.Sprint(tr["note"]), "no transcript recorded") {
		t.Fatalf("root(): %+v", tr)
	}
	// Rebased onto an unrelated parent: said plainly, once, in the warning.
	testenv.Run(t, repo, "jj", "rebase", "-r", cp.ChangeID, "-d", "root()")
	tr, w = transcriptOf(s, cp.ChangeID, map[string]any{"search": "token"})
	if !strings.Contains(w, "Discontinuity") || !strings.Contains(w, "rebased away from its session root") || strings.Count(w, "rebased away") != 1 || len(lines(tr)) != 1 {
		t.Fatalf("after the rebase: warning %q, transcript %+v", w, tr)
	}
	if strings.Contains(fmt.Sprint(tr["note"]), "rebased") {
		t.Errorf("the transcript's note repeats the warning: %v", tr["note"])
	}
	// The root abandoned: the session is not resumable, and that is said once too.
	testenv.Run(t, repo, "jj", "abandon", root)
	tr, w = transcriptOf(s, cp.ChangeID, map[string]any{"search": "token"})
	if strings.Count(w, "no longer exists") != 1 || len(lines(tr)) != 1 {
		t.Fatalf("after abandoning the root: warning %q, transcript %+v", w, tr)
	}
	if s, _ := ts.Load(root); !s.NonResumable {
		t.Fatal("the lineage was not marked non-resumable")
	}
	// The root back (jj undo): resumable again.
	testenv.Run(t, repo, "jj", "undo")
	if _, w = transcriptOf(s, cp.ChangeID, nil); strings.Contains(w, "no longer exists") {
		t.Errorf("after jj undo the root is back, but: %q", w)
	}
	if s, _ := ts.Load(root); s.NonResumable {
		t.Error("the lineage is still marked non-resumable after its root came back")
	}
}

// query_ancestor reads the transcript store the hooks write (the project
// as project.Locate finds it): a state repo that cannot be opened, here
// for an invalid PLANQ_AGENT, does not hide a session's transcript. The
// state repo is needed only to fetch a teammate's lineage.
func TestQueryAncestorTranscriptWithoutTheStateRepo(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	d, err := jj.Declare(ctx, jj.New(repo), "Add rate limiting", "")
	if err != nil {
		t.Fatal(err)
	}
	root := d.Change.ChangeID
	loc, err := project.Locate(repo, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := transcript.New(loc.Home, loc.Name)
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir() + "/s.jsonl"
	testenv.WriteFile(t, filepath.Dir(src), filepath.Base(src), `{"type":"user","message":{"role":"user","content":"use a token bucket"}}`+"\n")
	if _, err := ts.Update(ctx, root, func(s *transcript.Session) error { s.Task = "Add rate limiting"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Copy(ctx, root, src, transcript.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "PLANQ_AGENT" {
			return "-not-an-agent"
		}
		return os.Getenv(k)
	}
	if _, err := staterepo.Open(staterepo.Options{Dir: repo, Getenv: getenv}); err == nil {
		t.Fatal("the state repo opened with an invalid PLANQ_AGENT; the test needs one that cannot")
	}
	s := connectWith(t, planqmcp.Options{Dir: repo, Version: "test", Getenv: getenv})
	tr, _ := transcriptOf(s, "@", nil)
	if l := lines(tr); tr["session_root"] != root || len(l) != 1 || l[0]["text"] != "user: use a token bucket" {
		t.Fatalf("transcript = %+v", tr)
	}
}
