package changelog

import (
	"bytes"
	"fmt"
	"github.com/planq-dev/planq/internal/text"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// Append validates e, fills its id (and a zero timestamp with the current
// time), and writes its serialisation followed by a blank line to w in a
// single Write. It returns the entry as written.
func Append(w io.Writer, e Entry) (Entry, error) {
	if e.Timestamp.IsZero() {
		e.Timestamp = time.Now().UTC()
	}
	b, e, err := Marshal(e)
	if err != nil {
		return e, fmt.Errorf("changelog append: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return e, fmt.Errorf("changelog append: %w", err)
	}
	return e, nil
}

// AppendFile appends e to the file at path (created 0644 if missing) in one
// O_APPEND write followed by fsync, after a separating blank line when the
// file does not already end with one. Earlier bytes are never rewritten; a
// short write is cut back to the old length so no half entry stays behind.
// Concurrent writers must hold a lock (staterepo does) for the separator
// check to be exact; entries themselves never interleave.
func AppendFile(path string, e Entry) (Entry, error) {
	if e.Timestamp.IsZero() {
		e.Timestamp = time.Now().UTC()
	}
	b, e, err := Marshal(e)
	if err != nil {
		return e, fmt.Errorf("append to %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return e, fmt.Errorf("append to %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return e, fmt.Errorf("append to %s: %w", path, err)
	}
	size := st.Size()
	var sep []byte
	if size > 0 {
		tail := make([]byte, min(size, 2))
		if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
			return e, fmt.Errorf("append to %s: read its end: %w", path, err)
		}
		switch {
		case tail[len(tail)-1] != '\n':
			sep = []byte("\n\n")
		case len(tail) == 1 || tail[0] != '\n':
			sep = []byte("\n")
		}
	}
	buf := make([]byte, 0, len(sep)+len(b)+1)
	buf = append(append(append(buf, sep...), b...), '\n')
	n, err := f.Write(buf)
	if err != nil || n != len(buf) {
		if n > 0 {
			_ = f.Truncate(size)
		}
		if err == nil {
			err = io.ErrShortWrite
		}
		return e, fmt.Errorf("append to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return e, fmt.Errorf("append to %s: sync: %w", path, err)
	}
	return e, nil
}

// key identifies an entry for de-duplication.
type key struct {
	id    string
	agent string
	ts    int64
}

func keyOf(e Entry) key { return key{e.ID, e.Agent, e.Timestamp.UnixNano()} }

// Union returns the entries of a and b without duplicates, sorted by
// timestamp then id. Two entries are the same when their ids, agents and
// timestamps match (so a hand-edited body stays one entry, and an id
// collision between different entries loses neither). The first copy seen,
// from a and then b, is kept.
func Union(a, b []Entry) []Entry {
	seen := make(map[key]bool, len(a)+len(b))
	out := make([]Entry, 0, len(a)+len(b))
	for _, list := range [][]Entry{a, b} {
		for _, e := range list {
			k := keyOf(e)
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, e)
		}
	}
	SortEntries(out)
	return out
}

// SortEntries sorts entries by timestamp, then id, oldest first; equal
// entries keep their order.
func SortEntries(es []Entry) {
	sort.SliceStable(es, func(i, j int) bool {
		if !es[i].Timestamp.Equal(es[j].Timestamp) {
			return es[i].Timestamp.Before(es[j].Timestamp)
		}
		return es[i].ID < es[j].ID
	})
}

// MergeFile merges two versions of one append-only file, as promotion to the
// global branch and a state pull need: base is kept byte for byte, and the
// entries of other that base lacks (see Union for "the same") are appended in
// timestamp order, each as its original text. It returns the merged file, the
// entries added, and the problems found in other (malformed entries there are
// not copied; base's stay as they are).
func MergeFile(base, other []byte) (merged []byte, added []Entry, problems []Problem) {
	be, _ := ParseBytes(base)
	oe, problems := ParseBytes(other)
	seen := make(map[key]bool, len(be)+len(oe))
	for _, e := range be {
		seen[keyOf(e)] = true
	}
	for _, e := range oe {
		k := keyOf(e)
		if seen[k] {
			continue
		}
		seen[k] = true
		added = append(added, e)
	}
	if len(added) == 0 {
		return base, nil, problems
	}
	SortEntries(added)
	merged = make([]byte, 0, len(base)+len(other)+2)
	merged = append(merged, base...)
	switch {
	case len(merged) == 0:
	case merged[len(merged)-1] != '\n':
		merged = append(merged, "\n\n"...)
	case len(merged) == 1 || merged[len(merged)-2] != '\n':
		merged = append(merged, '\n')
	}
	for _, e := range added {
		merged = append(merged, bytes.TrimRight(other[e.start:e.end], " \t\r\n")...)
		merged = append(merged, "\n\n"...)
	}
	return merged, added, problems
}

// Truncate cuts body to at most max bytes at a line boundary, closes a code
// fence left open by the cut, and appends a marker saying how much was kept.
// A body within max is returned unchanged.
func Truncate(body string, max int) string {
	if len(body) <= max {
		return body
	}
	markerFor := func(kept int) string {
		return fmt.Sprintf("\n\n[… truncated by planq: kept %d of %d bytes]", kept, len(body))
	}
	room := max - len(markerFor(len(body))) - 16 // 16: a closing fence line
	if room <= 0 {
		return text.Prefix(body, max)
	}
	kept, _ := text.CutAtLine(body, room)
	kept = strings.TrimSuffix(kept, "\n")
	var f fence
	for _, l := range strings.Split(kept, "\n") {
		f.update([]byte(l))
	}
	out := kept
	if f.inside() {
		out += "\n" + strings.Repeat(string(f.char), f.n)
	}
	out += markerFor(len(kept))
	if len(out) > max { // an absurdly long fence: drop the closing line
		kept = text.Prefix(body, room)
		out = kept + markerFor(len(kept))
	}
	return out
}
