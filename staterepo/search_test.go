package staterepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/search"
)

func TestSearchFindsEveryKindAndTheWarmIndexFollowsWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	s.Log(c, "Implemented JWT validation in the session middleware", "", "")
	s.Learn(c, "Redis connection pools must be closed on shutdown", "found in the flaky test")
	s.Decide(c, "Use RS256 for JWT signing", []string{"HS256"}, "public key verification")
	s.SetBranchContext(c, "feature/auth", "This branch implements JWT authentication for the CLI.")
	s.Promote(c)
	hits, _, err := s.Search(c, SearchQuery{Query: "JWT signing"})
	if err != nil || len(hits) == 0 || hits[0].Kind != search.KindDecision {
		t.Fatalf("hits = %+v, %v", hits, err)
	}
	seen := map[string]bool{}
	for _, h := range hits {
		if seen[h.ID] {
			t.Errorf("%s reported twice (agent and global copies)", h.ID)
		}
		seen[h.ID] = true
	}
	if hits, _, _ := s.Search(c, SearchQuery{Query: "jwt", Kinds: []search.Kind{search.KindBranch}}); len(hits) != 1 || hits[0].ID != "branches/feature/auth.md" {
		t.Errorf("branch hits = %+v", hits)
	}
	if hits, _, _ := s.Search(c, SearchQuery{Query: "redis", Scope: ScopeGlobal}); len(hits) != 1 || hits[0].Source != SourceGlobal {
		t.Errorf("global hits = %+v", hits)
	}
	x := NewSearcher(s)
	if hits, err := x.Search(c, SearchQuery{Query: "kubernetes"}); err != nil || len(hits) != 0 {
		t.Fatalf("warm search before the write = %+v, %v", hits, err)
	}
	s.Log(c, "Deployed to kubernetes staging", "", "")
	if hits, err := x.Search(c, SearchQuery{Query: "kubernetes"}); err != nil || len(hits) != 1 || hits[0].Kind != search.KindLog {
		t.Errorf("warm search after the write = %+v, %v", hits, err)
	}
	for _, bad := range []SearchQuery{{Query: ""}, {Query: "x", Scope: "everywhere"}, {Query: "x", Limit: 1000}} {
		if _, _, err := s.Search(c, bad); err == nil {
			t.Errorf("Search(%+v) accepted", bad)
		}
	}
}

// BenchmarkSearch measures planq_search's core on generated states: warm
// (the server's index, goal p50 ≤ 20 ms) and cold (a fresh process; after
// the first iteration the search cache holds the archive segments, as
// maintenance keeps it; goal ≤ 300 ms at 100,000 entries; BenchmarkGrowth
// measures it over MCP on a state grown one write at a time).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := benchStore(b)
		seedState(b, s, n)
		q := SearchQuery{Query: "session token timeout"}
		b.Run(fmt.Sprintf("warm/entries=%d", n), func(b *testing.B) {
			x := NewSearcher(s)
			if err := x.Refresh(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if hits, err := x.Search(context.Background(), q); err != nil || len(hits) == 0 {
					b.Fatal(err, hits)
				}
			}
		})
		b.Run(fmt.Sprintf("first-in-fresh-server/entries=%d", n), func(b *testing.B) {
			// What a newly started MCP server pays for its first search: a
			// scan, while the index fills in the background.
			for b.Loop() {
				x := NewSearcher(s)
				if hits, err := x.Search(context.Background(), q); err != nil || len(hits) == 0 {
					b.Fatal(err, hits)
				}
				b.StopTimer()
				x.Refresh(context.Background()) // let the background fill finish outside the timing
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("cold/entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				s2, _ := Open(Options{Dir: s.Root, Home: s.Home})
				if hits, _, err := s2.Search(context.Background(), q); err != nil || len(hits) == 0 {
					b.Fatal(err, hits)
				}
			}
		})
	}
}

