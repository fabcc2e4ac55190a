package changelog

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

var t0 = time.Date(2026, 1, 20, 10, 30, 0, 0, time.UTC)

// same reports whether two entries carry the same data (ignoring parse
// positions and empty-vs-nil lists).
func same(a, b Entry) bool {
	norm := func(e Entry) Entry {
		e.Line, e.start, e.end = 0, 0, 0
		e.Timestamp = e.Timestamp.UTC()
		for _, l := range []*[]string{&e.DependsOn, &e.Alternatives, &e.NextSteps} {
			if len(*l) == 0 {
				*l = nil
			}
		}
		return e
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

func TestAppendParseRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    Entry
	}{
		{"log", Entry{Timestamp: t0, Agent: "add-auth", Type: TypeImplement, Status: StatusCompleted,
			Body: "## Implemented JWT token validation\n\nAdded `ValidateToken()`."}},
		{"decision with awkward values", Entry{Timestamp: t0.Add(time.Second), Agent: "add-auth", Type: TypeDecision,
			Decision: "Use JWT: RS256", Alternatives: []string{"HS256", "Session-based, stateful", `"quoted"`, "yes", "123", "naïve"},
			Rationale: "RS256 allows public key verification\nand # is fine", Parent: "pq-0123abcd", DependsOn: []string{"pq-00000000", "pq-ffffffff"}}},
		{"handoff", Entry{Timestamp: t0.Add(time.Minute), Agent: "api", Type: TypeHandoff, To: "tests",
			NextSteps: []string{"write API tests", "check [edge] cases"}, Body: "Continue with the API tests."}},
		{"learning with nanoseconds and unicode agent", Entry{Timestamp: t0.Add(123456789), Agent: "café-ñ", Type: TypeLearning,
			Body: "Always check token expiry before validation.\n\nContext: the auth bug in 日本語 names."}},
		{"empty body", Entry{Timestamp: t0, Agent: "a", Type: TypeStart}},
		{"body with fenced front matter and CRLF", Entry{Timestamp: t0, Agent: "a", Type: TypePlan,
			Body: "Format:\r\n\r\n```yaml\r\n---\r\nid: bd-1\r\ntype: x\r\n---\r\n```\r\n\r\n---\r\n\r\nafter a rule"}},
	}
	var buf bytes.Buffer
	var written []Entry
	for _, tt := range tests {
		e, err := Append(&buf, tt.e)
		if err != nil {
			t.Fatalf("%s: Append: %v", tt.name, err)
		}
		if !ValidID(e.ID) || e.ID != ComputeID(e) {
			t.Errorf("%s: id %q is not the content hash %q", tt.name, e.ID, ComputeID(e))
		}
		written = append(written, e)
	}
	if !strings.HasPrefix(buf.String(), "---\nid: pq-") || !strings.Contains(buf.String(), "\ntimestamp: 2026-01-20T10:30:00Z\nagent: add-auth\ntype: implement\nstatus: completed\n---\n\n## Implemented") {
		t.Errorf("serialisation is not the documented plain form:\n%s", buf.String())
	}
	got, problems := ParseBytes(buf.Bytes())
	if len(problems) != 0 {
		t.Fatalf("problems: %v\n%s", problems, buf.String())
	}
	if len(got) != len(written) {
		t.Fatalf("parsed %d entries, wrote %d\n%s", len(got), len(written), buf.String())
	}
	for i := range got {
		if !same(got[i], written[i]) {
			t.Errorf("%s: round trip changed the entry:\n got %+v\nwant %+v", tests[i].name, got[i], written[i])
		}
		if ComputeID(got[i]) != got[i].ID {
			t.Errorf("%s: re-computed id differs after parsing", tests[i].name)
		}
	}
	// Serialisation is deterministic: the same entry gives the same bytes and id.
	b1, e1, _ := Marshal(tests[1].e)
	b2, e2, _ := Marshal(tests[1].e)
	if !bytes.Equal(b1, b2) || e1.ID != e2.ID {
		t.Error("Marshal is not deterministic")
	}
}

func TestAppendFileIsAppendOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "changelog.md")
	// A hand-written file without a final newline.
	hand := "# Changelog\n\nNotes by hand, no newline at the end"
	if err := os.WriteFile(path, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	var before []byte = []byte(hand)
	for i := range 5 {
		e := Entry{Timestamp: t0.Add(time.Duration(i) * time.Minute), Agent: "a", Type: TypeImplement, Body: "step " + string(rune('A'+i))}
		if _, err := AppendFile(path, e); err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(after, before) {
			t.Fatalf("append %d rewrote earlier bytes:\nbefore %q\nafter  %q", i, before, after)
		}
		before = after
	}
	es, problems := ParseBytes(before)
	if len(es) != 5 || len(problems) != 0 {
		t.Fatalf("got %d entries, problems %v:\n%s", len(es), problems, before)
	}
	if !strings.Contains(string(before), "no newline at the end\n\n---\n") {
		t.Errorf("entry not separated from hand-written text by a blank line:\n%s", before)
	}
}

func TestAppendRefusesBadEntries(t *testing.T) {
	t.Parallel()
	ok := Entry{Timestamp: t0, Agent: "a", Type: TypeLog()}
	tests := []struct {
		name   string
		edit   func(*Entry)
		target error
		msg    string
	}{
		{"unknown type", func(e *Entry) { e.Type = "idea" }, ErrInvalid, `unknown type "idea"`},
		{"unknown status", func(e *Entry) { e.Status = "done" }, ErrInvalid, `unknown status "done"`},
		{"empty agent", func(e *Entry) { e.Agent = " " }, ErrInvalid, "agent is empty"},
		{"bad parent", func(e *Entry) { e.Parent = "../x" }, ErrInvalid, "parent"},
		{"bad id", func(e *Entry) { e.ID = "pq-XYZ" }, ErrInvalid, "id"},
		{"control character", func(e *Entry) { e.Agent = "a\x1b[31m" }, ErrInvalid, "control character"},
		{"huge body", func(e *Entry) { e.Body = strings.Repeat("x", MaxBodySize+1) }, ErrBodyTooLarge, "limit is 65536"},
		{"body that would start an entry", func(e *Entry) { e.Body = "text\n\n---\ntype: end\n---\n" }, ErrInvalid, "body line 3"},
		{"invalid utf-8", func(e *Entry) { e.Body = "\xff\xfe" }, ErrInvalid, "UTF-8"},
		{"NUL byte", func(e *Entry) { e.Body = "before\x00after" }, ErrInvalid, "NUL byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "changelog.md")
			e := ok
			tt.edit(&e)
			_, err := AppendFile(path, e)
			if !errors.Is(err, tt.target) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tt.target, tt.msg)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
				t.Error("a refused entry still created the file")
			}
		})
	}
}

// TypeLog is a helper for a valid default type.
func TypeLog() Type { return TypeImplement }

const handEdited = "\ufeff# Changelog for add-auth\r\n" +
	"\r\n" +
	"Some notes a person wrote before the first entry.\r\n" +
	"---\r\n" +
	"id: pq-11111111\r\n" +
	"timestamp: 2026-01-20T10:00:00Z\r\n" +
	"agent: add-auth\r\n" +
	"type: start\r\n" +
	"---\r\n" +
	"\r\n" +
	"Started.\r\n" +
	"\n" +
	"```markdown\n" +
	"---\n" +
	"type: plan\n" +
	"---\n" +
	"```\n" +
	"\n" +
	"---\n" +
	"\n" +
	"Text after a thematic break stays in the body.\n" +
	"\n" +
	"---\n" +
	"timestamp: 2026-01-20T11:00:00+02:00\n" +
	"# a comment a person added\n" +
	"agent: add-auth\n" +
	"type: decision\n" +
	"tags: [hand, edited]\n" +
	"alternatives:\n" +
	"  - HS256\n" +
	"  - OAuth2\n" +
	"rationale: >\n" +
	"  folded\n" +
	"  text\n" +
	"---\n" +
	"No id: it is computed.\n" +
	"\n" +
	"A line a person appended later.\n" +
	"---\n" +
	"id: pq-33333333\n" +
	"timestamp: 2026-01-20T12:00:00Z\n" +
	"agent: add-auth\n" +
	"type: end\n" +
	"status: completed\n" +
	"---\n" +
	"Done, no newline at the end"

