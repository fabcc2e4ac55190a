package changelog

import (
	"io"
	"time"
)

// Scanner reads entries one at a time from a stream; see Parse.
type Scanner struct{}

// NewScanner returns a Scanner reading from r.
func NewScanner(r io.Reader) *Scanner { return &Scanner{} }

// Scan advances to the next well-formed entry, recording malformed ones as
// problems; it returns false at the end of input or on a read error.
func (s *Scanner) Scan() bool { return false }

// Entry returns the entry found by the last successful Scan.
func (s *Scanner) Entry() Entry { return Entry{} }

// Problems returns the malformed entries seen so far.
func (s *Scanner) Problems() []Problem { return nil }

// Err returns the first read error, if any (not a parse problem).
func (s *Scanner) Err() error { return nil }

// Parse reads every entry from r. Malformed entries are returned as problems
// and skipped; the error is only for a failing reader.
func Parse(r io.Reader) ([]Entry, []Problem, error) { return nil, nil, nil }

// ParseBytes is Parse over an in-memory file.
func ParseBytes(data []byte) ([]Entry, []Problem) { return nil, nil }

// Append validates e, fills its id (and a zero timestamp with now), and
// writes its serialisation to w in a single Write. It returns the entry as
// written.
func Append(w io.Writer, e Entry) (Entry, error) { return e, nil }

// AppendFile appends e to the file at path (created 0644 if missing) with
// O_APPEND in one write followed by fsync, separated from earlier content by
// a blank line. Earlier bytes are never rewritten.
func AppendFile(path string, e Entry) (Entry, error) { return e, nil }

// Union returns the entries of a and b without duplicates, sorted by
// timestamp then id. Two entries are the same when their ids match and their
// timestamps and agents match too (so a hand-edited body stays one entry and
// an id collision between different entries does not lose one). The first
// copy seen (from a, then b) is kept.
func Union(a, b []Entry) []Entry { return nil }

// MergeFile merges two versions of one append-only file: base is kept byte
// for byte, and the entries of other missing from base are appended in
// timestamp order, each as its original text. It returns the merged file, the
// entries added, and the problems found in either input (malformed entries of
// other are not copied).
func MergeFile(base, other []byte) (merged []byte, added []Entry, problems []Problem) {
	return base, nil, nil
}

// Truncate cuts body to at most max bytes at a line boundary, closes a code
// fence left open by the cut, and appends a marker saying how much was kept.
// A body within max is returned unchanged.
func Truncate(body string, max int) string { return body }

// Outline is the structure of a Markdown body, as goldmark parses it.
type Outline struct {
	Title string   `json:"title"`           // first heading, else the first line of the first paragraph
	Items []string `json:"items,omitempty"` // text of every list item, in order (e.g. next steps)
	Text  string   `json:"text"`            // plain text, Markdown syntax removed, blocks joined by newlines
}

// ParseOutline parses body with goldmark and returns its outline.
func ParseOutline(body string) Outline { return Outline{} }

// PlainText returns body without Markdown syntax (goldmark), for snippets.
func PlainText(body string) string { return body }

// QuickTitle returns a title for body without a full Markdown parse: the
// first non-blank line with heading, list and emphasis markers removed,
// at most 120 bytes.
func QuickTitle(body string) string { return "" }

// AgentSummary is one row of the session changelog.
type AgentSummary struct {
	Agent        string    `json:"agent"`
	Status       Status    `json:"status"`        // status of the latest entry, derived from its type when unset
	LastType     Type      `json:"last_type"`     // type of the latest entry
	LastActivity time.Time `json:"last_activity"` // timestamp of the latest entry
	LastTitle    string    `json:"last_title"`    // QuickTitle of the latest entry
	Entries      int       `json:"entries"`       // number of entries
}

// Summary is the session changelog aggregated across agent branches.
type Summary struct {
	Project     string         `json:"project,omitempty"` // set by the caller
	GeneratedAt time.Time      `json:"generated_at"`      // the newest entry's timestamp (deterministic)
	Agents      []AgentSummary `json:"agents"`            // sorted by last activity, newest first
	Recent      []Entry        `json:"recent"`            // newest entries across agents, newest first (at most RecentLimit)
}

// RecentLimit bounds Summary.Recent.
const RecentLimit = 20

// Aggregate builds the session changelog from each agent's entries.
func Aggregate(byAgent map[string][]Entry) Summary { return Summary{} }

// Markdown renders s as the global branch's changelog.md: front matter
// (generated_at, project, agents), a table of agents with status, last
// activity and entry count, and the recent entries.
func (s Summary) Markdown() string { return "" }

func headerLikeLine(body string) int { return 0 }
