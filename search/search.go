// Package search ranks planq's state documents by relevance to a query.
//
// It is a top-level package rather than part of changelog/ or staterepo/
// because it indexes more than changelog entries — log entries, learnings,
// decisions and handoffs, but also branch context documents
// (branches/<name>.md), scratch and plan files — and because both the MCP
// server (which keeps an Index warm and updates it incrementally with Sync)
// and the CLI (a one-shot Scan) use it without needing staterepo's git side.
// It depends on changelog only for FromEntry and PlainText.
//
// Ranking is BM25 (k1=1.2, b=0.75) over the tokenised title, fields and body,
// multiplied by the fraction of query terms a document contains (so documents
// with every term come first), with newer documents first on equal scores.
// Tokens are lowercased runs of letters and digits; each Han, Hiragana,
// Katakana or Hangul character is a token of its own. Common English words
// (the, of, …) are dropped from queries that have other words. Hits with the
// same ID from several sources (an entry promoted to global) are reported
// once, from the best-scoring source.
package search

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/planq-dev/planq/changelog"
)

// Kind classifies a document; Options.Kinds filters by it.
type Kind string

// The document kinds planq indexes.
const (
	KindLog      Kind = "log"      // changelog entries: start, plan, implement, end
	KindLearning Kind = "learning" // learnings.md entries
	KindDecision Kind = "decision" // decisions.md entries
	KindHandoff  Kind = "handoff"  // handoff entries
	KindBranch   Kind = "branch"   // branches/<name>.md context documents
	KindScratch  Kind = "scratch"  // scratch.md
	KindContext  Kind = "context"  // context.md, plan.md and other whole documents
)

// AllKinds returns every Kind (e.g. for a tool schema's enum).
func AllKinds() []Kind {
	return []Kind{KindLog, KindLearning, KindDecision, KindHandoff, KindBranch, KindScratch, KindContext}
}

// KindOf returns the kind of a changelog entry of type t.
func KindOf(t changelog.Type) Kind {
	switch t {
	case changelog.TypeLearning:
		return KindLearning
	case changelog.TypeDecision:
		return KindDecision
	case changelog.TypeHandoff:
		return KindHandoff
	}
	return KindLog
}

// ParseKind reads a kind name as a user gives it to planq_search or
// `planq search --type`: a Kind, or an entry type (start, plan, implement and
// end mean log).
func ParseKind(s string) (Kind, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, k := range AllKinds() {
		if s == string(k) || s == string(k)+"s" {
			return k, nil
		}
	}
	if changelog.Type(s).Valid() {
		return KindOf(changelog.Type(s)), nil
	}
	kinds := AllKinds()
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown kind %q: use one of %s (or an entry type)", s, strings.Join(names, ", "))
}

// Doc is one searchable document. Within an index, (Source, ID) is unique.
type Doc struct {
	ID     string    // entry id ("pq-…") or a document name ("branches/main.md")
	Kind   Kind      // what it is
	Source string    // where it lives, e.g. "agent" or "global"; filtered by Options.Sources
	Group  string    // what it was read from (e.g. "agent:learnings.md"); see Index.Sync
	Title  string    // short title, shown in hits and indexed; empty: the body's first line
	Fields string    // extra indexed text (agent, decision, alternatives, rationale, …)
	Body   string    // Markdown body
	Date   time.Time // when it was written; newer wins ties
}

// FromEntry turns a changelog entry into a document of the matching kind
// from source; its Group is left for the caller. The title is the decision
// for decisions and left empty otherwise: a hit without a title gets the
// body's QuickTitle, computed only for the hits.
func FromEntry(e changelog.Entry, source string) Doc {
	d := Doc{ID: e.ID, Kind: KindOf(e.Type), Source: source, Body: e.Body, Date: e.Timestamp}
	if e.Decision != "" && (e.Type == changelog.TypeDecision || strings.TrimSpace(e.Body) == "") {
		d.Title = e.Decision
	}
	parts := make([]string, 0, 8)
	if d.Title != e.Decision && e.Decision != "" {
		parts = append(parts, e.Decision)
	}
	if e.Rationale != "" {
		parts = append(parts, e.Rationale)
	}
	parts = append(parts, e.Alternatives...)
	if e.To != "" {
		parts = append(parts, e.To)
	}
	parts = append(parts, e.NextSteps...)
	if e.Agent != "" {
		parts = append(parts, e.Agent)
	}
	d.Fields = strings.Join(parts, "\n") // one part: no copy
	return d
}