func TestParseToleratesHandEdits(t *testing.T) {
	t.Parallel()
	es, problems := ParseBytes([]byte(handEdited))
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if len(es) != 3 {
		t.Fatalf("got %d entries, want 3: %+v", len(es), es)
	}
	if es[0].ID != "pq-11111111" || es[0].Line != 4 {
		t.Errorf("first entry: id %q line %d, want pq-11111111 at line 4", es[0].ID, es[0].Line)
	}
	for _, want := range []string{"Started.", "```markdown\n---\ntype: plan\n---\n```", "Text after a thematic break stays in the body."} {
		if !strings.Contains(es[0].Body, want) {
			t.Errorf("first body lacks %q:\n%s", want, es[0].Body)
		}
	}
	d := es[1]
	if d.Type != TypeDecision || !reflect.DeepEqual(d.Alternatives, []string{"HS256", "OAuth2"}) || d.Rationale != "folded text" {
		t.Errorf("decision parsed wrong: %+v", d)
	}
	if !d.Timestamp.Equal(time.Date(2026, 1, 20, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("timestamp with offset: %v", d.Timestamp)
	}
	if d.ID != ComputeID(d) || !strings.Contains(d.Body, "A line a person appended later.") {
		t.Errorf("decision id %q (want computed %q), body %q", d.ID, ComputeID(d), d.Body)
	}
	if es[2].Body != "Done, no newline at the end" || es[2].Status != StatusCompleted {
		t.Errorf("last entry: %+v", es[2])
	}
}

func TestParseReportsMalformedEntriesAndGoesOn(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		"---", // 1: unknown type
		"id: pq-aaaaaaaa",
		"timestamp: 2026-01-20T10:00:00Z",
		"agent: a",
		"type: idea",
		"---",
		"body 1",
		"---", // 8: good
		"id: pq-bbbbbbbb",
		"timestamp: 2026-01-20T10:01:00Z",
		"agent: a",
		"type: plan",
		"---",
		"body 2",
		"---", // 15: not closed: the next entry's opening must still count
		"id: pq-cccccccc",
		"timestamp: 2026-01-20T10:02:00Z",
		"agent: a",
		"type: plan",
		"",
		"body 3 without a closing line",
		"---", // 22: bad YAML
		"id: pq-dddddddd",
		"timestamp: [unclosed",
		"---",
		"body 4",
		"---", // 27: bad timestamp
		"timestamp: yesterday",
		"agent: a",
		"type: end",
		"---",
		"---", // 32: good
		"id: pq-eeeeeeee",
		"timestamp: 2026-01-20T10:05:00Z",
		"agent: a",
		"type: end",
		"---",
		"body 6",
	}, "\n")
	es, problems := ParseBytes([]byte(in))
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	if !reflect.DeepEqual(ids, []string{"pq-bbbbbbbb", "pq-eeeeeeee"}) {
		t.Errorf("entries %v, want pq-bbbbbbbb and pq-eeeeeeee", ids)
	}
	want := []struct {
		line int
		msg  string
	}{
		{1, `unknown type "idea"`},
		{15, "not valid YAML"},
		{22, "not valid YAML"},
		{27, `timestamp "yesterday" is not RFC 3339`},
	}
	if len(problems) != len(want) {
		t.Fatalf("problems %v, want %d", problems, len(want))
	}
	for i, w := range want {
		if problems[i].Line != w.line || !strings.Contains(problems[i].Message, w.msg) {
			t.Errorf("problem %d = %v, want line %d mentioning %q", i, problems[i], w.line, w.msg)
		}
	}
	if es[0].Body != "body 2" {
		t.Errorf("body of the entry after a malformed one: %q", es[0].Body)
	}
}

func TestParseUnclosedAtEOF(t *testing.T) {
	t.Parallel()
	in := "---\nid: pq-bbbbbbbb\ntimestamp: 2026-01-20T10:01:00Z\nagent: a\ntype: plan\n"
	es, problems := ParseBytes([]byte(in))
	if len(es) != 0 || len(problems) != 1 || problems[0].Line != 1 || !strings.Contains(problems[0].Message, "not closed") {
		t.Errorf("entries %v problems %v", es, problems)
	}
}

