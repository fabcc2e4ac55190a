// Package changelog reads and writes planq's append-only Markdown logs: the
// agent's changelog.md, learnings.md and decisions.md, and the global branch's
// copies of them.
//
// One entry is YAML front matter between two "---" lines followed by a
// Markdown body:
//
//	---
//	id: pq-1a2b3c4d
//	timestamp: 2026-01-20T10:30:00Z
//	agent: add-auth
//	type: implement
//	status: completed
//	---
//
//	## Implemented JWT token validation
//
//	Added ValidateToken() and wired it into the session middleware.
//
// Entry types are the six of the design (start, plan, implement, decision,
// handoff, end) plus "learning", which planq adds for planq_learn. Where
// things live, by convention of the state repo:
//
//   - changelog.md: start, plan, implement, end and handoff entries
//     (planq_log, planq_handoff; a handoff carries "to" and "next_steps").
//   - learnings.md: "learning" entries (planq_learn; the insight is the
//     body's first line, the optional context follows it).
//   - decisions.md: "decision" entries (planq_decide: fields decision,
//     alternatives, rationale; the body may add detail).
//
// Every file uses the same entry format, so one parser, one merge and one
// search index serve all of them. Files are only ever appended to (Append,
// AppendFile); promotion to the global branch and state pulls merge two
// versions of a file as the union of their entries (MergeFile), so git never
// sees a conflicting edit. The id is "pq-" plus 8 hex digits of a SHA-256 of
// the entry's serialisation without its id line, so the same entry written
// twice has the same id and is merged once.
//
// Parsing (Parse, Scanner) tolerates hand edits — text before and between
// entries, CRLF line ends, a missing final newline, "---" inside a fenced code
// block — and reports a malformed entry as a Problem with its line instead of
// failing the file. Front matter in the canonical form this package writes is
// read by a fast line parser; anything else (comments, block lists, multi-line
// strings) goes to gopkg.in/yaml.v3. Body structure (title, list items, plain
// text) comes from goldmark (Outline, PlainText).
package changelog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Type is the kind of a changelog entry.
type Type string

// The entry types. The first six are the design's; TypeLearning is planq's
// addition for planq_learn.
const (
	TypeStart     Type = "start"     // beginning of an agent session
	TypePlan      Type = "plan"      // design and approach
	TypeImplement Type = "implement" // coding work
	TypeDecision  Type = "decision"  // why approach X was chosen (decisions.md)
	TypeHandoff   Type = "handoff"   // context for another agent to continue
	TypeEnd       Type = "end"       // completion of a work segment
	TypeLearning  Type = "learning"  // an insight worth keeping (learnings.md)
)

// AllTypes returns every valid Type in documentation order (e.g. for a tool
// schema's enum).
func AllTypes() []Type {
	return []Type{TypeStart, TypePlan, TypeImplement, TypeDecision, TypeHandoff, TypeEnd, TypeLearning}
}

// Valid reports whether t is one of AllTypes.
func (t Type) Valid() bool {
	for _, v := range AllTypes() {
		if t == v {
			return true
		}
	}
	return false
}

// Status is the progress state an entry reports.
type Status string

// The entry statuses; the empty Status means "not stated".
const (
	StatusPending    Status = "pending"
	StatusInProgress Status = "in_progress"
	StatusCompleted  Status = "completed"
	StatusBlocked    Status = "blocked"
)

// AllStatuses returns every valid non-empty Status.
func AllStatuses() []Status {
	return []Status{StatusPending, StatusInProgress, StatusCompleted, StatusBlocked}
}

// Valid reports whether s is empty or one of AllStatuses.
func (s Status) Valid() bool {
	if s == "" {
		return true
	}
	for _, v := range AllStatuses() {
		if s == v {
			return true
		}
	}
	return false
}

// MaxBodySize is the largest body, in bytes, that Append accepts (64 KiB).
const MaxBodySize = 64 << 10

// Errors returned by Validate and Append; the returned error wraps one of
// these and names the offending value.
var (
	ErrInvalid      = errors.New("invalid changelog entry")
	ErrBodyTooLarge = errors.New("changelog entry body too large")
)

