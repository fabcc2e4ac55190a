package hooks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/staterepo"
)

// seedEntries writes n changelog entries (60% log, 20% learnings, 20%
// decisions) to the agent's branch in one commit.
func seedEntries(tb testing.TB, st *staterepo.Store, n int) {
	tb.Helper()
	gen := func(k int, typ changelog.Type) []byte {
		var buf bytes.Buffer
		start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range k {
			e := changelog.Entry{Agent: st.Agent, Type: typ, Timestamp: start.Add(time.Duration(i) * time.Second),
				Body: fmt.Sprintf("entry %d: implemented the token bucket\n\nwith a redis backend and connection pooling, step %d", i, i)}
			if typ == changelog.TypeDecision {
				e.Body, e.Decision, e.Rationale = "", fmt.Sprintf("decision %d", i), "simpler"
			}
			if _, err := changelog.Append(&buf, e); err != nil {
				tb.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	_, err := st.Update(context.Background(), "bench: seed", func(tx *staterepo.Tx) error {
		if err := tx.Write(staterepo.ChangelogFile, gen(n*6/10, changelog.TypeImplement)); err != nil {
			return err
		}
		if err := tx.Write(staterepo.LearningsFile, gen(n/5, changelog.TypeLearning)); err != nil {
			return err
		}
		return tx.Write(staterepo.DecisionsFile, gen(n/5, changelog.TypeDecision))
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSessionStart is the session-start hook without process start-up,
// on a state of 10,000 entries, a declared change with a parent, and a
// lineage with a stored transcript. Goal: ≤ 50 ms.
func BenchmarkSessionStart(b *testing.B) {
	testenv.Isolate(b)
	repo := testenv.JJRepo(b)
	run := func(args ...string) { testenv.Run(b, repo, "jj", args...) }
	run("describe", "-m", "Add rate limiting\n\nDone:\n- bucket\n\nKey decisions:\n- token bucket\n\nLeft to do:\n- redis\n\nOpen questions:\n- none")
	testenv.WriteFile(b, repo, "bucket.go", "package rl\n")
	run("new", "-m", "Add a Redis backend")
	testenv.WriteFile(b, repo, "redis.go", "package rl\n")
	st, err := staterepo.Open(staterepo.Options{Dir: repo})
	if err != nil {
		b.Fatal(err)
	}
	seedEntries(b, st, 10_000)
	tpath := filepath.Join(b.TempDir(), "s.jsonl")
	os.WriteFile(tpath, []byte(strings.Repeat(`{"type":"user","message":{"role":"user","content":"hello"}}`+"\n", 20000)), 0o644)
	ev := Input{SessionID: "bench-session", TranscriptPath: tpath, Cwd: repo, HookEventName: EventSessionStart, Source: "startup"}
	r := &Runner{}
	ctx := context.Background()
	if out, err := sessionStart(r, ctx, ev); err != nil || !strings.Contains(out.Specific.AdditionalContext, "Recent log") {
		b.Fatalf("warm-up: %v\n%+v", err, out)
	}
	b.ResetTimer()
	for b.Loop() {
		out, err := sessionStart(r, ctx, ev)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(out.Specific.AdditionalContext); n > ContextBudget {
			b.Fatalf("context of %d characters", n)
		}
	}
}