func TestScannerStreamsLikeParseBytes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	long := strings.Repeat("long line ", 20000) // 200 KB on one line
	for i := range 50 {
		body := "entry body"
		if i == 7 {
			body = long
		}
		if _, err := Append(&buf, Entry{Timestamp: t0.Add(time.Duration(i) * time.Second), Agent: "a", Type: TypeImplement, Body: body[:min(len(body), MaxBodySize)]}); err != nil {
			t.Fatal(err)
		}
	}
	data := append([]byte(handEdited+"\n"), buf.Bytes()...)
	want, wantP := ParseBytes(data)
	got, gotP, err := Parse(iotest.HalfReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) != 53 || !reflect.DeepEqual(gotP, wantP) {
		t.Fatalf("streamed %d entries %v, in memory %d %v", len(got), gotP, len(want), wantP)
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("entry %d differs:\n%+v\n%+v", i, got[i], want[i])
		}
	}
	_, _, err = Parse(iotest.ErrReader(errors.New("disk gone")))
	if err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("read error not returned: %v", err)
	}
}

func mk(agent string, minute int, body string) Entry {
	e := Entry{Timestamp: t0.Add(time.Duration(minute) * time.Minute), Agent: agent, Type: TypeLearning, Body: body}
	e.Body = normBody(e.Body)
	e.ID = ComputeID(e)
	return e
}

func TestUnion(t *testing.T) {
	t.Parallel()
	a := []Entry{mk("a", 3, "three"), mk("a", 1, "one")}
	edited := mk("a", 1, "one")
	edited.Body = "one, edited by hand" // same id, agent, time: the same entry
	collision := mk("b", 2, "two")
	collision.ID = a[0].ID // same id, different entry
	b := []Entry{edited, collision, mk("b", 0, "zero"), a[0]}
	u := Union(a, b)
	var got []string
	for _, e := range u {
		got = append(got, e.Body)
	}
	want := []string{"zero", "one", "two", "three"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Union = %v, want %v", got, want)
	}
}

func TestMergeFile(t *testing.T) {
	t.Parallel()
	var global, agent bytes.Buffer
	global.WriteString("# Learnings\n\nkept by hand\n")
	shared := []Entry{mk("a", 1, "one"), mk("a", 2, "two")}
	for _, e := range shared {
		Append(&global, e)
		Append(&agent, e)
	}
	Append(&global, mk("b", 5, "five, from another agent"))
	Append(&agent, mk("a", 4, "four"))
	Append(&agent, mk("a", 3, "three"))
	agent.WriteString("---\nid: pq-00000000\ntype: nope\n---\nbroken\n")

	merged, added, problems := MergeFile(global.Bytes(), agent.Bytes())
	if !bytes.HasPrefix(merged, global.Bytes()) {
		t.Fatal("merge changed the base bytes")
	}
	if len(added) != 2 || added[0].Body != "three" || added[1].Body != "four" {
		t.Errorf("added %+v, want three then four", added)
	}
	if len(problems) != 1 {
		t.Errorf("problems %v, want the broken entry", problems)
	}
	es, p := ParseBytes(merged)
	if len(p) != 0 || len(es) != 5 {
		t.Fatalf("merged file has %d entries, problems %v:\n%s", len(es), p, merged)
	}
	if strings.Contains(string(merged), "broken") {
		t.Error("a malformed entry was promoted")
	}
	// Promoting again adds nothing and leaves the bytes alone.
	again, added2, _ := MergeFile(merged, agent.Bytes())
	if !bytes.Equal(again, merged) || len(added2) != 0 {
		t.Errorf("second merge added %d entries", len(added2))
	}
	// Merging into an empty file copies the good entries.
	fresh, added3, _ := MergeFile(nil, agent.Bytes())
	if es, _ := ParseBytes(fresh); len(es) != 4 || len(added3) != 4 {
		t.Errorf("merge into empty: %d entries", len(es))
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line of text\n", 10000)
	fenced := "intro\n```go\n" + strings.Repeat("x := 1\n", 20000)
	tests := []struct {
		name, body string
		max        int
	}{
		{"short stays", "short\nbody", 100},
		{"long", long, 1000},
		{"open fence gets closed", fenced, 2000},
		{"one huge line", strings.Repeat("ü", 5000), 500},
		{"tiny max", long, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.body, tt.max)
			if len(got) > tt.max && len(tt.body) > tt.max {
				t.Fatalf("len %d > max %d", len(got), tt.max)
			}
			if len(tt.body) <= tt.max {
				if got != tt.body {
					t.Error("a body within the limit was changed")
				}
				return
			}
			if tt.max >= 100 {
				if !strings.Contains(got, "[… truncated by planq: kept ") {
					t.Errorf("no marker: %q", got[max(0, len(got)-80):])
				}
				if err := Validate(Entry{Timestamp: t0, Agent: "a", Type: TypeImplement, Body: got}); err != nil {
					t.Errorf("truncated body is not appendable: %v", err)
				}
				var f fence
				for _, l := range strings.Split(got, "\n") {
					f.update([]byte(l))
				}
				if f.inside() {
					t.Error("truncation left a code fence open")
				}
			}
		})
	}
}

