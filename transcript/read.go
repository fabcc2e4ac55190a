package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/planq-dev/planq/internal/text"
)

// Reading limits: what one Search or Range returns at most.
const (
	DefaultLimit = 50    // matches or lines when the caller gives no limit
	MaxLimit     = 1000  // matches or lines, whatever the caller asks
	MaxLineChars = 2000  // characters kept of one line; the rest is cut with a marker
	MaxTotal     = 64000 // characters of all returned lines together
	readChunk    = 1 << 20
)

// Line is one transcript line with its 1-based line number.
type Line struct {
	N int64 // line number, from 1 (0 when unknown, see Page)
	// Off is the byte offset where the line starts, a cursor for ReadPage
	// and ReadPageBefore.
	Off  int64
	Text string // the line, cut at MaxLineChars with a "… [+N bytes]" marker
}

// Result is what Search or Range found.
type Result struct {
	Lines []Line
	// Capped is set when more lines matched (or were asked for) than were
	// returned; Note says so in words fit for the model.
	Capped bool
	Note   string
	// Total is the number of lines read to answer (for Search: the whole file).
	Total int64
}

// String renders the result for a model: one "N: text" line per line, then
// the note when the result was capped.
func (r Result) String() string {
	var b strings.Builder
	for _, l := range r.Lines {
		b.WriteString(strconv.FormatInt(l.N, 10))
		b.WriteString(": ")
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	if r.Note != "" {
		b.WriteString(r.Note)
		b.WriteByte('\n')
	}
	return b.String()
}

// Search streams the JSON Lines file at path and returns the lines that
// contain query (ASCII case-insensitive; a query with quotes, backslashes or
// control characters also matches its JSON-escaped form), at most limit of
// them. Memory stays flat whatever the file's size.
func Search(ctx context.Context, path, query string, limit int, opts ...Option) (Result, error) {
	o := options(opts)
	if strings.TrimSpace(query) == "" {
		return Result{}, errors.New("transcript search: the query is empty; give a word or phrase to look for")
	}
	limit = clampLimit(limit)
	f, err := open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	needles := [][]byte{lowerASCII([]byte(query))}
	if esc := jsonEscape(query); esc != query {
		needles = append(needles, lowerASCII([]byte(esc)))
	}
	res, err := search(ctx, f, needles, limit, o.text)
	if err != nil {
		return res, fmt.Errorf("transcript search %s: %w", path, err)
	}
	res.Lines = o.dropRewritten(f, res.Lines)
	if res.Capped {
		res.Note = fmt.Sprintf("[capped: showing the first %d matching lines; more lines match %q. Narrow the search, or read a range of lines]", len(res.Lines), query)
	}
	if len(res.Lines) == 0 {
		res.Note = fmt.Sprintf("[no line matches %q in %d lines]", query, res.Total)
	}
	capTotal(&res)
	return res, nil
}

// Range returns lines from..to (1-based, inclusive) of the file at path, at
// most MaxLimit lines and MaxTotal characters.
func Range(ctx context.Context, path string, from, to int64, opts ...Option) (Result, error) {
	o := options(opts)
	if from < 1 || to < from {
		return Result{}, fmt.Errorf("transcript range [%d, %d]: give 1 <= from <= to (line numbers start at 1)", from, to)
	}
	f, err := open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	want := to
	if to-from+1 > MaxLimit {
		want = from + MaxLimit - 1
	}
	var res Result
	more := false
	err = eachLine(ctx, f, func(n, off int64, line []byte) bool {
		if n > want {
			more = true
			return false
		}
		if n >= from {
			res.Lines = append(res.Lines, Line{N: n, Off: off, Text: o.text(line)})
		}
		return true
	}, func(n int64) { res.Total = n })
	if err != nil {
		return res, fmt.Errorf("transcript range %s: %w", path, err)
	}
	res.Lines = o.dropRewritten(f, res.Lines)
	switch {
	case len(res.Lines) == 0:
		res.Note = fmt.Sprintf("[the transcript has %d lines; line %d does not exist]", res.Total, from)
	case more:
		res.Capped = true
		res.Note = fmt.Sprintf("[capped at %d lines: continue from line %d]", MaxLimit, want+1)
	}
	capTotal(&res)
	return res, nil
}

// CountLines returns the number of complete lines in the file at path.
func CountLines(path string) (int64, error) {
	f, err := open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return countLines(f)
}

func open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoTranscript, path)
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	return f, nil
}

func clampLimit(limit int) int {
	if limit <= 0 {
		return DefaultLimit
	}
	return min(limit, MaxLimit)
}

