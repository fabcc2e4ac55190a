package search

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/planq-dev/planq/changelog"
)

var day = time.Date(2026, 1, 20, 10, 0, 0, 0, time.UTC)

func doc(id string, kind Kind, age int, body string) Doc {
	return Doc{ID: id, Kind: kind, Source: "agent", Title: changelog.QuickTitle(body), Body: body, Date: day.Add(-time.Duration(age) * time.Hour)}
}

var corpus = []Doc{
	doc("pq-00000001", KindLog, 1, "Implemented the session middleware and wired the router."),
	doc("pq-00000002", KindLog, 2, "Refactored the router; the middleware is unchanged. Router router router."),
	doc("pq-00000003", KindDecision, 3, "Use RS256 for JWT signing so services verify with the public key."),
	doc("pq-00000004", KindLearning, 4, "Always check token expiry before signature validation."),
	doc("pq-00000005", KindHandoff, 5, "Continue with the API tests; the JWT middleware is done."),
	doc("pq-00000006", KindLearning, 6, "Die Übersetzung der Fehlermeldungen liegt in i18n/de.yaml. Café au lait."),
	doc("pq-00000007", KindLog, 7, "認証モジュールを追加した。トークンの検証も実装。"),
	doc("branches/main.md", KindBranch, 8, "## Context\n\nThis branch implements JWT authentication for the CLI."),
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestRanking(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		opts  Options
		want  []string // exact order of the first len(want) hits
		only  bool     // and nothing else
	}{
		{"rare word ranks its document first", "expiry", Options{}, []string{"pq-00000004"}, true},
		{"all terms beat one term repeated", "router session", Options{}, []string{"pq-00000001", "pq-00000002"}, true},
		{"kind filter", "jwt", Options{Kinds: []Kind{KindDecision}}, []string{"pq-00000003"}, true},
		{"several kinds", "jwt", Options{Kinds: []Kind{KindDecision, KindBranch}}, []string{"pq-00000003", "branches/main.md"}, true},
		{"source filter", "jwt", Options{Sources: []string{"global"}}, nil, true},
		{"case and diacritics of other scripts", "ÜBERSETZUNG café", Options{}, []string{"pq-00000006"}, true},
		{"ideographs match character by character", "認証", Options{}, []string{"pq-00000007"}, true},
		{"stop words are ignored", "the expiry of the token", Options{}, []string{"pq-00000004"}, false},
		{"only stop words still search", "the", Options{}, []string{"pq-00000001"}, false},
		{"limit", "jwt", Options{Limit: 2}, nil, false},
		{"no match", "kubernetes", Options{}, nil, true},
		{"plurals fold", "signatures", Options{}, []string{"pq-00000004"}, true},
		{"plurals fold in documents too", "route routers", Options{}, []string{"pq-00000002", "pq-00000001"}, true},
		{"punctuation only", "?!", Options{}, nil, true},
	}
	idx := NewIndex()
	if err := idx.Add(corpus...); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, got := range map[string][]Hit{"index": idx.Search(tt.query, tt.opts), "scan": Scan(corpus, tt.query, tt.opts)} {
				g := ids(got)
				if len(g) < len(tt.want) || len(tt.want) > 0 && !reflect.DeepEqual(g[:len(tt.want)], tt.want) || tt.only && len(g) != len(tt.want) {
					t.Errorf("%s: %q gave %v, want %v first (only: %v)", name, tt.query, g, tt.want, tt.only)
				}
				if tt.opts.Limit > 0 && len(g) > tt.opts.Limit {
					t.Errorf("%s: %d hits over limit %d", name, len(g), tt.opts.Limit)
				}
				for i := 1; i < len(got); i++ {
					if got[i].Score > got[i-1].Score {
						t.Errorf("%s: hits not sorted by score: %v", name, got)
					}
				}
			}
		})
	}
}