// Options tune a search.
type Options struct {
	Kinds      []Kind   // only these kinds (nil: all)
	Sources    []string // only these sources (nil: all), e.g. {"agent"} for scope=agent
	Limit      int      // at most this many hits (default 10, at most 1000)
	SnippetLen int      // snippet length in characters (default 200, at most 2000)
}

func (o Options) limit() int { return bounded(o.Limit, 10, 1000) }

func (o Options) snippetLen() int { return bounded(o.SnippetLen, 200, 2000) }

// bounded is v, or def when v is not positive, at most max.
func bounded(v, def, max int) int {
	if v <= 0 {
		return def
	}
	return min(v, max)
}

func (o Options) admits(d *Doc) bool {
	return (len(o.Kinds) == 0 || slices.Contains(o.Kinds, d.Kind)) &&
		(len(o.Sources) == 0 || slices.Contains(o.Sources, d.Source))
}

// Hit is one search result.
type Hit struct {
	ID      string    `json:"id"`               // the document's ID
	Kind    Kind      `json:"kind"`             // its kind
	Source  string    `json:"source,omitempty"` // where it lives
	Title   string    `json:"title,omitempty"`  // its title, else its body's QuickTitle
	Snippet string    `json:"snippet"`          // the text around the best match
	Date    time.Time `json:"date"`             // when it was written
	Score   float64   `json:"score"`            // its relevance, higher is better
}

// BM25 parameters.
const (
	k1 = 1.2
	bb = 0.75
)

// maxTF caps a term's counted frequency in one document.
const maxTF = 255

// maxDocs is the most documents an Index holds (document numbers are 24 bits).
const maxDocs = 1<<24 - 1

// ErrFull is returned by Add when the index holds maxDocs documents.
var ErrFull = errors.New("search index full")

type docKey struct{ source, id string }

type slot struct {
	doc    Doc
	length uint32 // tokens
	alive  bool
}

// Index is an in-memory inverted index, safe for concurrent use. Postings
// are packed as document number << 8 | term frequency.
type Index struct {
	mu       sync.RWMutex
	terms    map[string]uint32 // term → term number
	postings [][]uint32        // per term
	df       []uint32          // per term: live documents containing it
	slots    []slot
	byKey    map[docKey]uint32
	groups   map[string]map[docKey]struct{}
	live     int
	totalLen int64
	dead     int
	tok      tokenizer // used under mu (write)
	ids      []uint32  // scratch for add/remove, under mu (write)
	pool     sync.Pool // *scorer
	workers  int       // the most CPUs a bulk add uses; 0: all (SetWorkers)
}

// SetWorkers limits a bulk add (Add of many documents) to n CPUs, leaving
// the others to whoever waits for answers meanwhile; 0 means all of them.
func (x *Index) SetWorkers(n int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.workers = max(0, n)
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		terms:  map[string]uint32{},
		byKey:  map[docKey]uint32{},
		groups: map[string]map[docKey]struct{}{},
	}
}

// Len returns the number of documents indexed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Add indexes docs, replacing any document with the same (Source, ID).
// Re-adding an unchanged document costs a map look-up.
func (x *Index) Add(docs ...Doc) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.addMany(docs)
}

func (x *Index) addMany(docs []Doc) error {
	if len(docs) >= bulkMin {
		return x.addBulk(docs)
	}
	for i := range docs {
		if err := x.add(docs[i]); err != nil {
			return err
		}
	}
	return nil
}

// Remove drops the document (source, id), if present.
func (x *Index) Remove(source, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if s, ok := x.byKey[docKey{source, id}]; ok {
		x.remove(s)
	}
	x.maybeCompact()
}

// Sync makes the documents of group exactly docs: new and changed ones are
// indexed, unchanged ones kept, and those no longer present removed. Every
// doc's Group is set to group. The server calls it with a file's parsed
// entries whenever that file changed.
func (x *Index) Sync(group string, docs []Doc) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	keep := make(map[docKey]struct{}, len(docs))
	grouped := make([]Doc, len(docs))
	for i, d := range docs {
		d.Group = group
		grouped[i] = d
		keep[docKey{d.Source, d.ID}] = struct{}{}
	}
	if err := x.addMany(grouped); err != nil {
		return err
	}
	for k := range x.groups[group] {
		if _, ok := keep[k]; !ok {
			x.remove(x.byKey[k])
		}
	}
	x.maybeCompact()
	return nil
}

