package changelog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// maxFrontMatterLines bounds how far the parser looks for the closing "---"
// of an entry's front matter.
const maxFrontMatterLines = 200

// line is one input line without its line end.
type line struct {
	b   []byte // content without "\n" and a trailing "\r"
	n   int    // 1-based line number
	off int64  // byte offset of the line's start
}

// lineSource yields lines in order; ok is false at the end of input.
type lineSource interface {
	next() (l line, ok bool)
	size() int64 // bytes consumed so far (the end offset once next returned false)
	err() error
}

// bytesSource reads lines from memory without copying.
type bytesSource struct {
	data []byte
	pos  int
	n    int
}

func (s *bytesSource) next() (line, bool) {
	if s.pos >= len(s.data) {
		return line{}, false
	}
	start := s.pos
	rest := s.data[start:]
	i := bytes.IndexByte(rest, '\n')
	var b []byte
	if i < 0 {
		b = rest
		s.pos = len(s.data)
	} else {
		b = rest[:i]
		s.pos = start + i + 1
	}
	s.n++
	return line{b: trimCR(b), n: s.n, off: int64(start)}, true
}

func (s *bytesSource) size() int64 { return int64(s.pos) }
func (s *bytesSource) err() error  { return nil }

// readerSource reads lines from a stream, copying them into append-only
// chunks so that earlier lines stay valid while they are needed.
type readerSource struct {
	r     *bufio.Reader
	chunk []byte
	pos   int64
	n     int
	e     error
	long  []byte
}

const chunkSize = 64 << 10

func (s *readerSource) next() (line, bool) {
	if s.e != nil {
		return line{}, false
	}
	b, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = s.r.ReadSlice('\n')
			s.long = append(s.long, b...)
		}
		b = s.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		s.e = err
		return line{}, false
	}
	if len(b) == 0 {
		s.e = io.EOF
		return line{}, false
	}
	start := s.pos
	s.pos += int64(len(b))
	s.n++
	c := s.keep(bytes.TrimSuffix(b, []byte("\n")))
	return line{b: trimCR(c), n: s.n, off: start}, true
}

// keep copies b into the current chunk, starting a new one when it is full.
func (s *readerSource) keep(b []byte) []byte {
	if len(b) > chunkSize/4 {
		return append([]byte(nil), b...)
	}
	if cap(s.chunk)-len(s.chunk) < len(b) {
		s.chunk = make([]byte, 0, chunkSize)
	}
	i := len(s.chunk)
	s.chunk = append(s.chunk, b...)
	return s.chunk[i:len(s.chunk):len(s.chunk)]
}

func (s *readerSource) size() int64 { return s.pos }