func TestRecencyBreaksTies(t *testing.T) {
	t.Parallel()
	docs := []Doc{
		doc("pq-0000000a", KindLog, 30, "Deployed the billing service."),
		doc("pq-0000000b", KindLog, 1, "Deployed the billing service."),
		doc("pq-0000000c", KindLog, 10, "Deployed the billing service."),
	}
	idx := NewIndex()
	idx.Add(docs...)
	want := []string{"pq-0000000b", "pq-0000000c", "pq-0000000a"}
	for name, got := range map[string][]Hit{"index": idx.Search("billing", Options{}), "scan": Scan(docs, "billing", Options{})} {
		if !reflect.DeepEqual(ids(got), want) {
			t.Errorf("%s: %v, want newest first %v", name, ids(got), want)
		}
		if !got[0].Date.Equal(day.Add(-time.Hour)) {
			t.Errorf("%s: hit date %v", name, got[0].Date)
		}
	}
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Filler words about nothing in particular. ", 40) +
		"The **flaky** test in `auth_test.go` was caused by a shared clock. " +
		strings.Repeat("More filler text follows here. ", 40)
	docs := []Doc{
		doc("pq-1", KindLearning, 1, long),
		{ID: "pq-2", Kind: KindDecision, Source: "agent", Title: "Use RS256", Fields: "HS256\nRS256 allows public key verification", Body: "", Date: day},
		doc("pq-3", KindLog, 1, "Short body with ünïcödé flaky"),
	}
	idx := NewIndex()
	idx.Add(docs...)
	hits := idx.Search("flaky clock", Options{SnippetLen: 80})
	if len(hits) < 1 || hits[0].ID != "pq-1" {
		t.Fatalf("hits %v", ids(hits))
	}
	s := hits[0].Snippet
	if !strings.Contains(s, "flaky test in auth_test.go was caused by a shared clock") {
		t.Errorf("snippet misses the match or keeps Markdown: %q", s)
	}
	if n := utf8.RuneCountInString(s); n > 82 || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Errorf("snippet %q: %d characters, want ≤ 80 plus ellipses on both sides", s, n)
	}
	if h := idx.Search("verification", Options{}); len(h) != 1 || !strings.Contains(h[0].Snippet, "public key verification") {
		t.Errorf("snippet from fields: %+v", h)
	}
	if h := idx.Search("ünïcödé", Options{}); len(h) != 1 || h[0].Snippet != "Short body with ünïcödé flaky" {
		t.Errorf("short unicode snippet: %+v", h)
	}
}

func TestDuplicateIDsAcrossSources(t *testing.T) {
	t.Parallel()
	a := doc("pq-00000042", KindLearning, 1, "Promoted learning about retries.")
	g := a
	g.Source = "global"
	idx := NewIndex()
	idx.Add(a, g, doc("pq-00000043", KindLearning, 2, "Another note on retries."))
	if got := ids(idx.Search("retries", Options{})); !reflect.DeepEqual(got, []string{"pq-00000042", "pq-00000043"}) {
		t.Errorf("all scopes: %v, want the promoted entry once", got)
	}
	if got := idx.Search("retries", Options{Sources: []string{"global"}}); len(got) != 1 || got[0].Source != "global" {
		t.Errorf("global scope: %+v", got)
	}
}

func TestIncrementalUpdates(t *testing.T) {
	t.Parallel()
	idx := NewIndex()
	idx.Add(corpus...)
	if idx.Len() != len(corpus) {
		t.Fatalf("Len = %d", idx.Len())
	}
	// Changing a document re-indexes it.
	changed := corpus[3]
	changed.Body = "Always check token lifetime before signature validation."
	changed.Title = changelog.QuickTitle(changed.Body)
	idx.Add(changed)
	if h := idx.Search("expiry", Options{}); len(h) != 0 {
		t.Errorf("old text still found: %v", ids(h))
	}
	if h := idx.Search("lifetime", Options{}); len(h) != 1 {
		t.Errorf("new text not found: %v", ids(h))
	}
	// Remove.
	idx.Remove("agent", "pq-00000003")
	if h := idx.Search("rs256", Options{}); len(h) != 0 || idx.Len() != len(corpus)-1 {
		t.Errorf("removed doc found: %v (len %d)", ids(h), idx.Len())
	}
	// Sync makes a group exactly the given docs.
	idx.Sync("agent:learnings.md", []Doc{doc("pq-l1", KindLearning, 1, "retry with backoff"), doc("pq-l2", KindLearning, 1, "pin the go version")})
	idx.Sync("agent:learnings.md", []Doc{doc("pq-l2", KindLearning, 1, "pin the go version"), doc("pq-l3", KindLearning, 1, "retry budget is 3")})
	if got := ids(idx.Search("retry", Options{})); !reflect.DeepEqual(got, []string{"pq-l3"}) {
		t.Errorf("after sync: %v, want only pq-l3", got)
	}
	idx.Sync("agent:learnings.md", nil)
	if h := idx.Search("pin version", Options{}); len(h) != 0 {
		t.Errorf("emptied group still found: %v", ids(h))
	}
}