// capTotal drops lines past MaxTotal characters, saying so in the note.
func capTotal(res *Result) {
	total := 0
	for i, l := range res.Lines {
		total += len(l.Text) + 8
		if total > MaxTotal && i > 0 {
			res.Lines = res.Lines[:i]
			res.Capped = true
			res.Note = fmt.Sprintf("[capped at %d characters: shown lines %d..%d; ask for a range starting at line %d for more]",
				MaxTotal, res.Lines[0].N, res.Lines[i-1].N, res.Lines[i-1].N+1)
			return
		}
	}
}

// Option changes how Search and Range present lines.
type Option func(*readOptions)

type readOptions struct{ render func([]byte) string }

// WithRender presents each returned line as render makes it (for example
// Render, for a model), before it is cut at MaxLineChars. A Gemini CLI
// message record written again in the lines after it is then left out
// (dropRewritten): the reader sees the message once, as it was last
// written.
func WithRender(render func([]byte) string) Option {
	return func(o *readOptions) { o.render = render }
}

func options(opts []Option) readOptions {
	var o readOptions
	for _, fn := range opts {
		fn(&o)
	}
	return o
}

// text presents one line.
func (o readOptions) text(line []byte) string {
	if o.render == nil {
		return cutLine(line)
	}
	return cutLine([]byte(o.render(line)))
}

// cutLine copies a line, cutting it at MaxLineChars on a rune boundary.
func cutLine(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= MaxLineChars {
		return string(line)
	}
	kept := text.Prefix(string(line[:MaxLineChars+1]), MaxLineChars)
	return kept + fmt.Sprintf("… [+%d bytes]", len(line)-len(kept))
}

var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	lowerInto(out, b)
	return out
}

func lowerInto(dst, src []byte) {
	dst = dst[:len(src)]
	for i, c := range src {
		dst[i] = lowerTable[c]
	}
}

// jsonEscape returns s as it appears inside a JSON string.
func jsonEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// search is the streaming matcher. It reads fixed-size chunks, lowercases
// only complete lines, and finds the needles with bytes.Index, so it runs
// at memory speed. A line longer than the buffer is searched piecewise (with
// an overlap of the needle's length) and reported with its first part.
func search(ctx context.Context, r io.Reader, needles [][]byte, limit int, text func([]byte) string) (Result, error) {
	var res Result
	overlap := 0
	for _, n := range needles {
		overlap = max(overlap, len(n)-1)
	}
	buf := make([]byte, readChunk+overlap)
	low := make([]byte, len(buf))
	var (
		lineNo  int64 = 1
		carry   int
		long    bool   // inside a line longer than the buffer
		longHit bool   // that line matched
		longPre []byte // its first MaxLineChars+ bytes
		longLen int64  // its length so far
		longOff int64  // where it starts
		base    int64  // the file offset of buf[0]
	)
	emit := func(l Line) bool {
		if len(res.Lines) == limit {
			res.Capped = true
			return false
		}
		res.Lines = append(res.Lines, l)
		return true
	}
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		n, rerr := io.ReadFull(r, buf[carry:])
		end := carry + n
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			return res, rerr
		}
		data := buf[:end]
		cut := bytes.LastIndexByte(data, '\n') + 1
		if eof {
			cut = end
		}
		if cut == 0 && !eof {
			// No newline in a full buffer: part of a long line.
			lowerInto(low, data)
			if !long {
				long, longHit, longLen, longOff = true, false, 0, base
				longPre = append(longPre[:0], data[:min(len(data), MaxLineChars+4)]...)
			}
			if !longHit && indexAny(low[:end], needles) >= 0 {
				longHit = true
			}
			keep := min(overlap, end)
			longLen += int64(end - keep)
			copy(buf, data[end-keep:])
			carry = keep
			base += int64(end - keep)
			continue
		}
		region := data[:cut]
		lowerInto(low, region)
		lowRegion := low[:cut]
		pos := 0
		if long {
			// The first line of the region ends the long line.
			nl := bytes.IndexByte(region, '\n')
			lineEnd := cut
			if nl >= 0 {
				lineEnd = nl
			}
			if longHit || indexAny(lowRegion[:lineEnd], needles) >= 0 {
				total := longLen + int64(lineEnd)
				shown := cutLine(longPre)
				if int64(len(longPre)) < total && !strings.Contains(shown, "… [+") {
					shown += fmt.Sprintf("… [+%d bytes]", total-int64(len(longPre)))
				}
				if !emit(Line{N: lineNo, Off: longOff, Text: shown}) {
					return finishCount(ctx, r, res, lineNo, region[lineEnd:], data[cut:end], eof)
				}
			}
			long, longHit = false, false
			if nl < 0 { // the long line was the file's last, without a newline
				res.Total = lineNo
				return res, nil
			}
			lineNo++
			pos = nl + 1
		}
		for pos < cut {
			i := indexAny(lowRegion[pos:], needles)
			if i < 0 {
				lineNo += int64(bytes.Count(region[pos:], []byte{'\n'}))
				break
			}
			p := pos + i
			ls := bytes.LastIndexByte(region[pos:p], '\n') + 1 + pos
			lineNo += int64(bytes.Count(region[pos:ls], []byte{'\n'}))
			le := bytes.IndexByte(region[p:], '\n')
			if le < 0 {
				le = cut
			} else {
				le += p
			}
			if !emit(Line{N: lineNo, Off: base + int64(ls), Text: text(region[ls:le])}) {
				return finishCount(ctx, r, res, lineNo, region[ls:], data[cut:end], eof)
			}
			if le >= cut {
				pos = cut
				break
			}
			lineNo++
			pos = le + 1
		}
		if eof {
			res.Total = lineNo - 1
			if end > 0 && buf[end-1] != '\n' {
				res.Total = lineNo // a last line without newline still counts
			}
			return res, nil
		}
		copy(buf, data[cut:end])
		carry = end - cut
		base += int64(cut)
	}
}