func TestColdSearcherAnswersLikeTheWarmIndex(t *testing.T) {
	t.Parallel()
	s := benchStore(t)
	seedState(t, s, 300)
	q := SearchQuery{Query: "session token timeout", Limit: 20}
	x := NewSearcher(s)
	cold, err := x.Search(context.Background(), q) // answered by a scan
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Refresh(context.Background()); err != nil { // waits for the background fill
		t.Fatal(err)
	}
	warm, err := x.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(cold) == 0 || len(cold) != len(warm) {
		t.Fatalf("cold search found %d hits, warm %d", len(cold), len(warm))
	}
	for i := range cold {
		if cold[i].ID != warm[i].ID {
			t.Errorf("hit %d: cold %s, warm %s", i, cold[i].ID, warm[i].ID)
		}
	}
}

// TestSearchCacheAnswersAsParsingDoes searches a state with archive
// segments (one holding a malformed entry) three ways — parsing every
// segment, from the search cache that first search wrote, and with the
// cache file damaged — and gets the same hits and problems each time.
func TestSearchCacheAnswersAsParsingDoes(t *testing.T) {
	t.Parallel()
	s := benchStore(t)
	seedState(t, s, 2000)
	if _, err := s.Update(context.Background(), "test: a malformed entry in a segment", func(tx *Tx) error {
		return tx.Write(archiveName(LearningsFile, 99), []byte("---\nid: pq-12345678\ntimestamp: whenever\nagent: main\ntype: learning\n---\n\nsession notes\n"))
	}); err != nil {
		t.Fatal(err)
	}
	cacheFile := filepath.Join(s.Bare, searchCacheFile)
	q := SearchQuery{Query: "session token timeout", Limit: 30}
	type result struct {
		hits  []search.Hit
		probs []changelog.Problem
	}
	run := func(name string) result {
		t.Helper()
		hits, probs, err := s.Search(context.Background(), q)
		if err != nil || len(hits) == 0 {
			t.Fatalf("%s: %d hits, %v", name, len(hits), err)
		}
		return result{hits, probs}
	}
	parsed := run("parsing")
	if st, err := os.Stat(cacheFile); err != nil || st.Size() == 0 {
		t.Fatalf("the first search wrote no cache: %v", err)
	}
	if len(parsed.probs) != 1 || parsed.probs[0].File != "archive/learnings-000099.md" || parsed.probs[0].Line != 1 {
		t.Errorf("problems: %v", parsed.probs)
	}
	same := func(name string, got result) {
		t.Helper()
		if len(got.hits) != len(parsed.hits) || fmt.Sprint(got.probs) != fmt.Sprint(parsed.probs) {
			t.Fatalf("%s: %d hits and %v, parsing gave %d and %v", name, len(got.hits), got.probs, len(parsed.hits), parsed.probs)
		}
		for i := range got.hits {
			g, p := got.hits[i], parsed.hits[i]
			if g.ID != p.ID || g.Source != p.Source || g.Title != p.Title || g.Snippet != p.Snippet || !g.Date.Equal(p.Date) || g.Kind != p.Kind {
				t.Errorf("%s: hit %d is %+v, parsing gave %+v", name, i, g, p)
			}
		}
	}
	same("from the cache", run("cached"))
	x := NewSearcher(s)
	if hits, err := x.Search(context.Background(), q); err != nil {
		t.Fatal(err)
	} else {
		same("a cold searcher", result{hits, x.Problems()})
	}
	for _, damage := range [][]byte{[]byte("planq-search-cache 1\n\x01\x02"), []byte("something else"), nil} {
		if err := os.WriteFile(cacheFile, damage, 0o644); err != nil {
			t.Fatal(err)
		}
		same(fmt.Sprintf("with the cache %q", damage), run("damaged cache"))
	}
	// Maintenance writes the cache too, for the next fresh server.
	os.Remove(cacheFile)
	if _, err := s.Maintain(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	c := loadSearchCache(s.Bare)
	if len(c.segs) == 0 {
		t.Fatal("maintenance wrote no search cache")
	}
	same("from the cache maintenance wrote", run("cached"))
}
