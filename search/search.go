// Package search ranks planq's state documents by relevance to a query.
//
// It lives in its own package, not in changelog/ or staterepo/, because it
// indexes more than changelog entries — log entries, learnings, decisions and
// handoffs, but also branch context documents (branches/<name>.md), scratch
// and plan files — and because both the MCP server (which keeps an Index
// warm and updates it incrementally) and the CLI (a cold, one-shot Scan) use
// it without needing the git side of staterepo. It depends on changelog only
// for FromEntry and PlainText.
//
// Ranking is BM25 (k1=1.2, b=0.75) over the tokenised title, fields and
// body, multiplied by the fraction of query terms a document contains (so
// documents matching every term come first), with newer documents first on
// equal scores. Tokens are lowercased runs of letters and digits; each Han,
// Hiragana, Katakana or Hangul character is a token of its own.
package search

import (
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

// Doc is one searchable document. Within an index, (Source, ID) is unique.
type Doc struct {
	ID     string    // entry id ("pq-…") or a document name ("branches/main.md")
	Kind   Kind      // what it is
	Source string    // where it lives, e.g. "agent" or "global"; filtered by Options.Sources
	Group  string    // what it was read from (e.g. the file path); see Index.Sync
	Title  string    // short title, shown in hits and indexed
	Fields string    // extra indexed text (decision, alternatives, rationale, …)
	Body   string    // Markdown body
	Date   time.Time // when it was written; newer wins ties
}

// Options tune a search.
type Options struct {
	Kinds      []Kind   // only these kinds (nil: all)
	Sources    []string // only these sources (nil: all), e.g. {"agent"} for scope=agent
	Limit      int      // at most this many hits (default 10)
	SnippetLen int      // snippet length in characters (default 200)
}

// Hit is one search result.
type Hit struct {
	ID      string    `json:"id"`
	Kind    Kind      `json:"kind"`
	Source  string    `json:"source,omitempty"`
	Title   string    `json:"title,omitempty"`
	Snippet string    `json:"snippet"`
	Date    time.Time `json:"date"`
	Score   float64   `json:"score"`
}

// Index is an in-memory inverted index, safe for concurrent use.
type Index struct{}

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{} }

// Add indexes docs, replacing any document with the same (Source, ID).
// Re-adding an unchanged document is cheap.
func (x *Index) Add(docs ...Doc) {}

// Remove drops the document (source, id), if present.
func (x *Index) Remove(source, id string) {}

// Sync makes the documents of group exactly docs: new and changed ones are
// indexed, unchanged ones kept, and those no longer present removed. Every
// doc's Group is set to group.
func (x *Index) Sync(group string, docs []Doc) {}

// Len returns the number of documents indexed.
func (x *Index) Len() int { return 0 }

// Search returns the best hits for query, best first.
func (x *Index) Search(query string, opts Options) []Hit { return nil }

// Scan ranks docs for query without building an index (for one-shot
// searches); it returns the same hits an Index holding docs would.
func Scan(docs []Doc, query string, opts Options) []Hit { return nil }

// FromEntry turns a changelog entry into a document of the matching kind
// (learning, decision, handoff, else log) from source.
func FromEntry(e changelog.Entry, source string) Doc { return Doc{} }
