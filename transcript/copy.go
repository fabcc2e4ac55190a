package transcript

import (
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

// copyState is what copy.json remembers: how much of the store is committed
// and how far each source file has been copied.
type copyState struct {
	// StoreSize is the committed length of transcript.jsonl. Bytes past it
	// were written by a copy that did not finish and are discarded.
	StoreSize int64 `json:"store_size"`
	// Lines is the number of lines committed to the store.
	Lines int64 `json:"lines"`
	// Sources maps an absolute source path to the byte offset copied so far.
	Sources map[string]int64 `json:"sources"`
	// Imported are the byte spans of the store that came from other
	// machines (Import), oldest first; every other committed byte was
	// recorded here.
	Imported []Span `json:"imported,omitempty"`
	// Origins maps another machine's origin id to how many of its shared
	// lines the store holds.
	Origins map[string]int64 `json:"origins,omitempty"`
}

// CopyOptions bounds one Copy call.
type CopyOptions struct {
	// MaxBytes caps how much is copied in one call (default 64 MiB); the rest
	// is copied by the next call. Copy also stops early when ctx is done.
	MaxBytes int64
}

// CopyResult says what one Copy call did.
type CopyResult struct {
	Lines   int64 // complete lines appended
	Bytes   int64 // bytes appended
	Pending bool  // more complete data may be waiting (byte cap or deadline reached)
	Reset   bool  // the source had shrunk (replaced), so it was copied from its start
}

const copyChunk = 256 << 10

// CatchUp copies, for the lineage root, what the transcripts it has copied
// from before gained since: a host that writes its transcript after its
// last hook has run (Copilot CLI writes a session's last events to
// events.jsonl as it exits, after its Stop and SessionEnd hooks) would
// otherwise lose them. A source that shrank or is gone is left alone
// (Copy re-reads a replaced source when its own session names it). Hooks
// call it before copying their own transcript.
func (s *Store) CatchUp(ctx context.Context, root string, opt CopyOptions) (CopyResult, error) {
	var total CopyResult
	dir, err := s.Dir(root)
	if err != nil {
		return total, err
	}
	st, fresh, err := s.readCopyState(dir)
	if err != nil || fresh {
		return total, err
	}
	for src, off := range st.Sources {
		if ctx.Err() != nil {
			total.Pending = true
			break
		}
		info, err := os.Stat(src)
		if err != nil || info.Size() <= off {
			continue
		}
		res, err := s.Copy(ctx, root, src, opt)
		total.Lines += res.Lines
		total.Bytes += res.Bytes
		total.Pending = total.Pending || res.Pending
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Copy appends to the lineage's transcript the complete lines of src that
// were not copied before. It never copies a line twice, never copies a torn
// last line (that line is copied once it is complete), and repairs a store
// whose last write was interrupted. A missing src copies nothing.
func (s *Store) Copy(ctx context.Context, root, src string, opt CopyOptions) (CopyResult, error) {
	var res CopyResult
	dir, err := s.Dir(root)
	if err != nil {
		return res, err
	}
	if src, err = filepath.Abs(src); err != nil {
		return res, fmt.Errorf("transcript: source: %w", err)
	}
	max := opt.MaxBytes
	if max <= 0 {
		max = 64 << 20
	}
	in, err := os.Open(src)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("transcript: open source: %w", err)
	}
	defer in.Close()

	unlock, err := s.lock(ctx, dir)
	if err != nil {
		return res, err
	}
	defer unlock()

	st, fresh, err := s.readCopyState(dir)
	if err != nil {
		return res, err
	}
	out, size, err := openStoreToAppend(dir, &st, fresh)
	if err != nil {
		return res, err
	}
	defer out.Close()

	info, err := in.Stat()
	if err != nil {
		return res, fmt.Errorf("transcript: stat source: %w", err)
	}
	off := st.Sources[src]
	if info.Size() < off {
		off, res.Reset = 0, true
	}
	if _, err := in.Seek(off, io.SeekStart); err != nil {
		return res, fmt.Errorf("transcript: seek source: %w", err)
	}
	if _, err := out.Seek(size, io.SeekStart); err != nil {
		return res, fmt.Errorf("transcript: seek store: %w", err)
	}

	// Stream the source into the store; commit only up to the last newline.
	buf := make([]byte, copyChunk)
	var written, committed, lines int64
	for written < max {
		if ctx.Err() != nil {
			res.Pending = true
			break
		}
		n, rerr := in.Read(buf[:min(int64(len(buf)), max-written)])
		if n > 0 {
			chunk := buf[:n]
			if _, err := out.Write(chunk); err != nil {
				return res, fmt.Errorf("transcript: append: %w", err)
			}
			if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
				lines += int64(bytes.Count(chunk, []byte{'\n'}))
				committed = written + int64(i) + 1
			}
			written += int64(n)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return res, fmt.Errorf("transcript: read source: %w", rerr)
		}
	}
	if written >= max {
		res.Pending = true
	}
	if committed < written {
		// A torn last line (or one cut by the byte cap): leave it for next time.
		if err := out.Truncate(size + committed); err != nil {
			return res, fmt.Errorf("transcript: truncate store: %w", err)
		}
	}
	if committed == 0 && !res.Reset {
		return res, nil
	}
	st.StoreSize = size + committed
	st.Lines += lines
	st.Sources[src] = off + committed
	if err := s.writeCopyState(dir, st); err != nil {
		// The appended bytes are past the committed size: the next Copy
		// discards and re-copies them, so nothing is duplicated.
		return res, err
	}
	res.Lines, res.Bytes = lines, committed
	return res, nil
}

// openStoreToAppend opens the lineage's store in dir for appending (the
// caller holds its lock) and returns it with the size the next line goes at:
// with no copy state beside an existing store (fresh: it was deleted), the
// store's complete lines are adopted rather than discarded, and a tail past
// what st recorded (a killed append) is cut by repairStore.
func openStoreToAppend(dir string, st *copyState, fresh bool) (*os.File, int64, error) {
	out, err := os.OpenFile(filepath.Join(dir, TranscriptFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("transcript: open store: %w", err)
	}
	if fresh {
		if st.StoreSize, st.Lines, err = adoptStore(out); err != nil {
			out.Close()
			return nil, 0, err
		}
	}
	size, err := repairStore(out, st)
	if err != nil {
		out.Close()
		return nil, 0, err
	}
	return out, size, nil
}

// repairStore discards bytes past the committed size (an interrupted copy)
// and returns the store's size. A store that shrank below the committed size
// is trimmed to its last complete line and adopted.
func repairStore(out *os.File, st *copyState) (int64, error) {
	info, err := out.Stat()
	if err != nil {
		return 0, fmt.Errorf("transcript: stat store: %w", err)
	}
	size := info.Size()
	switch {
	case size > st.StoreSize:
		if err := out.Truncate(st.StoreSize); err != nil {
			return 0, fmt.Errorf("transcript: repair store: %w", err)
		}
		return st.StoreSize, nil
	case size < st.StoreSize:
		end, err := lastLineEnd(out, size)
		if err != nil {
			return 0, err
		}
		if end < size {
			if err := out.Truncate(end); err != nil {
				return 0, fmt.Errorf("transcript: repair store: %w", err)
			}
		}
		st.StoreSize = end
		st.clampSpans(end)
		return end, nil
	}
	return size, nil
}

// lastLineEnd returns the offset just past the last newline in f[:size].
func lastLineEnd(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, fmt.Errorf("transcript: read store: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// readCopyState reads copy.json; fresh is true when there is none.
func (s *Store) readCopyState(dir string) (st copyState, fresh bool, err error) {
	st = copyState{Sources: map[string]int64{}}
	data, err := os.ReadFile(filepath.Join(dir, copyStateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, true, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("transcript: read %s: %w", copyStateFile, err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, false, fmt.Errorf("transcript: %s is corrupt (%v); delete it and %s to copy the transcript again from its sources", filepath.Join(dir, copyStateFile), err, TranscriptFile)
	}
	if st.Sources == nil {
		st.Sources = map[string]int64{}
	}
	return st, false, nil
}

// adoptStore returns the length and line count of the store's complete lines.
func adoptStore(out *os.File) (size, lines int64, err error) {
	if size, err = storeEnd(out); err != nil || size == 0 {
		return 0, 0, err
	}
	if lines, err = countLines(io.NewSectionReader(out, 0, size)); err != nil {
		return 0, 0, err
	}
	return size, lines, nil
}

// storeEnd returns the length of the store's complete lines, read from its
// end: unlike the line count, it costs the same for a transcript of any
// size.
func storeEnd(out *os.File) (int64, error) {
	info, err := out.Stat()
	if err != nil {
		return 0, fmt.Errorf("transcript: stat store: %w", err)
	}
	if info.Size() == 0 {
		return 0, nil
	}
	return lastLineEnd(out, info.Size())
}

// copyStateOf reads the copy state of the lineage rooted at root.
func (s *Store) copyStateOf(root string) (copyState, error) {
	dir, err := s.Dir(root)
	if err != nil {
		return copyState{}, err
	}
	st, _, err := s.readCopyState(dir)
	return st, err
}

func (s *Store) writeCopyState(dir string, st copyState) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, copyStateFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("transcript: write %s: %w", copyStateFile, err)
	}
	return nil
}

// Lines returns the number of lines stored for the lineage rooted at root,
// from the copy state (no scan of the transcript).
func (s *Store) Lines(root string) (int64, error) {
	dir, err := s.Dir(root)
	if err != nil {
		return 0, err
	}
	st, fresh, err := s.readCopyState(dir)
	if err != nil {
		return 0, err
	}
	if fresh {
		p, _ := s.Path(root)
		n, err := CountLines(p)
		if errors.Is(err, ErrNoTranscript) {
			return 0, nil
		}
		return n, err
	}
	return st.Lines, nil
}