// ownStrings copies the document's text so that the index does not keep alive
// the whole file a parser's zero-copy substrings point into.
func ownStrings(d Doc) Doc {
	d.Title = strings.Clone(d.Title)
	d.Fields = strings.Clone(d.Fields)
	d.Body = strings.Clone(d.Body)
	d.ID = strings.Clone(d.ID)
	return d
}

// add indexes one document (see Add).
func (x *Index) add(d Doc) error {
	if x.current(&d) {
		return nil
	}
	if !x.makeRoom(1) {
		return fmt.Errorf("add %s: %w (%d documents)", d.ID, ErrFull, maxDocs)
	}
	d = ownStrings(d)
	n := uint32(len(x.slots))
	ids := x.ids[:0]
	each := func(tok []byte, _, _ int) {
		t, ok := x.terms[string(tok)]
		if !ok {
			t = x.newTerm(string(tok))
		}
		ids = append(ids, t)
	}
	x.tok.eachIndexed(&d, each)
	length := uint32(len(ids))
	slices.Sort(ids)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		t := ids[i]
		x.postings[t] = append(x.postings[t], n<<8|uint32(min(j-i, maxTF)))
		x.df[t]++
		i = j
	}
	x.ids = ids
	x.place(d, length)
	return nil
}

// current reports whether the index holds d unchanged; an older version of
// it is removed.
func (x *Index) current(d *Doc) bool {
	if s, ok := x.byKey[docKey{d.Source, d.ID}]; ok {
		if x.slots[s].doc == *d {
			return true
		}
		x.remove(s)
	}
	return false
}

// makeRoom reports whether n more documents fit under maxDocs, compacting
// the index first when they would not.
func (x *Index) makeRoom(n int) bool {
	if len(x.slots)+n > maxDocs {
		x.compact()
	}
	return len(x.slots)+n <= maxDocs
}

// newTerm adds term to the dictionary with no postings yet and returns its
// number.
func (x *Index) newTerm(term string) uint32 {
	t := uint32(len(x.postings))
	x.terms[term] = t
	x.postings = append(x.postings, nil)
	x.df = append(x.df, 0)
	return t
}

// place files d, of length tokens, as the next document: its slot, its key
// and its group, and the statistics. Its postings are the caller's.
func (x *Index) place(d Doc, length uint32) {
	k := docKey{d.Source, d.ID}
	x.byKey[k] = uint32(len(x.slots))
	x.slots = append(x.slots, slot{doc: d, length: length, alive: true})
	g := x.groups[d.Group]
	if g == nil {
		g = map[docKey]struct{}{}
		x.groups[d.Group] = g
	}
	g[k] = struct{}{}
	x.live++
	x.totalLen += int64(length)
}

// remove marks slot s dead and takes it out of the statistics; its postings
// stay until the next compaction.
func (x *Index) remove(s uint32) {
	sl := &x.slots[s]
	if !sl.alive {
		return
	}
	ids := x.ids[:0]
	each := func(tok []byte, _, _ int) {
		if t, ok := x.terms[string(tok)]; ok {
			ids = append(ids, t)
		}
	}
	x.tok.eachIndexed(&sl.doc, each)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, t := range ids {
		x.df[t]--
	}
	x.ids = ids
	k := docKey{sl.doc.Source, sl.doc.ID}
	delete(x.byKey, k)
	if g := x.groups[sl.doc.Group]; g != nil {
		delete(g, k)
		if len(g) == 0 {
			delete(x.groups, sl.doc.Group)
		}
	}
	sl.alive = false
	sl.doc = Doc{}
	x.live--
	x.totalLen -= int64(sl.length)
	x.dead++
}

// maybeCompact compacts when dead slots outnumber a quarter of the live ones.
func (x *Index) maybeCompact() {
	if x.dead > 1024 && x.dead > x.live/4 {
		x.compact()
	}
}

