package metrics

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/planq-dev/planq/internal/text"
)

// Summary is what the records of one project say, aggregated.
type Summary struct {
	Since         time.Time   `json:"since"` // the records read start here (the first record's time when no bound was given)
	Until         time.Time   `json:"until"` // the last record's time
	Records       int         `json:"records"`
	Gate          []GateRow   `json:"gate"`            // verdicts by tool and by rule class, most first
	Declare       Durations   `json:"time_to_declare"` // session start -> change declared
	Tools         []ToolRow   `json:"tools"`           // calls per planq MCP tool, most first
	Memory        []MemoryRow `json:"memory"`          // learnings/decisions surfaced and later cited
	EmptySearches []SearchRow `json:"empty_searches"`  // searches that found nothing, most first
	Escapes       Escapes     `json:"gate_escapes"`    // the checks at declaration: files that changed while the gate was locked
	// Skipped counts lines that were not one whole record (torn or
	// garbage), which the reader passed over.
	Skipped int `json:"skipped_lines"`
}

// GateRow counts the gate's verdicts on one tool by one class of rule.
type GateRow struct {
	Tool    string `json:"tool"`
	Rule    string `json:"rule"`    // the class of rule that decided (gate.Rule*)
	Verdict string `json:"verdict"` // allow, deny, warn (the gate never asks)
	Count   int    `json:"count"`
}

// Durations are the times from a session's start to its change being
// declared, over the sessions that declared one.
type Durations struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50_ns"`
	P90   time.Duration `json:"p90_ns"`
	Max   time.Duration `json:"max_ns"`
	// Undeclared counts the sessions that started without a declared
	// change and have not declared one (yet).
	Undeclared int `json:"undeclared"`
}

// Escapes sums the checks made when a change was declared: files that
// changed in the working copy while the gate was locked, which it should
// never let happen (a gate escape).
type Escapes struct {
	Checks int `json:"checks"` // declarations checked
	Found  int `json:"found"`  // checks that found files changed while locked
	Files  int `json:"files"`  // files they found, all told
	// Recent are the latest checks that found files, newest first.
	Recent []EscapeRow `json:"recent"`
}

// EscapeRow is one check that found files changed while the gate was
// locked.
type EscapeRow struct {
	Time    time.Time `json:"time"`
	Tool    string    `json:"tool"` // where the change was declared: jj_init, planq start, or the shell tool that ran jj
	Session string    `json:"session,omitempty"`
	Files   []string  `json:"files"` // the first of them
	Count   int       `json:"count"`
}

// maxRecentEscapes bounds Escapes.Recent.
const maxRecentEscapes = 10

// ToolRow counts the calls of one planq MCP tool.
type ToolRow struct {
	Tool   string `json:"tool"`
	Calls  int    `json:"calls"`
	Errors int    `json:"errors"`
}

// MemoryRow counts the distinct learnings or decisions surfaced in one
// place, and how many of them were cited after they were first surfaced
// there.
type MemoryRow struct {
	Kind     string `json:"kind"`  // learning, decision
	Where    string `json:"where"` // session-start, planq_context, planq_search
	Surfaced int    `json:"surfaced"`
	Cited    int    `json:"cited"`
}

// SearchRow is one query that found nothing.
type SearchRow struct {
	Query string    `json:"query"`
	Count int       `json:"count"`
	Last  time.Time `json:"last"`
}

// MinCiteTitle is the shortest title (in characters) whose mention in a
// later text counts as citing its entry; shorter ones match by accident.
const MinCiteTitle = 12

// Summarize reads the records in dir since the given time (zero: all) and
// aggregates them. A line that is not one whole record is skipped and
// counted in Skipped; a missing dir is an empty summary.
func Summarize(ctx context.Context, dir string, since time.Time) (Summary, error) {
	files, err := dayFiles(dir)
	if err != nil {
		return Summary{}, err
	}
	var a aggregate
	a.init()
	sum := Summary{Since: since}
	for _, f := range files {
		if !since.IsZero() && !f.day.Add(24*time.Hour).After(since) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		if err := readFile(f.path, func(r Record) {
			if r.Time.Before(since) {
				return
			}
			sum.Records++
			if sum.Until.Before(r.Time) {
				sum.Until = r.Time
			}
			if since.IsZero() && (sum.Since.IsZero() || r.Time.Before(sum.Since)) {
				sum.Since = r.Time
			}
			a.add(r)
		}, &sum.Skipped); err != nil {
			return Summary{}, err
		}
	}
	a.fill(&sum)
	return sum, nil
}

// day is one YYYY-MM-DD.jsonl file.
type day struct {
	path string
	day  time.Time
}

