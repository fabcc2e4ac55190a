package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 3, 10, 9, 0, 0, 0, time.UTC)

func at(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }

func mustAppend(t *testing.T, dir string, recs ...Record) {
	t.Helper()
	if err := Append(dir, recs...); err != nil {
		t.Fatal(err)
	}
}

func summarize(t *testing.T, dir string, since time.Time) Summary {
	t.Helper()
	s, err := Summarize(context.Background(), dir, since)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSummarizeAggregates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustAppend(t, dir,
		Record{Time: at(0), Kind: KindGate, Session: "s1", Tool: "Write", Rule: "locked", Verdict: VerdictDeny},
		Record{Time: at(1), Kind: KindGate, Session: "s1", Tool: "Write", Rule: "locked", Verdict: VerdictDeny},
		Record{Time: at(2), Kind: KindGate, Session: "s1", Tool: "Write", Rule: "declared", Verdict: VerdictAllow, Declared: true},
		Record{Time: at(3), Kind: KindGate, Session: "s1", Tool: "Bash", Rule: "shell", Verdict: VerdictAllow},
		Record{Time: at(4), Kind: KindTool, Tool: "jj_init"},
		Record{Time: at(5), Kind: KindTool, Tool: "planq_search"},
		Record{Time: at(6), Kind: KindTool, Tool: "planq_search", Err: true},
		Record{Time: at(7), Kind: KindTool, Tool: "planq_search"},
		Record{Time: at(8), Kind: KindEmptySearch, Query: "flaky tests"},
		Record{Time: at(9), Kind: KindEmptySearch, Query: "jwt"},
		Record{Time: at(10), Kind: KindEmptySearch, Query: "flaky tests"},
	)
	s := summarize(t, dir, time.Time{})
	if s.Records != 11 || !s.Since.Equal(at(0)) || !s.Until.Equal(at(10)) || s.Skipped != 0 {
		t.Fatalf("records %d since %v until %v skipped %d", s.Records, s.Since, s.Until, s.Skipped)
	}
	wantGate := []GateRow{{"Write", "locked", "deny", 2}, {"Bash", "shell", "allow", 1}, {"Write", "declared", "allow", 1}}
	if fmt.Sprint(s.Gate) != fmt.Sprint(wantGate) {
		t.Errorf("gate = %v, want %v", s.Gate, wantGate)
	}
	wantTools := []ToolRow{{"planq_search", 3, 1}, {"jj_init", 1, 0}}
	if fmt.Sprint(s.Tools) != fmt.Sprint(wantTools) {
		t.Errorf("tools = %v, want %v", s.Tools, wantTools)
	}
	if len(s.EmptySearches) != 2 || s.EmptySearches[0].Query != "flaky tests" || s.EmptySearches[0].Count != 2 || !s.EmptySearches[0].Last.Equal(at(10)) {
		t.Errorf("empty searches = %v", s.EmptySearches)
	}
	// since drops what came before it, and whole older day files.
	mustAppend(t, dir, Record{Time: at(-48 * 60), Kind: KindTool, Tool: "jj_new"})
	if s := summarize(t, dir, at(5)); s.Records != 6 || len(s.Gate) != 0 || s.Tools[0] != (ToolRow{"planq_search", 3, 1}) || !s.Since.Equal(at(5)) {
		t.Errorf("since at(5): %+v", s)
	}
	// The JSON names are the contract's.
	data, _ := json.Marshal(summarize(t, dir, time.Time{}))
	for _, k := range []string{`"since"`, `"until"`, `"records"`, `"gate"`, `"time_to_declare"`, `"p50_ns"`, `"tools"`, `"memory"`, `"empty_searches"`} {
		if !strings.Contains(string(data), k) {
			t.Errorf("summary JSON lacks %s: %s", k, data)
		}
	}
}

func TestGateEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	many := make([]string, 30)
	for i := range many {
		many[i] = fmt.Sprintf("dir/%s/file%d.txt", strings.Repeat("d", 300), i)
	}
	mustAppend(t, dir,
		Record{Time: at(0), Kind: KindEscapes, Tool: "jj_init"},
		Record{Time: at(1), Kind: KindEscapes, Tool: "planq start", Files: []string{"notes.txt"}, Count: 1},
		Record{Time: at(2), Kind: KindEscapes, Tool: "jj_init"},
		Record{Time: at(3), Kind: KindEscapes, Tool: "Bash", Session: "s1", Files: many, Count: len(many)},
	)
	s := summarize(t, dir, time.Time{})
	e := s.Escapes
	if e.Checks != 4 || e.Found != 2 || e.Files != 31 || len(e.Recent) != 2 {
		t.Fatalf("escapes = %+v, want 4 checks, 2 finding 31 files", e)
	}
	if r := e.Recent[0]; r.Tool != "Bash" || r.Session != "s1" || r.Count != 30 || len(r.Files) != maxFiles || len(r.Files[0]) > maxPath {
		t.Errorf("newest escape = %+v; want the Bash one, its first %d files cut to %d bytes", r, maxFiles, maxPath)
	}
	if r := e.Recent[1]; r.Tool != "planq start" || fmt.Sprint(r.Files) != "[notes.txt]" || !r.Time.Equal(at(1)) {
		t.Errorf("older escape = %+v", r)
	}
	data, _ := json.Marshal(s)
	for _, k := range []string{`"gate_escapes":{"checks":4,"found":2,"files":31,"recent":[`} {
		if !strings.Contains(string(data), k) {
			t.Errorf("summary JSON lacks %s: %s", k, data)
		}
	}
	// No check found anything: the count is zero, and says so in JSON.
	clean := t.TempDir()
	mustAppend(t, clean, Record{Time: at(0), Kind: KindEscapes, Tool: "jj_init"})
	data, _ = json.Marshal(summarize(t, clean, time.Time{}))
	if !strings.Contains(string(data), `"gate_escapes":{"checks":1,"found":0,"files":0,"recent":[]}`) {
		t.Errorf("clean summary JSON: %s", data)
	}
}

