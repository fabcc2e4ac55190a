package transcript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/planq-dev/planq/internal/atomicfile"
)

// A lineage's transcript may hold lines of more than one machine: a
// teammate who pulls a lineage gets its shared (redacted) lines appended to
// their store by Import, and their own sessions in the lineage append
// theirs by Copy. copy.json keeps the byte spans Import appended, so that
// what this machine shares (ReadOwn) is only what it recorded itself, and,
// per origin, how many of its shared lines are here, so that an import is
// never applied twice.

// Span is a byte range [Start, End) of a lineage's transcript that Import
// appended from the machine Origin.
type Span struct {
	Origin string `json:"origin"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
}

// clampSpans drops the parts of imported spans past size (a store cut
// short by hand).
func (st *copyState) clampSpans(size int64) {
	out := st.Imported[:0]
	for _, sp := range st.Imported {
		if sp.Start >= size {
			continue
		}
		sp.End = min(sp.End, size)
		out = append(out, sp)
	}
	st.Imported = out
}

// ImportResult says what one Import did.
type ImportResult struct {
	Lines   int64 // lines appended
	Skipped int64 // lines the store had already
}

// ErrGap reports shared lines that do not follow the ones a store holds.
var ErrGap = errors.New("shared lines out of order")

// Import appends to the lineage's transcript lines that machine origin
// shared: data holds its lines first, first+1, … (numbered in origin's own
// order, from 1), each ending in a newline. Lines the store already has
// from origin are skipped, so importing the same lines twice appends them
// once; lines past a gap (first beyond the next one expected) are refused
// with ErrGap. Like Copy, it commits the appended bytes with copy.json, so a
// process killed in between leaves nothing half-imported.
func (s *Store) Import(ctx context.Context, root, origin string, first int64, data []byte) (ImportResult, error) {
	var res ImportResult
	dir, err := s.Dir(root)
	if err != nil {
		return res, err
	}
	if err := ValidOrigin(origin); err != nil {
		return res, err
	}
	if first < 1 {
		return res, fmt.Errorf("transcript import: line numbers start at 1, not %d", first)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return res, fmt.Errorf("transcript import: the shared lines of %s from %s do not end with a newline", root, origin)
	}
	unlock, err := s.lock(ctx, dir)
	if err != nil {
		return res, err
	}
	defer unlock()
	st, fresh, err := s.readCopyState(dir)
	if err != nil {
		return res, err
	}
	have := st.Origins[origin]
	if first > have+1 {
		return res, fmt.Errorf("%w: the store holds %d lines from %s, and the next shared ones start at line %d", ErrGap, have, origin, first)
	}
	// Skip what is here already.
	for skip := have - first + 1; skip > 0 && len(data) > 0; skip-- {
		i := bytes.IndexByte(data, '\n')
		data = data[i+1:]
		res.Skipped++
		first++
	}
	if len(data) == 0 {
		return res, nil
	}
	out, size, err := openStoreToAppend(dir, &st, fresh)
	if err != nil {
		return res, err
	}
	defer out.Close()
	if _, err := out.WriteAt(data, size); err != nil {
		return res, fmt.Errorf("transcript: append: %w", err)
	}
	n := int64(bytes.Count(data, []byte{'\n'}))
	end := size + int64(len(data))
	if k := len(st.Imported); k > 0 && st.Imported[k-1].Origin == origin && st.Imported[k-1].End == size {
		st.Imported[k-1].End = end
	} else {
		st.Imported = append(st.Imported, Span{Origin: origin, Start: size, End: end})
	}
	if st.Origins == nil {
		st.Origins = map[string]int64{}
	}
	st.Origins[origin] = first + n - 1
	st.StoreSize = end
	st.Lines += n
	if err := s.writeCopyState(dir, st); err != nil {
		return res, err // the bytes past the committed size are discarded by the next write
	}
	res.Lines = n
	return res, nil
}

// Imported returns how many of origin's shared lines the lineage's
// transcript holds.
func (s *Store) Imported(root, origin string) (int64, error) {
	st, err := s.copyStateOf(root)
	return st.Origins[origin], err
}

// Own is where a lineage's own lines stand: what this machine recorded,
// imported spans aside.
type Own struct {
	Size  int64 // the committed size of the whole transcript
	Spans []Span
}

// OwnState reads the lineage's committed size and imported spans.
func (s *Store) OwnState(root string) (Own, error) {
	dir, err := s.Dir(root)
	if err != nil {
		return Own{}, err
	}
	st, fresh, err := s.readCopyState(dir)
	if err != nil {
		return Own{}, err
	}
	if fresh {
		p := filepath.Join(dir, TranscriptFile)
		f, err := open(p)
		if errors.Is(err, ErrNoTranscript) {
			return Own{}, nil
		}
		if err != nil {
			return Own{}, err
		}
		defer f.Close()
		size, err := storeEnd(f) // its end, not its lines: planq state status asks every lineage
		return Own{Size: size}, err
	}
	return Own{Size: st.StoreSize, Spans: st.Imported}, nil
}

// ReadOwn calls fn with each line this machine recorded in the lineage's
// transcript (imported spans left out), from byte offset off (a line
// start) to the committed end, with the offset just past the line; fn
// returns false to stop. It reads without the lineage's lock: the
// committed part of the store is never rewritten.
func (s *Store) ReadOwn(ctx context.Context, root string, own Own, off int64, fn func(line []byte, end int64) bool) error {
	p, err := s.Path(root)
	if err != nil {
		return err
	}
	f, err := open(p)
	if errors.Is(err, ErrNoTranscript) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	spans := own.Spans
	for off < own.Size {
		// Skip the spans that end before off; jump over one that holds it.
		for len(spans) > 0 && spans[0].End <= off {
			spans = spans[1:]
		}
		stop := own.Size
		if len(spans) > 0 {
			if spans[0].Start <= off {
				off = spans[0].End
				continue
			}
			stop = spans[0].Start
		}
		br := bufio.NewReaderSize(io.NewSectionReader(f, off, stop-off), 256<<10)
		for off < stop {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			line, err := br.ReadSlice('\n')
			for errors.Is(err, bufio.ErrBufferFull) {
				// A line longer than the buffer.
				long := append([]byte(nil), line...)
				line, err = br.ReadSlice('\n')
				line = append(long, line...)
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("transcript: read %s: %w", p, err)
			}
			if len(line) == 0 || line[len(line)-1] != '\n' {
				return nil // the committed size ends on a line end; a short file is being repaired
			}
			off += int64(len(line))
			if !fn(line, off) {
				return nil
			}
		}
	}
	return nil
}

// shareFile keeps, per lineage, where sharing stands (see ShareState).
const shareFile = "shared.json"

// ShareState is what shared.json remembers of a lineage's sharing. It is a
// hint that saves work: the state repo's lineage ref is the truth, and a
// hint behind it (a push killed after its commit) is caught up from there.
type ShareState struct {
	// Offset is the transcript's byte offset up to which this machine's
	// own lines were shared, and Lines how many own lines that is.
	Offset int64 `json:"offset"`
	Lines  int64 `json:"lines"`
	// Record is the session record's Updated time when it was last shared.
	Record string `json:"record,omitempty"`
	// Commit is the lineage ref's commit that shared them.
	Commit string `json:"commit,omitempty"`
	// Imported is the lineage ref's commit whose lines and record were
	// last imported into this store.
	Imported string `json:"imported,omitempty"`
	// Seen is the lineage's stamp taken before the export that wrote this
	// state read it: while the stamp is the same, that export shared all
	// there is (what planq state status asks of every lineage).
	Seen *Stamp `json:"seen,omitempty"`
}

// Stamp is what a lineage's transcript store and session record were, by
// their size and modification time: the store only grows, and the record
// is replaced whole at every change (a new modification time, to the
// nanosecond where the file system keeps one).
type Stamp struct {
	Store  FileStamp `json:"store"`
	Record FileStamp `json:"record"`
}

// FileStamp is a file's size and modification time (Unix nanoseconds); the
// zero stamp is a file that does not exist.
type FileStamp struct {
	Size  int64 `json:"size"`
	MTime int64 `json:"mtime"`
}

// Stamp returns the lineage's stamp now. Take it before reading what it
// stamps: a change after it then shows as a different stamp.
func (s *Store) Stamp(root string) (Stamp, error) {
	dir, err := s.Dir(root)
	if err != nil {
		return Stamp{}, err
	}
	var st Stamp
	for _, f := range []struct {
		name string
		into *FileStamp
	}{{TranscriptFile, &st.Store}, {SessionFile, &st.Record}} {
		info, err := os.Stat(filepath.Join(dir, f.name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return Stamp{}, fmt.Errorf("transcript: %w", err)
		default:
			*f.into = FileStamp{Size: info.Size(), MTime: info.ModTime().UnixNano()}
		}
	}
	return st, nil
}

// ShareState reads the lineage's shared.json; a missing or unreadable one
// is the zero state (it is only a hint).
func (s *Store) ShareState(root string) ShareState {
	var st ShareState
	dir, err := s.Dir(root)
	if err != nil {
		return st
	}
	data, err := os.ReadFile(filepath.Join(dir, shareFile))
	if err != nil || json.Unmarshal(data, &st) != nil {
		return ShareState{}
	}
	return st
}

// UpdateShareState applies fn to the lineage's shared.json under its lock.
func (s *Store) UpdateShareState(ctx context.Context, root string, fn func(*ShareState)) error {
	dir, err := s.Dir(root)
	if err != nil {
		return err
	}
	unlock, err := s.lock(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	st := s.ShareState(root)
	fn(&st)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, shareFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("transcript: write %s: %w", shareFile, err)
	}
	return nil
}

// MarkCopied records src (a host's transcript) as copied into the
// lineage up to byte offset off, without copying: for a session file planq
// restored from the lineage itself, whose lines the store has already.
func (s *Store) MarkCopied(ctx context.Context, root, src string, off int64) error {
	dir, err := s.Dir(root)
	if err != nil {
		return err
	}
	if src, err = filepath.Abs(src); err != nil {
		return fmt.Errorf("transcript: source: %w", err)
	}
	unlock, err := s.lock(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	st, fresh, err := s.readCopyState(dir)
	if err != nil {
		return err
	}
	if fresh {
		f, err := os.OpenFile(filepath.Join(dir, TranscriptFile), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("transcript: open store: %w", err)
		}
		st.StoreSize, st.Lines, err = adoptStore(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	st.Sources[src] = off
	return s.writeCopyState(dir, st)
}

// EachLine calls fn with each committed line of the lineage's transcript,
// in order, and the machine it came from ("" for this one); fn returns
// false to stop.
func (s *Store) EachLine(ctx context.Context, root string, fn func(line []byte, origin string) bool) error {
	own, err := s.OwnState(root)
	if err != nil {
		return err
	}
	p, err := s.Path(root)
	if err != nil {
		return err
	}
	f, err := open(p)
	if errors.Is(err, ErrNoTranscript) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(io.NewSectionReader(f, 0, own.Size), 256<<10)
	spans := own.Spans
	var off int64
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		line, err := br.ReadBytes('\n')
		if len(line) == 0 || line[len(line)-1] != '\n' {
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("transcript: read %s: %w", p, err)
			}
			return nil
		}
		for len(spans) > 0 && spans[0].End <= off {
			spans = spans[1:]
		}
		origin := ""
		if len(spans) > 0 && spans[0].Start <= off {
			origin = spans[0].Origin
		}
		off += int64(len(line))
		if !fn(line, origin) {
			return nil
		}
	}
}
