package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/mcp"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

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
	var lines strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&lines, `{"type":"user","message":{"role":"user","content":"message %d%s"}}`+"\n", i, map[bool]string{true: " about the token bucket"}[i == 42])
	}
	os.WriteFile(src, []byte(lines.String()), 0o644)
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
	src2 := newSessionTranscripts(repo, os.Getenv, "")
	show := func(rev string) jj.Change {
		ch, err := c.Show(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}

	// A search, from the checkpoint: the lineage's transcript, rendered.
	res, found, err := src2.Transcript(ctx, show("@"), mcp.TranscriptFilter{Search: "Token Bucket"})
	if err != nil || !found {
		t.Fatalf("search: found=%v err=%v", found, err)
	}
	if res.SessionRoot != root || len(res.Lines) != 1 || res.Lines[0].N != 42 || res.Lines[0].Text != "user: message 42 about the token bucket" || res.Note != "" {
		t.Fatalf("search result = %+v", res)
	}
	// A range.
	res, _, _ = src2.Transcript(ctx, show("@"), mcp.TranscriptFilter{Range: []int{10, 12}})
	if len(res.Lines) != 3 || res.Lines[0].Text != "user: message 10" {
		t.Fatalf("range result = %+v", res)
	}
	// No filter: the tail, saying so.
	res, _, _ = src2.Transcript(ctx, show("@"), mcp.TranscriptFilter{})
	if len(res.Lines) != transcriptTail || res.Lines[len(res.Lines)-1].N != 150 || !res.Truncated || !strings.Contains(res.Note, "last 100 of 150") {
		t.Fatalf("tail result: %d lines, note %q", len(res.Lines), res.Note)
	}
	// A change of no lineage has no transcript.
	if _, found, err := src2.Transcript(ctx, show("root()"), mcp.TranscriptFilter{}); found || err != nil {
		t.Fatalf("root(): found=%v err=%v", found, err)
	}
	// Rebased onto an unrelated parent: said plainly.
	testenv.Run(t, repo, "jj", "rebase", "-r", cp.ChangeID, "-d", "root()")
	res, _, _ = src2.Transcript(ctx, show(cp.ChangeID), mcp.TranscriptFilter{Search: "token"})
	if !strings.Contains(res.Note, "Discontinuity") || !strings.Contains(res.Note, "rebased onto an unrelated parent") {
		t.Fatalf("after the rebase the note is %q", res.Note)
	}
	// The root abandoned: the session is not resumable, and that is said too.
	testenv.Run(t, repo, "jj", "abandon", root)
	res, _, _ = src2.Transcript(ctx, show(cp.ChangeID), mcp.TranscriptFilter{Search: "token"})
	if !strings.Contains(res.Note, "no longer exists") || len(res.Lines) != 1 {
		t.Fatalf("after abandoning the root: %+v", res)
	}
	if s, _ := ts.Load(root); !s.NonResumable {
		t.Fatal("the lineage was not marked non-resumable")
	}
}
