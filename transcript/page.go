package transcript

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/planq-dev/planq/internal/text"
)

// Page is a window of a transcript file's lines, for paging through it by
// byte offsets (see ReadPage and ReadPageBefore).
type Page struct {
	// Lines are the page's lines. Their numbers (Line.N) are known only when
	// the page starts at the file's first line; elsewhere they are 0, since
	// numbering them would mean reading the file up to there.
	Lines []Line
	Start int64 // byte offset of the first line
	End   int64 // byte offset after the last line: where a later page starts
	// Next is End, or -1 when End is the end of the file (as it was read;
	// a transcript still being written grows: ReadPage(End) reads on).
	Next int64
	// Prev is the cursor for ReadPageBefore: Start, or -1 when the page
	// starts at the file's first line.
	Prev int64
	// Size is the file's size when it was read.
	Size int64
}

// Paging buffers: lineBuf is the reader's buffer; up to lineKeep bytes of
// one line are kept for rendering, the rest is skipped and counted.
const (
	lineBuf  = 64 << 10
	lineKeep = readChunk
)

// ReadPage reads up to n lines (n <= 0: DefaultLimit; at most MaxLimit)
// starting at byte offset off (0: the file's start). It streams from off,
// so its cost depends on the lines read, not on the file's size. An offset
// inside a line is moved forward to the start of the next line, as
// ReadPageBefore does, so the two meet at the same line boundary; an offset
// past the end of the file is an error.
func ReadPage(ctx context.Context, path string, off int64, n int, opts ...Option) (Page, error) {
	o := options(opts)
	n = clampLimit(n)
	f, size, err := openSized(path)
	if err != nil {
		return Page{}, err
	}
	defer f.Close()
	if off < 0 || off > size {
		return Page{}, fmt.Errorf("transcript page: offset %d is outside the transcript (0..%d bytes); start again at 0", off, size)
	}
	start, err := lineStart(f, off, size)
	if err != nil {
		return Page{}, fmt.Errorf("transcript page %s: %w", path, err)
	}
	p, err := readLines(ctx, f, start, size, size, n, o)
	if err != nil {
		return Page{}, fmt.Errorf("transcript page %s: %w", path, err)
	}
	return p, nil
}

// ReadPageBefore reads up to n lines (n <= 0: DefaultLimit; at most
// MaxLimit) that end at byte offset off (-1: the end of the file), reading
// backwards from there: the page before one that starts at off. Its cost
// depends on the lines read, not on the file's size. An offset inside a
// line is moved forward to the start of the next line (so that line is on
// the page), as ReadPage does.
func ReadPageBefore(ctx context.Context, path string, off int64, n int, opts ...Option) (Page, error) {
	o := options(opts)
	n = clampLimit(n)
	f, size, err := openSized(path)
	if err != nil {
		return Page{}, err
	}
	defer f.Close()
	if off == -1 {
		off = size
	}
	if off < 0 || off > size {
		return Page{}, fmt.Errorf("transcript page: offset %d is outside the transcript (0..%d bytes); start again at -1, the end", off, size)
	}
	end, err := lineStart(f, off, size)
	if err != nil {
		return Page{}, fmt.Errorf("transcript page %s: %w", path, err)
	}
	start, err := nthLineBefore(ctx, f, end, n)
	if err != nil {
		return Page{}, fmt.Errorf("transcript page %s: %w", path, err)
	}
	p, err := readLines(ctx, f, start, end, size, n, o)
	if err != nil {
		return Page{}, fmt.Errorf("transcript page %s: %w", path, err)
	}
	return p, nil
}

func openSized(path string) (*os.File, int64, error) {
	f, err := open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("transcript: %w", err)
	}
	return f, info.Size(), nil
}

// lineStart returns off when a line starts there (or it is the end of the
// file), else the offset after the next newline.
func lineStart(f *os.File, off, size int64) (int64, error) {
	if off == 0 || off >= size {
		return off, nil
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], off-1); err != nil {
		return 0, err
	}
	if b[0] == '\n' {
		return off, nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, off, size-off), lineBuf)
	for {
		frag, err := r.ReadSlice('\n')
		off += int64(len(frag))
		switch {
		case err == nil, errors.Is(err, io.EOF):
			return off, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return 0, err
		}
	}
}

// nthLineBefore returns the start of the n-th line before offset end (a
// line start, or the end of the file), or 0 when fewer lines precede it. It
// reads backwards in chunks.
func nthLineBefore(ctx context.Context, f *os.File, end int64, n int) (int64, error) {
	buf := make([]byte, lineBuf)
	pos := end
	// The newline just before end closes the last line; the search for line
	// starts begins before it.
	skipFirst := true
	found := 0
	for pos > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k := int64(len(buf))
		if pos < k {
			k = pos
		}
		chunk := buf[:k]
		if _, err := f.ReadAt(chunk, pos-k); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := len(chunk) - 1; i >= 0; i-- {
			if chunk[i] != '\n' {
				skipFirst = false
				continue
			}
			if skipFirst {
				skipFirst = false
				continue
			}
			// A line starts after this newline.
			found++
			if found == n {
				return pos - k + int64(i) + 1, nil
			}
		}
		pos -= k
	}
	return 0, nil
}

// readLines reads up to n lines from start, stopping at offset stop, of a
// file of size bytes.
func readLines(ctx context.Context, f *os.File, start, stop, size int64, n int, o readOptions) (Page, error) {
	p := Page{Start: start, End: start, Next: -1, Prev: -1}
	if start > 0 {
		p.Prev = start
	}
	r := bufio.NewReaderSize(io.NewSectionReader(f, start, stop-start), lineBuf)
	var keep []byte
	num := int64(0)
	if start == 0 {
		num = 1
	}
	for len(p.Lines) < n {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		keep = keep[:0]
		var length int64 // the line's bytes, its newline included
		var rerr error
		for {
			var frag []byte
			frag, rerr = r.ReadSlice('\n')
			length += int64(len(frag))
			if room := lineKeep - len(keep); room > 0 {
				keep = append(keep, frag[:min(len(frag), room)]...)
			}
			if !errors.Is(rerr, bufio.ErrBufferFull) {
				break
			}
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return p, rerr
		}
		if length == 0 {
			break // the end
		}
		full := length
		if bytes.HasSuffix(keep, []byte{'\n'}) || rerr == nil {
			full-- // the newline
		}
		keep = bytes.TrimSuffix(keep, []byte{'\n'})
		p.Lines = append(p.Lines, Line{N: num, Off: p.End, Text: o.cutText(keep, full)})
		p.End += length
		if num > 0 {
			num++
		}
		if rerr != nil {
			break
		}
	}
	if p.End < size {
		p.Next = p.End
	}
	p.Size = size
	p.Lines = o.dropRewritten(f, p.Lines)
	return p, nil
}

// cutText presents a line of which only the first bytes were kept (full is
// its whole length). A line cut short is shown raw, unrendered (a renderer
// would not read a part of it), with how much was left out.
func (o readOptions) cutText(kept []byte, full int64) string {
	if full <= int64(len(kept)) {
		return o.text(kept)
	}
	k := text.Prefix(string(kept[:min(len(kept), MaxLineChars+1)]), MaxLineChars)
	return k + fmt.Sprintf("… [+%d bytes]", full-int64(len(k)))
}