// TestIndexMatchesScan checks on a generated corpus, through removals and
// compactions, that the warm index and the one-shot scan agree exactly.
func TestIndexMatchesScan(t *testing.T) {
	t.Parallel()
	docs := Generate(5000, 1)
	idx := NewIndex()
	if err := idx.Add(docs...); err != nil {
		t.Fatal(err)
	}
	check := func(stage string, live []Doc) {
		for _, q := range []string{"retry token", "flaky clock timeout", "migration", "deadlock mutex goroutine", "alpha", "zzz"} {
			for _, o := range []Options{{}, {Kinds: []Kind{KindDecision}}, {Limit: 50}} {
				a, b := idx.Search(q, o), Scan(live, q, o)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("%s: %q %+v: index %v\nscan %v", stage, q, o, ids(a), ids(b))
				}
			}
		}
	}
	check("fresh", docs)
	// Remove two thirds (forces compaction), then re-add some changed.
	var live []Doc
	for i, d := range docs {
		if i%3 != 0 {
			idx.Remove(d.Source, d.ID)
		} else {
			live = append(live, d)
		}
	}
	check("after removals", live)
	for i := range 200 {
		d := live[i]
		d.Body += " appended retry note"
		idx.Add(d)
		live[i] = d
	}
	check("after changes", live)
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	idx := NewIndex()
	docs := Generate(2000, 2)
	idx.Add(docs[:1000]...)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if w == 0 {
					idx.Add(docs[1000+i*5 : 1000+i*5+5]...)
					continue
				}
				idx.Search("retry token", Options{})
			}
		}()
	}
	wg.Wait()
	if idx.Len() != 2000 {
		t.Errorf("Len = %d after concurrent adds", idx.Len())
	}
}

func TestFromEntryAndParseKind(t *testing.T) {
	t.Parallel()
	e := changelog.Entry{ID: "pq-12345678", Timestamp: day, Agent: "add-auth", Type: changelog.TypeDecision,
		Decision: "Use RS256", Alternatives: []string{"HS256"}, Rationale: "public key verification"}
	d := FromEntry(e, "global")
	if d.Kind != KindDecision || d.Title != "Use RS256" || d.Source != "global" || !strings.Contains(d.Fields, "HS256") || !strings.Contains(d.Fields, "add-auth") {
		t.Errorf("FromEntry = %+v", d)
	}
	for in, want := range map[string]Kind{"decision": KindDecision, "Learnings": KindLearning, "implement": KindLog, "branch": KindBranch} {
		if k, err := ParseKind(in); err != nil || k != want {
			t.Errorf("ParseKind(%q) = %q, %v", in, k, err)
		}
	}
	if _, err := ParseKind("../x"); err == nil || !strings.Contains(err.Error(), "unknown kind") {
		t.Errorf("ParseKind of junk: %v", err)
	}
}

func TestGenerateIsRealistic(t *testing.T) {
	t.Parallel()
	docs := Generate(1000, 3)
	kinds := map[Kind]int{}
	size := 0
	for _, d := range docs {
		kinds[d.Kind]++
		size += len(d.Body)
	}
	if len(kinds) < 4 || size/len(docs) < 200 || size/len(docs) > 800 {
		t.Errorf("kinds %v, mean body %d bytes", kinds, size/len(docs))
	}
}

func TestBulkAddMatchesOneByOne(t *testing.T) {
	t.Parallel()
	docs := Generate(6000, 4)
	// Later copies in the batch replace earlier ones, as one-by-one adds do.
	for i := range 100 {
		d := docs[i]
		d.Body = "replaced body about a unique zebra"
		docs = append(docs, d)
	}
	bulk, single := NewIndex(), NewIndex()
	if err := bulk.Add(docs[:100]...); err != nil { // some already present: replaced or kept
		t.Fatal(err)
	}
	if err := bulk.Add(docs...); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		single.Add(d)
	}
	if bulk.Len() != 6000 || single.Len() != 6000 {
		t.Fatalf("Len bulk %d single %d, want 6000", bulk.Len(), single.Len())
	}
	for _, q := range []string{"zebra", "retry token", "migration schema", "deadlock"} {
		a, b := bulk.Search(q, Options{Limit: 30}), single.Search(q, Options{Limit: 30})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%q: bulk %v\nsingle %v", q, ids(a), ids(b))
		}
	}
	if got := bulk.Search("zebra", Options{Limit: 1000}); len(got) != 100 {
		t.Errorf("zebra: %d hits, want the 100 replaced docs", len(got))
	}
	// A large Sync removes what is gone.
	bulk.Sync("", docs[3000:6000])
	if bulk.Len() != 3000 {
		t.Errorf("after Sync: Len %d, want 3000", bulk.Len())
	}
}