func TestOutline(t *testing.T) {
	t.Parallel()
	body := "Intro paragraph\nsecond line\n\n## Next steps\n\n- write *tests*\n- ship [it](http://x)\n  1. nested\n\n```sh\nmake\n```\n"
	o := ParseOutline(body)
	if o.Title != "Next steps" {
		t.Errorf("title %q", o.Title)
	}
	if !reflect.DeepEqual(o.Items, []string{"write tests", "ship it", "nested"}) {
		t.Errorf("items %q", o.Items)
	}
	for _, w := range []string{"Intro paragraph\nsecond line", "write tests", "ship it", "make"} {
		if !strings.Contains(o.Text, w) {
			t.Errorf("plain text lacks %q: %q", w, o.Text)
		}
	}
	if strings.ContainsAny(o.Text, "*[]#`") {
		t.Errorf("plain text keeps Markdown syntax: %q", o.Text)
	}
	if got := ParseOutline("Just a paragraph\nover two lines").Title; got != "Just a paragraph" {
		t.Errorf("title without heading: %q", got)
	}
	if got := QuickTitle("\n\n## **Bold** title\nmore"); got != "Bold title" {
		t.Errorf("QuickTitle = %q", got)
	}
	if got := QuickTitle(strings.Repeat("word ", 100)); len(got) > maxTitle || !strings.HasSuffix(got, "…") {
		t.Errorf("long QuickTitle = %q", got)
	}
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	by := map[string][]Entry{
		"add-auth": {
			{ID: "pq-00000001", Timestamp: t0, Agent: "add-auth", Type: TypeStart},
			{ID: "pq-00000002", Timestamp: t0.Add(3 * time.Hour), Agent: "add-auth", Type: TypeEnd, Body: "## Auth | done"},
		},
		"fix-cli-help": {
			{ID: "pq-00000003", Timestamp: t0.Add(4 * time.Hour), Agent: "fix-cli-help", Type: TypeImplement, Status: StatusBlocked, Body: "waiting on review"},
			{ID: "pq-00000004", Timestamp: t0.Add(time.Hour), Agent: "fix-cli-help", Type: TypePlan},
		},
		"idle": nil,
	}
	s := Aggregate(by)
	s.Project = "my-project"
	if len(s.Agents) != 3 || s.Agents[0].Agent != "fix-cli-help" || s.Agents[1].Agent != "add-auth" {
		t.Fatalf("agents %+v", s.Agents)
	}
	if s.Agents[0].Status != StatusBlocked || s.Agents[1].Status != StatusCompleted || s.Agents[0].Entries != 2 {
		t.Errorf("status/count: %+v", s.Agents)
	}
	if !s.GeneratedAt.Equal(t0.Add(4*time.Hour)) || len(s.Recent) != 4 || s.Recent[0].ID != "pq-00000003" {
		t.Errorf("generated_at %v, recent %d", s.GeneratedAt, len(s.Recent))
	}
	md := s.Markdown()
	for _, w := range []string{
		"generated_at: 2026-01-20T14:30:00Z\nproject: my-project\nagents: [fix-cli-help, add-auth, idle]\n",
		"| fix-cli-help | blocked | 2026-01-20 14:30 UTC | 2 | waiting on review |",
		`| add-auth | completed | 2026-01-20 13:30 UTC | 2 | Auth \| done |`,
		"| idle | — | — | 0 |  |",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
	if md != Aggregate(by).withProject("my-project").Markdown() {
		t.Error("rendering is not deterministic")
	}
	if es, _ := ParseBytes([]byte(md)); len(es) != 0 {
		t.Errorf("the session changelog parses as %d entries", len(es))
	}
}

func (s Summary) withProject(p string) Summary { s.Project = p; return s }