// Entry is one changelog entry: front matter fields plus a Markdown body.
type Entry struct {
	ID           string    `json:"id"`                     // "pq-" + 8 hex; computed by Append when empty
	Timestamp    time.Time `json:"timestamp"`              // when it happened; Append fills time.Now() when zero
	Agent        string    `json:"agent"`                  // agent (workspace) name
	Type         Type      `json:"type"`                   // one of Types
	Parent       string    `json:"parent,omitempty"`       // previous entry by the same agent
	DependsOn    []string  `json:"depends_on,omitempty"`   // ids of entries this one depends on
	Decision     string    `json:"decision,omitempty"`     // for decisions: what was chosen
	Alternatives []string  `json:"alternatives,omitempty"` // for decisions: what was considered instead
	Rationale    string    `json:"rationale,omitempty"`    // for decisions: why
	To           string    `json:"to,omitempty"`           // for handoffs: the agent meant to continue
	NextSteps    []string  `json:"next_steps,omitempty"`   // for handoffs: what is left to do
	Status       Status    `json:"status,omitempty"`       // progress, or empty
	Body         string    `json:"body"`                   // Markdown, without surrounding blank lines
	Line         int       `json:"line,omitempty"`         // 1-based line of the opening "---" when parsed; 0 otherwise

	start, end int64 // byte span in the parsed input, for MergeFile
}

// Problem is a malformed entry found by Parse; parsing went on after it.
type Problem struct {
	File    string `json:"file,omitempty"` // the file, when the caller knows it
	Line    int    `json:"line"`           // 1-based line of the entry's opening "---"
	Message string `json:"message"`        // what is wrong, in one line
}

// Error formats the problem as "file:N: message", or "line N: message"
// without a file.
func (p Problem) Error() string {
	switch {
	case p.File != "" && p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	case p.File != "":
		return fmt.Sprintf("%s: %s", p.File, p.Message)
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Message)
}

// Validate checks e as Append would before writing it: known type and
// status, a name-like agent, a timestamp, a valid id when set, a body within
// MaxBodySize that cannot be mistaken for the start of another entry.
func Validate(e Entry) error {
	if !e.Type.Valid() {
		return fmt.Errorf("%w: unknown type %q (want one of %s)", ErrInvalid, e.Type, joinTypes())
	}
	if !e.Status.Valid() {
		return fmt.Errorf("%w: unknown status %q (want one of pending, in_progress, completed, blocked)", ErrInvalid, e.Status)
	}
	if y := e.Timestamp.UTC().Year(); !e.Timestamp.IsZero() && (y < 0 || y > 9999) {
		return fmt.Errorf("%w: timestamp year %d is outside 0000-9999", ErrInvalid, y)
	}
	if strings.TrimSpace(e.Agent) == "" {
		return fmt.Errorf("%w: agent is empty", ErrInvalid)
	}
	if err := checkField("agent", e.Agent); err != nil {
		return err
	}
	if e.ID != "" && !ValidID(e.ID) {
		return fmt.Errorf("%w: id %q is not pq- followed by 8 lowercase hex digits", ErrInvalid, e.ID)
	}
	if e.Parent != "" && !ValidID(e.Parent) {
		return fmt.Errorf("%w: parent %q is not an entry id (pq-xxxxxxxx)", ErrInvalid, e.Parent)
	}
	for _, d := range e.DependsOn {
		if !ValidID(d) {
			return fmt.Errorf("%w: depends_on %q is not an entry id (pq-xxxxxxxx)", ErrInvalid, d)
		}
	}
	for _, f := range [...]struct{ name, v string }{{"decision", e.Decision}, {"rationale", e.Rationale}, {"to", e.To}} {
		if err := checkField(f.name, f.v); err != nil {
			return err
		}
	}
	for _, list := range [][]string{e.Alternatives, e.NextSteps} {
		for _, v := range list {
			if err := checkField("list item", v); err != nil {
				return err
			}
		}
	}
	if len(e.Body) > MaxBodySize {
		return fmt.Errorf("%w: %d bytes, the limit is %d; shorten it or cut it with changelog.Truncate", ErrBodyTooLarge, len(e.Body), MaxBodySize)
	}
	if !utf8.ValidString(e.Body) {
		return fmt.Errorf("%w: body is not valid UTF-8", ErrInvalid)
	}
	if i := strings.IndexByte(e.Body, 0); i >= 0 {
		return fmt.Errorf("%w: body contains a NUL byte (at byte %d), which would make git treat the whole log as binary; remove it", ErrInvalid, i)
	}
	if n := headerLikeLine(normBody(e.Body)); n > 0 {
		return fmt.Errorf("%w: body line %d is a \"---\" line followed by a front-matter key, which would start a new entry; use *** for a rule or indent it", ErrInvalid, n)
	}
	return nil
}

func joinTypes() string {
	ts := AllTypes()
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

func checkField(name, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalid, name)
	}
	if len(v) > MaxBodySize {
		return fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrBodyTooLarge, name, len(v), MaxBodySize)
	}
	for _, r := range v {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return fmt.Errorf("%w: %s contains control character %U", ErrInvalid, name, r)
		}
	}
	return nil
}