func (s *readerSource) err() error {
	if errors.Is(s.e, io.EOF) {
		return nil
	}
	return s.e
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// Scanner reads entries one at a time from a stream, so a caller can process
// a large file without holding all of it; see Parse for the format rules.
type Scanner struct {
	src      lineSource
	data     string // the whole input when parsing from memory ("" otherwise)
	queue    []line // lines to read again (look-ahead and replays)
	problems []Problem
	cur      Entry

	open       bool // an entry's body is being collected
	entry      Entry
	body       []byte // body lines when reading a stream
	bodyStart  int64  // offset of the body's first line
	hasPending bool   // pending holds an entry's opening "---", front matter not read yet
	pending    line
	fence      fence
	first      bool     // no line read yet (for a byte-order mark)
	fm         []line   // front matter lines, reused
	fmb        [][]byte // the same as byte slices, reused
	intern     map[string]string
}

// NewScanner returns a Scanner reading from r.
func NewScanner(r io.Reader) *Scanner {
	return &Scanner{src: &readerSource{r: bufio.NewReaderSize(r, 64<<10)}, first: true}
}

func newBytesScanner(data []byte) *Scanner {
	return &Scanner{src: &bytesSource{data: data}, data: string(data), first: true}
}

// Entry returns the entry found by the last successful Scan.
func (s *Scanner) Entry() Entry { return s.cur }

// Problems returns the malformed entries seen so far.
func (s *Scanner) Problems() []Problem { return s.problems }

// Err returns the reader's error, if any; parse problems are not errors.
func (s *Scanner) Err() error { return s.src.err() }

func (s *Scanner) next() (line, bool) {
	if len(s.queue) > 0 {
		l := s.queue[0]
		s.queue = s.queue[1:]
		return l, true
	}
	l, ok := s.src.next()
	if ok && s.first {
		s.first = false
		l.b = bytes.TrimPrefix(l.b, []byte("\xef\xbb\xbf"))
	}
	return l, ok
}

func (s *Scanner) peek() (line, bool) {
	if len(s.queue) > 0 {
		return s.queue[0], true
	}
	l, ok := s.next()
	if ok {
		s.queue = append(s.queue, l)
	}
	return l, ok
}

// Scan advances to the next well-formed entry, recording malformed ones as
// problems; it returns false at the end of input or on a read error.
func (s *Scanner) Scan() bool {
	for {
		if s.hasPending {
			s.hasPending = false
			s.fence = fence{}
			s.open = s.frontMatter(s.pending)
			s.body = s.body[:0]
			s.bodyStart = -1
			continue
		}
		l, ok := s.next()
		if !ok {
			if s.open {
				s.finish(s.src.size())
				return true
			}
			return false
		}
		if isDash(l.b) {
			if nx, ok := s.peek(); ok && startsEntry(nx.b, s.fence.inside()) {
				s.pending, s.hasPending = l, true
				if s.open {
					s.finish(l.off)
					return true
				}
				continue
			}
		}
		s.fence.update(l.b)
		if s.open {
			if s.bodyStart < 0 {
				s.bodyStart = l.off
			}
			if s.data == "" {
				s.body = append(s.body, l.b...)
				s.body = append(s.body, '\n')
			}
		}
	}
}

// finish completes the open entry, whose text ends at byte offset end.
func (s *Scanner) finish(end int64) {
	e := s.entry
	switch {
	case s.bodyStart < 0:
	case s.data != "":
		// In memory: the body is a substring of the input, unless it has
		// CR line ends to drop.
		e.Body = normBody(s.data[s.bodyStart:end])
	default:
		e.Body = normBody(string(s.body))
	}
	e.end = end
	if e.ID == "" {
		e.ID = ComputeID(e)
	}
	s.cur = e
	s.open = false
}

// frontMatter reads the front matter after the opening line st and starts an
// entry; on a problem it records it, puts the lines it read back for
// scanning, and reports false.
func (s *Scanner) frontMatter(st line) bool {
	fm := s.fm[:0]
	closed := false
	for len(fm) <= maxFrontMatterLines {
		l, ok := s.next()
		if !ok {
			break
		}
		fm = append(fm, l)
		if isDash(l.b) {
			closed = true
			break
		}
	}
	s.fm = fm
	fail := func(msg string) bool {
		s.problems = append(s.problems, Problem{Line: st.n, Message: msg})
		s.queue = append(slices.Clone(fm), s.queue...)
		return false
	}
	if !closed {
		if len(fm) > maxFrontMatterLines {
			return fail(fmt.Sprintf("front matter is not closed by a \"---\" line within %d lines", maxFrontMatterLines))
		}
		return fail("front matter is not closed by a \"---\" line before the end of the file")
	}
	lines := s.fmb[:0]
	for _, l := range fm[:len(fm)-1] {
		lines = append(lines, l.b)
	}
	s.fmb = lines
	if s.intern == nil {
		s.intern = map[string]string{}
	}
	e, err := parseFrontMatter(lines, s.intern)
	if err != nil {
		return fail(err.Error())
	}
	e.Line = st.n
	e.start = st.off
	s.entry = e
	return true
}

// Parse reads every entry from r. Malformed entries are returned as problems
// and skipped; the error is only for a failing reader.
//
// An entry starts at a line "---" whose next line begins with a front-matter
// key (id, timestamp, agent, type, parent, depends_on, decision, alternatives,
// rationale, to, next_steps, status) followed by ":"; inside a fenced code
// block only "id: pq-xxxxxxxx" counts, so examples in code blocks stay part of
// the body. The body runs to the next entry or the end of the file, so text a
// person adds after an entry belongs to it; text before the first entry is
// ignored. A missing id is computed from the content.
func Parse(r io.Reader) ([]Entry, []Problem, error) {
	s := NewScanner(r)
	var out []Entry
	for s.Scan() {
		out = append(out, s.Entry())
	}
	return out, s.Problems(), s.Err()
}

// ParseBytes is Parse over an in-memory file; it cannot fail. The bodies
// are substrings of one copy of data: a caller that keeps a few entries of a
// large file for long should strings.Clone their bodies.
func ParseBytes(data []byte) ([]Entry, []Problem) {
	s := newBytesScanner(data)
	out := make([]Entry, 0, bytes.Count(data, []byte("\n---\n"))/2+1)
	for s.Scan() {
		out = append(out, s.Entry())
	}
	return out, s.Problems()
}

// isDash reports whether b is a "---" line (trailing blanks allowed).
func isDash(b []byte) bool {
	if len(b) < 3 || b[0] != '-' || b[1] != '-' || b[2] != '-' {
		return false
	}
	for _, c := range b[3:] {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

var knownKeys = map[string]bool{
	"id": true, "timestamp": true, "agent": true, "type": true, "parent": true, "depends_on": true,
	"decision": true, "alternatives": true, "rationale": true, "to": true, "next_steps": true, "status": true,
}

// startsEntry reports whether b, the line after a "---" line, makes that line
// the start of an entry.
func startsEntry(b []byte, inFence bool) bool {
	if inFence {
		b = bytes.TrimRight(b, " \t")
		return len(b) == 15 && string(b[:4]) == "id: " && ValidID(string(b[4:]))
	}
	i := bytes.IndexByte(b, ':')
	if i <= 0 || i > 12 {
		return false
	}
	return knownKeys[string(b[:i])]
}

// fence tracks fenced code blocks (CommonMark): up to three spaces, then at
// least three backticks or tildes; closed by the same character, at least as
// many, and nothing else.
type fence struct {
	char byte
	n    int
}

func (f *fence) inside() bool { return f.n > 0 }

func (f *fence) update(b []byte) {
	i := 0
	for i < len(b) && i < 4 && b[i] == ' ' {
		i++
	}
	if i > 3 || i >= len(b) || (b[i] != '`' && b[i] != '~') {
		return
	}
	c := b[i]
	j := i
	for j < len(b) && b[j] == c {
		j++
	}
	n := j - i
	if n < 3 {
		return
	}
	rest := b[j:]
	if f.n > 0 {
		if c == f.char && n >= f.n && len(bytes.TrimRight(rest, " \t")) == 0 {
			*f = fence{}
		}
		return
	}
	if c == '`' && bytes.IndexByte(rest, '`') >= 0 {
		return
	}
	*f = fence{char: c, n: n}
}

// headerLikeLine returns the 1-based line of body at which Parse would start
// a new entry, or 0.
func headerLikeLine(body string) int {
	var f fence
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		b := []byte(l)
		if isDash(b) && i+1 < len(lines) && startsEntry([]byte(lines[i+1]), f.inside()) {
			return i + 1
		}
		f.update(b)
	}
	return 0
}

// finishEntry validates the parsed fields common to both front matter paths.
func finishEntry(r *rawEntry) (Entry, error) {
	e := Entry{
		ID: r.ID, Agent: r.Agent, Type: Type(r.Type), Parent: r.Parent, DependsOn: r.DependsOn,
		Decision: r.Decision, Alternatives: r.Alternatives, Rationale: r.Rationale, To: r.To,
		NextSteps: r.NextSteps, Status: Status(r.Status),
	}
	if r.Type == "" {
		return e, errors.New("front matter has no type")
	}
	if !e.Type.Valid() {
		return e, fmt.Errorf("unknown type %q (want one of %s)", r.Type, joinTypes())
	}
	if !e.Status.Valid() {
		return e, fmt.Errorf("unknown status %q (want one of pending, in_progress, completed, blocked)", r.Status)
	}
	if r.Agent == "" {
		return e, errors.New("front matter has no agent")
	}
	if r.hasTS {
		e.Timestamp = r.ts
	} else {
		if r.Timestamp == "" {
			return e, errors.New("front matter has no timestamp")
		}
		ts, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		if err != nil {
			return e, fmt.Errorf("timestamp %q is not RFC 3339 (like 2026-01-20T10:30:00Z)", r.Timestamp)
		}
		e.Timestamp = ts
	}
	if e.ID != "" && !ValidID(e.ID) {
		return e, fmt.Errorf("id %q is not pq- followed by 8 lowercase hex digits", e.ID)
	}
	return e, nil
}
