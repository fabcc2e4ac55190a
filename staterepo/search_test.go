package staterepo

import (
	"context"
	"fmt"
	"testing"

	"github.com/planq-dev/planq/search"
)

func TestSearchFindsEveryKindAndTheWarmIndexFollowsWrites(t *testing.T) {
	e := newEnv(t)
	s := e.open("")
	c := ctx(t)
	s.Log(c, "Implemented JWT validation in the session middleware", "", "")
	s.Learn(c, "Redis connection pools must be closed on shutdown", "found in the flaky test")
	s.Decide(c, "Use RS256 for JWT signing", []string{"HS256"}, "public key verification")
	s.SetBranchContext(c, "feature/auth", "This branch implements JWT authentication for the CLI.")
	s.Promote(c)
	hits, err := s.Search(c, SearchQuery{Query: "JWT signing"})
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
	if hits, _ := s.Search(c, SearchQuery{Query: "jwt", Kinds: []search.Kind{search.KindBranch}}); len(hits) != 1 || hits[0].ID != "branches/feature/auth.md" {
		t.Errorf("branch hits = %+v", hits)
	}
	if hits, _ := s.Search(c, SearchQuery{Query: "redis", Scope: ScopeGlobal}); len(hits) != 1 || hits[0].Source != SourceGlobal {
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
		if _, err := s.Search(c, bad); err == nil {
			t.Errorf("Search(%+v) accepted", bad)
		}
	}
}

// BenchmarkSearch measures planq_search's core on generated states: warm
// (the server's index, goal p50 ≤ 20 ms) and cold (a fresh process reading
// every file, goal ≤ 500 ms at 100,000 entries).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := benchStore(b)
		seedState(b, s, n)
		q := SearchQuery{Query: "session token timeout"}
		b.Run(fmt.Sprintf("warm/entries=%d", n), func(b *testing.B) {
			x := NewSearcher(s)
			if _, err := x.Search(context.Background(), q); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if hits, err := x.Search(context.Background(), q); err != nil || len(hits) == 0 {
					b.Fatal(err, hits)
				}
			}
		})
		b.Run(fmt.Sprintf("cold/entries=%d", n), func(b *testing.B) {
			for b.Loop() {
				s2, _ := Open(Options{Dir: s.Root, Home: s.Home})
				if hits, err := s2.Search(context.Background(), q); err != nil || len(hits) == 0 {
					b.Fatal(err, hits)
				}
			}
		})
	}
}