// ValidID reports whether s has the form "pq-" followed by 8 lowercase hex digits.
func ValidID(s string) bool {
	if len(s) != 11 || s[:3] != "pq-" {
		return false
	}
	for i := 3; i < 11; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ComputeID returns the content-hash id of e: "pq-" plus the first 8 hex
// digits of the SHA-256 of e's serialisation without the id line. It ignores
// e.ID and e.Line.
func ComputeID(e Entry) string {
	e.ID = ""
	sum := sha256.Sum256(marshal(e))
	return "pq-" + hex.EncodeToString(sum[:4])
}

// Marshal returns the canonical serialisation of e after filling its id (if
// empty) and validating it: "---", the front matter in a fixed key order,
// "---", a blank line, the body and a final newline. The same entry always
// serialises to the same bytes.
func Marshal(e Entry) ([]byte, Entry, error) {
	if e.Timestamp.IsZero() {
		return nil, e, fmt.Errorf("%w: timestamp is not set", ErrInvalid)
	}
	if err := Validate(e); err != nil {
		return nil, e, err
	}
	e.Body = normBody(e.Body)
	if e.ID == "" {
		e.ID = ComputeID(e)
	}
	e.Line, e.start, e.end = 0, 0, 0
	return marshal(e), e, nil
}

// normBody makes a body canonical: LF line ends, no leading blank lines, no
// trailing white space.
func normBody(s string) string {
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	s = strings.TrimRight(s, " \t\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			break
		}
		s = s[i+1:]
	}
	return s
}

// marshal serialises e as is (no validation).
func marshal(e Entry) []byte {
	var b bytes.Buffer
	b.Grow(len(e.Body) + 256)
	b.WriteString("---\n")
	if e.ID != "" {
		b.WriteString("id: ")
		b.WriteString(e.ID)
		b.WriteByte('\n')
	}
	b.WriteString("timestamp: ") // RFC 3339 is a plain YAML scalar; yaml.v3 reads it back as the same text
	b.WriteString(e.Timestamp.UTC().Format(time.RFC3339Nano))
	b.WriteByte('\n')
	writeKV(&b, "agent", e.Agent)
	writeKV(&b, "type", string(e.Type))
	writeKV(&b, "parent", e.Parent)
	writeList(&b, "depends_on", e.DependsOn)
	writeKV(&b, "decision", e.Decision)
	writeList(&b, "alternatives", e.Alternatives)
	writeKV(&b, "rationale", e.Rationale)
	writeKV(&b, "to", e.To)
	writeList(&b, "next_steps", e.NextSteps)
	writeKV(&b, "status", string(e.Status))
	b.WriteString("---\n")
	if e.Body != "" {
		b.WriteByte('\n')
		b.WriteString(e.Body)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeKV(b *bytes.Buffer, k, v string) {
	if v == "" {
		return
	}
	b.WriteString(k)
	b.WriteString(": ")
	writeScalar(b, v, false)
	b.WriteByte('\n')
}

func writeList(b *bytes.Buffer, k string, vs []string) {
	if len(vs) == 0 {
		return
	}
	b.WriteString(k)
	b.WriteString(": [")
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeScalar(b, v, true)
	}
	b.WriteString("]\n")
}

// writeScalar writes v plain when YAML would read it back as the same string,
// double-quoted otherwise.
func writeScalar(b *bytes.Buffer, v string, flow bool) {
	if plainSafe(v, flow) {
		b.WriteString(v)
		return
	}
	b.WriteByte('"')
	for _, r := range v {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff || r == utf8.RuneError {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// plainSafe reports whether v can be written as a plain YAML scalar that
// reads back as the string v. It is deliberately conservative.
func plainSafe(v string, flow bool) bool {
	if v == "" || v[0] == ' ' || v[len(v)-1] == ' ' {
		return false
	}
	switch v[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '.', '+', '~', '=', '<':
		return false
	}
	if c := v[0]; c >= '0' && c <= '9' {
		return false // numbers, dates, times
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null":
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x20 || c >= 0x7f {
			return false // keep plain ASCII-printable only; the rest is quoted
		}
		switch c {
		case ':':
			if i+1 == len(v) || v[i+1] == ' ' {
				return false
			}
		case '#':
			if v[i-1] == ' ' {
				return false
			}
		case ',', '[', ']', '{', '}':
			if flow {
				return false
			}
		case '"', '\'', '\\':
			return false
		}
	}
	return true
}