// dayFiles lists dir's day files, oldest first.
func dayFiles(dir string) ([]day, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	var out []day
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		t, err := time.Parse(dayLayout, name)
		if err != nil {
			continue
		}
		out = append(out, day{path: filepath.Join(dir, e.Name()), day: t})
	}
	slices.SortFunc(out, func(a, b day) int { return a.day.Compare(b.day) })
	return out, nil
}

// readFile calls fn with each whole record of a day file, streaming it; a
// line that is not one (too long, torn, not JSON, no kind or time) is
// counted in skipped.
func readFile(path string, fn func(Record), skipped *int) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) { // pruned meanwhile
			return nil
		}
		return fmt.Errorf("metrics: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 2*MaxRecord)
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			// Longer than any record: skip to the end of the line.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			*skipped++
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("metrics: read %s: %w", path, err)
			}
			continue
		case err == io.EOF:
			if len(strings.TrimSpace(string(line))) > 0 {
				*skipped++ // a record's write never ends without its newline
			}
			return nil
		case err != nil:
			return fmt.Errorf("metrics: read %s: %w", path, err)
		}
		var r Record
		if json.Unmarshal(line, &r) != nil || r.Kind == "" || r.Time.IsZero() {
			if len(strings.TrimSpace(string(line))) > 0 {
				*skipped++
			}
			continue
		}
		fn(r)
	}
}

// aggregate accumulates records for a Summary.
type aggregate struct {
	gate     map[GateRow]int
	tools    map[string]*ToolRow
	searches map[string]*SearchRow
	sessions map[string]*sessionTimes
	surfaced map[surfaceKey]surfaced
	writes   []written
	escapes  Escapes
}

type sessionTimes struct {
	start         time.Time
	startDeclared bool
	seen          []time.Time // times a record saw the change declared
}

type surfaceKey struct{ kind, where, id string }

type surfaced struct {
	first time.Time
	title string
}

type written struct {
	t    time.Time
	text string // lower case, spaces folded
}

func (a *aggregate) init() {
	a.gate = map[GateRow]int{}
	a.tools = map[string]*ToolRow{}
	a.searches = map[string]*SearchRow{}
	a.sessions = map[string]*sessionTimes{}
	a.surfaced = map[surfaceKey]surfaced{}
}

// sawDeclared reports whether r is a hook seeing its session's change
// declared, after the session started: the rule that ends the time to
// declare.
func (r Record) sawDeclared() bool {
	return r.Kind == KindDeclared || r.Kind == KindGate && r.Declared
}

// get returns m's entry for k, made by mk when there is none.
func get[K comparable, V any](m map[K]*V, k K, mk func() *V) *V {
	v, ok := m[k]
	if !ok {
		v = mk()
		m[k] = v
	}
	return v
}

func (a *aggregate) add(r Record) {
	if r.Session != "" && r.sawDeclared() {
		s := get(a.sessions, r.Session, func() *sessionTimes { return &sessionTimes{} })
		s.seen = append(s.seen, r.Time)
	}
	switch r.Kind {
	case KindStart:
		if r.Session != "" {
			s := get(a.sessions, r.Session, func() *sessionTimes { return &sessionTimes{} })
			if s.start.IsZero() || r.Time.Before(s.start) {
				s.start, s.startDeclared = r.Time, r.Declared
			}
		}
	case KindGate:
		a.gate[GateRow{Tool: r.Tool, Rule: r.Rule, Verdict: r.Verdict}]++
	case KindTool:
		t := get(a.tools, r.Tool, func() *ToolRow { return &ToolRow{Tool: r.Tool} })
		t.Calls++
		if r.Err {
			t.Errors++
		}
	case KindEmptySearch:
		s := get(a.searches, r.Query, func() *SearchRow { return &SearchRow{Query: r.Query} })
		s.Count++
		if s.Last.Before(r.Time) {
			s.Last = r.Time
		}
	case KindSurface:
		for _, e := range r.Entries {
			k := surfaceKey{kind: e.Kind, where: r.Where, id: e.ID}
			if s, ok := a.surfaced[k]; !ok || r.Time.Before(s.first) {
				a.surfaced[k] = surfaced{first: r.Time, title: e.Title}
			}
		}
	case KindEscapes:
		a.escapes.Checks++
		if n := max(r.Count, len(r.Files)); n > 0 {
			a.escapes.Found++
			a.escapes.Files += n
			a.escapes.Recent = append(a.escapes.Recent, EscapeRow{Time: r.Time, Tool: r.Tool, Session: r.Session, Files: r.Files, Count: n})
		}
	case KindWrite:
		if r.Text != "" {
			a.writes = append(a.writes, written{t: r.Time, text: strings.ToLower(text.OneLine(r.Text))})
		}
	}
}

