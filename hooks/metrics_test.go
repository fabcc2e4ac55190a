package hooks

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/staterepo"
)

// Session start records the session's start (and whether its change was
// declared already) and the learnings and decisions its context showed,
// only those the budget let through.
func TestSessionStartRecordsWhatItSurfaced(t *testing.T) {
	w := newHookWorld(t)
	st, err := staterepo.Open(staterepo.Options{Dir: w.repo})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	learned, err := st.Learn(ctx, "The pager reads its settings from XDG_CONFIG_HOME", "pager bug")
	if err != nil {
		t.Fatal(err)
	}
	decided, err := st.Decide(ctx, "Keep the settings in one file", []string{"env vars"}, "one place to look")
	if err != nil {
		t.Fatal(err)
	}
	// Enough long learnings that the context's budget leaves some out.
	for i := range 40 {
		if _, err := st.Learn(ctx, fmt.Sprintf("learning %02d: %s", i, strings.Repeat("words ", 100)), ""); err != nil {
			t.Fatal(err)
		}
	}
	ctxText := contextOf(t, w.run(sessionStart, "SessionStart-startup"))

	s, err := metrics.Summarize(ctx, metrics.Dir(st.Home, st.Project), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]metrics.MemoryRow{}
	for _, r := range s.Memory {
		rows[r.Kind] = r
	}
	shownLearnings := strings.Count(ctxText, "learning ") // the filler learnings the budget let through
	if d := rows[metrics.EntryDecision]; d.Where != metrics.WhereSessionStart || d.Surfaced != 1 || !strings.Contains(ctxText, decided.ID) {
		t.Errorf("decision row %+v (in context: %v)", d, strings.Contains(ctxText, decided.ID))
	}
	l := rows[metrics.EntryLearning]
	want := shownLearnings
	if strings.Contains(ctxText, learned.ID) {
		want++
	}
	if l.Surfaced != want || l.Surfaced >= 41 || l.Surfaced == 0 {
		t.Errorf("learnings surfaced %d, want the %d the context shows (of 41)", l.Surfaced, want)
	}
	// The recorded session started undeclared and has not declared yet.
	if s.Declare.Undeclared != 1 || s.Declare.Count != 0 {
		t.Errorf("time to declare %+v, want one undeclared session", s.Declare)
	}
}