// finishCount counts the remaining lines after the match limit was hit, so
// Total stays the file's line count.
func finishCount(ctx context.Context, r io.Reader, res Result, lineNo int64, rest, carry []byte, eof bool) (Result, error) {
	n := lineNo - 1 + int64(bytes.Count(rest, []byte{'\n'}))
	last := byte('\n')
	if len(carry) > 0 {
		last = carry[len(carry)-1]
	} else if len(rest) > 0 {
		last = rest[len(rest)-1]
	}
	if !eof {
		k, lb, err := countNewlines(r)
		if err != nil {
			return res, err
		}
		n += k
		if lb != 0 {
			last = lb
		}
	}
	if last != '\n' {
		n++ // a last line without a newline
	}
	res.Total = n
	return res, ctx.Err()
}

func indexAny(hay []byte, needles [][]byte) int {
	best := -1
	for _, n := range needles {
		if i := bytes.Index(hay, n); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// countLines counts the lines in r, a last line without a newline included.
func countLines(r io.Reader) (int64, error) {
	n, last, err := countNewlines(r)
	if last != 0 && last != '\n' {
		n++
	}
	return n, err
}

// countNewlines counts newline characters in r and returns the last byte
// read (0 when r was empty).
func countNewlines(r io.Reader) (n int64, last byte, err error) {
	buf := make([]byte, readChunk)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
		}
		if err == io.EOF {
			return n, last, nil
		}
		if err != nil {
			return n, last, err
		}
	}
}

// eachLine calls fn for each line of r (without its newline) with its
// number and offset until fn returns false; done gets the number of the
// last line read. Lines longer than the buffer are passed cut (their first
// part only).
func eachLine(ctx context.Context, r io.Reader, fn func(n, off int64, line []byte) bool, done func(n int64)) error {
	buf := make([]byte, readChunk)
	var (
		lineNo int64
		carry  int
		skip   bool  // discarding the rest of an over-long line
		base   int64 // the file offset of buf[0]
	)
	defer func() { done(lineNo) }()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := io.ReadFull(r, buf[carry:])
		end := carry + n
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			return rerr
		}
		data := buf[:end]
		pos := 0
		for {
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 {
				break
			}
			line, off := data[pos:pos+nl], base+int64(pos)
			pos += nl + 1
			if skip {
				skip = false
				continue
			}
			lineNo++
			if !fn(lineNo, off, line) {
				return nil
			}
		}
		rest := data[pos:]
		if eof {
			if len(rest) > 0 && !skip {
				lineNo++
				fn(lineNo, base+int64(pos), rest)
			}
			return nil
		}
		if pos == 0 && len(rest) == len(buf) {
			// A line longer than the buffer: pass its first part, skip the rest.
			if !skip {
				lineNo++
				if !fn(lineNo, base, rest) {
					return nil
				}
				skip = true
			}
			carry = 0
			base += int64(len(buf))
			continue
		}
		copy(buf, rest)
		carry = len(rest)
		base += int64(pos)
	}
}