// compact drops dead slots and renumbers documents.
func (x *Index) compact() {
	if x.dead == 0 {
		return
	}
	renum := make([]uint32, len(x.slots))
	live := x.slots[:0:0]
	for i, s := range x.slots {
		if s.alive {
			renum[i] = uint32(len(live))
			live = append(live, s)
		}
	}
	for t, ps := range x.postings {
		out := ps[:0]
		for _, p := range ps {
			if d := p >> 8; x.slots[d].alive {
				out = append(out, renum[d]<<8|p&maxTF)
			}
		}
		x.postings[t] = slices.Clip(out)
	}
	x.slots = live
	for k, s := range x.byKey {
		x.byKey[k] = renum[s]
	}
	x.dead = 0
}

// scorer holds per-search scratch space, reused across searches.
type scorer struct {
	score   []float64
	matched []uint8
	touched []uint32
}

// Search returns the best hits for query, best first.
func (x *Index) Search(query string, opts Options) []Hit {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.live == 0 {
		return nil
	}
	sc, _ := x.pool.Get().(*scorer)
	if sc == nil {
		sc = &scorer{}
	}
	defer x.pool.Put(sc)
	if len(sc.score) < len(x.slots) {
		sc.score = make([]float64, len(x.slots))
		sc.matched = make([]uint8, len(x.slots))
	}
	sc.touched = sc.touched[:0]
	n := float64(x.live)
	avgdl := float64(x.totalLen) / n
	for _, term := range terms {
		t, ok := x.terms[term]
		if !ok || x.df[t] == 0 {
			continue
		}
		idf := idfOf(n, float64(x.df[t]))
		for _, p := range x.postings[t] {
			d := p >> 8
			s := &x.slots[d]
			if !s.alive {
				continue
			}
			sc.score[d] += termScore(idf, p&maxTF, s.length, avgdl)
			if sc.matched[d] == 0 {
				sc.touched = append(sc.touched, d)
			}
			sc.matched[d]++
		}
	}
	top := newTopK(opts.limit())
	nq := float64(len(terms))
	for _, d := range sc.touched {
		s := &x.slots[d]
		score := sc.score[d] * float64(sc.matched[d]) / nq
		sc.score[d], sc.matched[d] = 0, 0
		if opts.admits(&s.doc) {
			top.offer(&s.doc, score)
		}
	}
	return top.hits(terms, opts.snippetLen())
}

func idfOf(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

func termScore(idf float64, tf, length uint32, avgdl float64) float64 {
	f := float64(tf)
	return idf * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(length)/avgdl))
}

// topK keeps the best k candidates, one per document ID.
type topK struct {
	k    int
	list []cand // kept sorted best first; k is small
}

type cand struct {
	doc   *Doc
	score float64
}

func newTopK(k int) *topK { return &topK{k: k, list: make([]cand, 0, k+1)} }

// better orders candidates: higher score, then newer, then by ID and source.
func better(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if !a.doc.Date.Equal(b.doc.Date) {
		return a.doc.Date.After(b.doc.Date)
	}
	if a.doc.ID != b.doc.ID {
		return a.doc.ID < b.doc.ID
	}
	return a.doc.Source < b.doc.Source
}

func (t *topK) offer(d *Doc, score float64) {
	c := cand{d, score}
	if len(t.list) == t.k && !better(c, t.list[len(t.list)-1]) {
		return
	}
	for i, o := range t.list {
		if o.doc.ID == d.ID {
			if !better(c, o) {
				return
			}
			t.list = slices.Delete(t.list, i, i+1)
			break
		}
	}
	i, _ := slices.BinarySearchFunc(t.list, c, func(a, b cand) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	t.list = slices.Insert(t.list, i, c)
	if len(t.list) > t.k {
		t.list = t.list[:t.k]
	}
}

func (t *topK) hits(terms []string, snippetLen int) []Hit {
	out := make([]Hit, len(t.list))
	for i, c := range t.list {
		d := c.doc
		title := d.Title
		if title == "" {
			title = changelog.QuickTitle(d.Body)
		}
		out[i] = Hit{
			ID: d.ID, Kind: d.Kind, Source: d.Source, Title: title, Date: d.Date,
			Score:   math.Round(c.score*1e4) / 1e4,
			Snippet: snippet(d, terms, snippetLen),
		}
	}
	return out
}