func TestTimeToDeclare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		recs []Record
		want Durations
	}{
		{"none", nil, Durations{}},
		{"gate sees it unlocked", []Record{
			{Time: at(0), Kind: KindStart, Session: "a"},
			{Time: at(3), Kind: KindGate, Session: "a", Rule: "locked", Verdict: "deny"},
			{Time: at(5), Kind: KindGate, Session: "a", Rule: "declared", Verdict: "allow", Declared: true},
			{Time: at(9), Kind: KindDeclared, Session: "a"},
		}, Durations{Count: 1, P50: 5 * time.Minute, P90: 5 * time.Minute, Max: 5 * time.Minute}},
		{"post-tool-use sees it first", []Record{
			{Time: at(0), Kind: KindStart, Session: "a"},
			{Time: at(2), Kind: KindDeclared, Session: "a"},
			{Time: at(4), Kind: KindGate, Session: "a", Declared: true},
		}, Durations{Count: 1, P50: 2 * time.Minute, P90: 2 * time.Minute, Max: 2 * time.Minute}},
		{"started declared: left out", []Record{
			{Time: at(0), Kind: KindStart, Session: "a", Declared: true},
			{Time: at(4), Kind: KindGate, Session: "a", Declared: true},
		}, Durations{}},
		{"resumed later: the first start counts", []Record{
			{Time: at(0), Kind: KindStart, Session: "a"},
			{Time: at(10), Kind: KindStart, Session: "a", Declared: true},
			{Time: at(10), Kind: KindGate, Session: "a", Declared: true},
		}, Durations{Count: 1, P50: 10 * time.Minute, P90: 10 * time.Minute, Max: 10 * time.Minute}},
		{"never declared", []Record{
			{Time: at(0), Kind: KindStart, Session: "a"},
			{Time: at(1), Kind: KindGate, Session: "a", Rule: "locked"},
		}, Durations{Undeclared: 1}},
		{"declared before the start is not this start's", []Record{
			{Time: at(0), Kind: KindDeclared, Session: "a"},
			{Time: at(1), Kind: KindStart, Session: "a"},
		}, Durations{Undeclared: 1}},
		{"no start record", []Record{{Time: at(1), Kind: KindDeclared, Session: "a"}}, Durations{}},
		{"percentiles", func() []Record {
			var rs []Record
			for i := 1; i <= 10; i++ {
				s := fmt.Sprint("s", i)
				rs = append(rs, Record{Time: at(0), Kind: KindStart, Session: s}, Record{Time: at(i), Kind: KindDeclared, Session: s})
			}
			return rs
		}(), Durations{Count: 10, P50: 5 * time.Minute, P90: 9 * time.Minute, Max: 10 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mustAppend(t, dir, tt.recs...)
			if got := summarize(t, dir, time.Time{}).Declare; got != tt.want {
				t.Fatalf("time to declare = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSurfacedAndCited(t *testing.T) {
	t.Parallel()
	learn := Entry{ID: "pq-0000aaaa", Kind: EntryLearning, Title: "The pager reads its config from XDG_CONFIG_HOME"}
	short := Entry{ID: "pq-0000bbbb", Kind: EntryDecision, Title: "Use RS256"}
	dec := Entry{ID: "pq-0000cccc", Kind: EntryDecision, Title: "Keep one metrics file per UTC day…"}
	tests := []struct {
		name string
		recs []Record
		want []MemoryRow
	}{
		{"surfaced, not cited", []Record{
			{Time: at(0), Kind: KindSurface, Where: WhereSessionStart, Entries: []Entry{learn, short}},
		}, []MemoryRow{{EntryLearning, WhereSessionStart, 1, 0}, {EntryDecision, WhereSessionStart, 1, 0}}},
		{"cited by id", []Record{
			{Time: at(0), Kind: KindSurface, Where: WhereSearch, Entries: []Entry{learn}},
			{Time: at(1), Kind: KindWrite, Tool: "jj_describe", Text: "Fix pager\n\nKey decisions:\n- per PQ-0000AAAA"},
		}, []MemoryRow{{EntryLearning, WhereSearch, 1, 1}}},
		{"cited by title, any case and spacing", []Record{
			{Time: at(0), Kind: KindSurface, Where: WhereContext, Entries: []Entry{learn}},
			{Time: at(1), Kind: KindWrite, Tool: "planq_log", Text: "remembered: the pager   reads its config\nfrom xdg_config_home, so I set it"},
		}, []MemoryRow{{EntryLearning, WhereContext, 1, 1}}},
		{"a cut title matches without its ellipsis", []Record{
			{Time: at(0), Kind: KindSurface, Where: WhereContext, Entries: []Entry{dec}},
			{Time: at(1), Kind: KindWrite, Tool: "jj_describe", Text: "We keep one metrics file per UTC day, as decided."},
		}, []MemoryRow{{EntryDecision, WhereContext, 1, 1}}},
		{"a short title is no citation", []Record{
			{Time: at(0), Kind: KindSurface, Where: WhereSearch, Entries: []Entry{short}},
			{Time: at(1), Kind: KindWrite, Tool: "jj_describe", Text: "Use RS256 for tokens"},
		}, []MemoryRow{{EntryDecision, WhereSearch, 1, 0}}},
		{"a write before the surfacing is no citation", []Record{
			{Time: at(0), Kind: KindWrite, Tool: "planq_learn", Text: learn.Title + " (" + learn.ID + ")"},
			{Time: at(1), Kind: KindSurface, Where: WhereSearch, Entries: []Entry{learn}},
		}, []MemoryRow{{EntryLearning, WhereSearch, 1, 0}}},
		{"distinct entries per place", []Record{
			{Time: at(0), Kind: KindSurface, Where: WhereSessionStart, Entries: []Entry{learn}},
			{Time: at(1), Kind: KindSurface, Where: WhereSessionStart, Entries: []Entry{learn}},
			{Time: at(2), Kind: KindWrite, Text: learn.ID},
			{Time: at(3), Kind: KindSurface, Where: WhereSearch, Entries: []Entry{learn}},
		}, []MemoryRow{{EntryLearning, WhereSessionStart, 1, 1}, {EntryLearning, WhereSearch, 1, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mustAppend(t, dir, tt.recs...)
			if got := summarize(t, dir, time.Time{}).Memory; fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("memory = %v, want %v", got, tt.want)
			}
		})
	}
}

// A line that is not one whole record is skipped, never fatal: garbage,
// a torn write, two records run together, a line longer than any record,
// a last line without its newline.
func TestReaderSkipsBadLines(t *testing.T) {
	t.Parallel()
	good := func(tool string) string {
		return fmt.Sprintf(`{"t":%q,"k":"tool","tool":%q}`, at(0).Format(time.RFC3339Nano), tool)
	}
	tests := []struct {
		name    string
		content string
		records int
		skipped int
	}{
		{"clean", good("a") + "\n" + good("b") + "\n", 2, 0},
		{"garbage", "not json\n" + good("a") + "\n\x00\x01\x02\n", 1, 2},
		{"torn", good("a")[:20] + "\n" + good("b") + "\n", 1, 1},
		{"run together", good("a") + good("b") + "\n" + good("c") + "\n", 1, 1},
		{"huge line", strings.Repeat("x", 5*MaxRecord) + "\n" + good("a") + "\n", 1, 1},
		{"huge last line", good("a") + "\n" + strings.Repeat("x", 5*MaxRecord), 1, 1},
		{"no kind or time", `{"t":"2025-03-10T09:00:00Z"}` + "\n" + `{"k":"tool"}` + "\n" + `[]` + "\n", 0, 3},
		{"no final newline", good("a") + "\n" + good("b"), 1, 1},
		{"blank lines", "\n\n" + good("a") + "\n\n", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "2025-03-10.jsonl"), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			// Files that are not day files are not read.
			os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte("junk\n"), 0o600)
			s := summarize(t, dir, time.Time{})
			if s.Records != tt.records || s.Skipped != tt.skipped {
				t.Fatalf("records %d skipped %d, want %d and %d", s.Records, s.Skipped, tt.records, tt.skipped)
			}
		})
	}
}

// Every record is one line within MaxRecord bytes, however long its text;
// many entries are split over records; each goes to its UTC day's file.
func TestAppendBoundsAndDays(t *testing.T) {
	t.Parallel()
	long := strings.Repeat(`<"quoted">\ `, 2000)
	var many []Entry
	for i := range 25 {
		many = append(many, Entry{ID: fmt.Sprintf("pq-%08x", i), Kind: EntryLearning, Title: long})
	}
	dir := t.TempDir()
	late := time.Date(2025, 3, 10, 23, 59, 59, 0, time.FixedZone("X", -5*3600)) // 2025-03-11 in UTC
	mustAppend(t, dir,
		Record{Time: at(0), Kind: KindWrite, Text: long},
		Record{Time: at(0), Kind: KindEmptySearch, Query: long},
		Record{Time: at(0), Kind: KindSurface, Where: WhereSearch, Entries: many},
		Record{Time: late, Kind: KindTool, Tool: strings.Repeat("t", 1000)},
	)
	data, err := os.ReadFile(filepath.Join(dir, "2025-03-10.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 5 { // write, search, 25 entries in 3 records
		t.Fatalf("%d lines, want 5", len(lines))
	}
	for _, l := range lines {
		if len(l)+1 > MaxRecord {
			t.Errorf("a line of %d bytes", len(l)+1)
		}
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Errorf("line %q: %v", l[:40], err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "2025-03-11.jsonl")); err != nil {
		t.Errorf("the late record is not in its UTC day's file: %v", err)
	}
	s := summarize(t, dir, time.Time{})
	if len(s.Memory) != 1 || s.Memory[0].Surfaced != 25 || s.Records != 6 {
		t.Errorf("summary %+v", s)
	}
	sub := filepath.Join(dir, "new", "proj")
	mustAppend(t, sub, Record{Kind: KindTool, Tool: "jj_init"})
	if fi, err := os.Stat(sub); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("new metrics dir: %v %v, want mode 0700", fi, err)
	}
}

// Concurrent appenders (one open file each, as hook processes have) lose
// and tear nothing.
func TestConcurrentAppends(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const writers, each = 8, 150
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := Append(dir, Record{Time: at(0), Kind: KindWrite, Tool: fmt.Sprint("w", w), Text: strings.Repeat(fmt.Sprint(i), 1000)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if s := summarize(t, dir, time.Time{}); s.Records != writers*each || s.Skipped != 0 {
		t.Fatalf("records %d, skipped %d; want %d and 0", s.Records, s.Skipped, writers*each)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	days := []string{"2025-01-01", "2025-03-08", "2025-03-09", "2025-03-10"}
	tests := []struct {
		name   string
		before time.Time
		want   []string
	}{
		{"nothing old", time.Date(2025, 1, 1, 23, 0, 0, 0, time.UTC), nil},
		{"a day ends at midnight", time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), []string{"2025-01-01"}},
		{"partial days stay", time.Date(2025, 3, 9, 12, 0, 0, 0, time.UTC), []string{"2025-01-01", "2025-03-08"}},
		{"all", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), days},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range days {
				os.WriteFile(filepath.Join(dir, d+".jsonl"), []byte("{}\n"), 0o600)
			}
			os.WriteFile(filepath.Join(dir, "keep.txt"), nil, 0o600)
			old, err := OldFiles(dir, tt.before)
			if err != nil {
				t.Fatal(err)
			}
			removed, err := Prune(dir, tt.before)
			if err != nil || fmt.Sprint(removed) != fmt.Sprint(old) {
				t.Fatalf("Prune = %v, %v; OldFiles said %v", removed, err, old)
			}
			var names []string
			for _, p := range removed {
				names = append(names, strings.TrimSuffix(filepath.Base(p), ".jsonl"))
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.want) {
				t.Fatalf("removed %v, want %v", names, tt.want)
			}
			left, _ := os.ReadDir(dir)
			if len(left) != len(days)-len(tt.want)+1 {
				t.Errorf("%d files left", len(left))
			}
		})
	}
	if got, err := Prune(filepath.Join(t.TempDir(), "missing"), time.Now()); err != nil || got != nil {
		t.Errorf("Prune of a missing dir = %v, %v", got, err)
	}
}

func TestParseSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 10, 15, 30, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		err  string
	}{
		{"7d", now.Add(-7 * 24 * time.Hour), ""},
		{"24h", now.Add(-24 * time.Hour), ""},
		{"90m", now.Add(-90 * time.Minute), ""},
		{"1d12h", now.Add(-36 * time.Hour), ""},
		{" 2025-03-01 ", time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), ""},
		{"0d", time.Time{}, "positive"},
		{"-3h", time.Time{}, "positive"},
		{"yesterday", time.Time{}, "neither a duration"},
		{"7 days", time.Time{}, "neither a duration"},
		{"2025-13-01", time.Time{}, "neither a duration"},
		{"", time.Time{}, "neither a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSince(tt.in, now)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseSince(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || !got.Equal(tt.want) {
				t.Fatalf("ParseSince(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}