func (a *aggregate) fill(sum *Summary) {
	sum.Gate = make([]GateRow, 0, len(a.gate))
	for g, n := range a.gate {
		g.Count = n
		sum.Gate = append(sum.Gate, g)
	}
	slices.SortFunc(sum.Gate, func(x, y GateRow) int {
		return cmp.Or(-cmp.Compare(x.Count, y.Count), cmp.Compare(x.Tool, y.Tool), cmp.Compare(x.Rule, y.Rule), cmp.Compare(x.Verdict, y.Verdict))
	})

	sum.Tools = make([]ToolRow, 0, len(a.tools))
	for _, t := range a.tools {
		sum.Tools = append(sum.Tools, *t)
	}
	slices.SortFunc(sum.Tools, func(x, y ToolRow) int { return cmp.Or(-cmp.Compare(x.Calls, y.Calls), cmp.Compare(x.Tool, y.Tool)) })

	sum.EmptySearches = make([]SearchRow, 0, len(a.searches))
	for _, s := range a.searches {
		sum.EmptySearches = append(sum.EmptySearches, *s)
	}
	slices.SortFunc(sum.EmptySearches, func(x, y SearchRow) int {
		return cmp.Or(-cmp.Compare(x.Count, y.Count), y.Last.Compare(x.Last), cmp.Compare(x.Query, y.Query))
	})

	sum.Declare = a.declare()
	sum.Memory = a.memory()
	sum.Escapes = a.escapes
	slices.SortStableFunc(sum.Escapes.Recent, func(x, y EscapeRow) int { return y.Time.Compare(x.Time) })
	if len(sum.Escapes.Recent) > maxRecentEscapes {
		sum.Escapes.Recent = sum.Escapes.Recent[:maxRecentEscapes]
	}
	if sum.Escapes.Recent == nil {
		sum.Escapes.Recent = []EscapeRow{}
	}
}

// declare measures, per session that started undeclared, the time to the
// first record after its start that saw the change declared.
func (a *aggregate) declare() Durations {
	var ds []time.Duration
	var d Durations
	for _, s := range a.sessions {
		if s.start.IsZero() || s.startDeclared {
			continue
		}
		var first time.Time
		for _, t := range s.seen {
			if !t.Before(s.start) && (first.IsZero() || t.Before(first)) {
				first = t
			}
		}
		if first.IsZero() {
			d.Undeclared++
			continue
		}
		ds = append(ds, first.Sub(s.start))
	}
	if len(ds) == 0 {
		return d
	}
	slices.Sort(ds)
	d.Count = len(ds)
	d.P50, d.P90, d.Max = rank(ds, 50), rank(ds, 90), ds[len(ds)-1]
	return d
}

// rank is the p-th percentile of sorted ds, by nearest rank.
func rank(ds []time.Duration, p int) time.Duration {
	i := (p*len(ds)+99)/100 - 1
	return ds[max(i, 0)]
}

// memory counts surfaced entries per kind and place, and those cited by a
// later write naming their id or title.
func (a *aggregate) memory() []MemoryRow {
	rows := map[[2]string]*MemoryRow{}
	for k, s := range a.surfaced {
		row := get(rows, [2]string{k.kind, k.where}, func() *MemoryRow { return &MemoryRow{Kind: k.kind, Where: k.where} })
		row.Surfaced++
		if a.cited(k.id, s) {
			row.Cited++
		}
	}
	out := make([]MemoryRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	order := func(s string, list ...string) int {
		if i := slices.Index(list, s); i >= 0 {
			return i
		}
		return len(list)
	}
	slices.SortFunc(out, func(x, y MemoryRow) int {
		return cmp.Or(cmp.Compare(order(x.Kind, EntryLearning, EntryDecision), order(y.Kind, EntryLearning, EntryDecision)), cmp.Compare(x.Kind, y.Kind),
			cmp.Compare(order(x.Where, WhereSessionStart, WhereContext, WhereSearch), order(y.Where, WhereSessionStart, WhereContext, WhereSearch)), cmp.Compare(x.Where, y.Where))
	})
	return out
}

// cited reports whether a write after s.first names id or s's title.
func (a *aggregate) cited(id string, s surfaced) bool {
	id = strings.ToLower(id)
	title := strings.ToLower(text.OneLine(strings.TrimSuffix(strings.TrimSpace(s.title), "…")))
	if utf8.RuneCountInString(title) < MinCiteTitle {
		title = ""
	}
	for _, w := range a.writes {
		if !w.t.After(s.first) {
			continue
		}
		if id != "" && strings.Contains(w.text, id) || title != "" && strings.Contains(w.text, title) {
			return true
		}
	}
	return false
}
