package staterepo

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/search"
)

// The search cache keeps, for each archive segment — which never changes
// once written (a segment's blob is its content) — its documents encoded as
// a search.Segment (an inverted index searched where it lies) and its
// malformed entries, in one file of the bare repo, planq-search-cache. A
// fresh MCP server's first search, or a `planq search`, then ranks the
// segments without reading or tokenising their text (search.ScanSegments);
// at 100,000 entries that is most of a cold search. The live files, which
// change with every write, are always read afresh. Maintenance keeps the
// cache up to date in the background. It is a cache: a damaged or foreign
// file is ignored and written again; one that cannot be written (a
// read-only PLANQ_HOME) costs only speed.
//
// Format: "planq-search-cache 2\n", then per segment its blob id (20
// bytes), its problem count (uvarint), each problem as Line (uvarint) and
// Message (uvarint length and bytes), and the encoded segment (uvarint
// length and bytes).
const searchCacheFile = "planq-search-cache"

var searchCacheMagic = []byte("planq-search-cache 2\n")

// cachedSegment is one archive segment for search: its index and its
// problems (File unset).
type cachedSegment struct {
	seg   *search.Segment
	data  []byte // seg's encoding
	probs []changelog.Problem
}

// searchCache is the cache as read at the start of a search or a fill,
// plus the segments parsed since (whose encoding save does).
type searchCache struct {
	mu     sync.Mutex
	segs   map[plumbing.Hash]*cachedSegment
	parsed map[plumbing.Hash]parsedSegment // read afresh, not encoded yet
}

// parsedSegment is a segment parsed because the cache lacked it.
type parsedSegment struct {
	docs  []search.Doc // Source and Group unset
	probs []changelog.Problem
}

// loadSearchCache reads bare's search cache; a missing or damaged file is
// an empty cache.
func loadSearchCache(bare string) *searchCache {
	c := &searchCache{segs: map[plumbing.Hash]*cachedSegment{}, parsed: map[plumbing.Hash]parsedSegment{}}
	data, err := os.ReadFile(filepath.Join(bare, searchCacheFile))
	if err != nil || !bytes.HasPrefix(data, searchCacheMagic) {
		return c
	}
	if segs, err := decodeSearchCache(data[len(searchCacheMagic):]); err == nil {
		c.segs = segs
	}
	return c
}

// get returns the segment of blob h, if cached.
func (c *searchCache) get(h plumbing.Hash) (*cachedSegment, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	seg, ok := c.segs[h]
	return seg, ok
}

// put records a segment parsed from blob h, for save to encode.
func (c *searchCache) put(h plumbing.Hash, p parsedSegment) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.parsed[h] = p
}

// save encodes the segments parsed since the cache was read and writes the
// cache to bare, keeping only the segments in keep (those the branches
// still have); it writes nothing when nothing changed, and ignores a
// failure (the cache only saves time).
func (c *searchCache) save(bare string, keep map[plumbing.Hash]bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	stale := false
	for h := range c.segs {
		if !keep[h] {
			stale = true
		}
	}
	if len(c.parsed) == 0 && !stale {
		return
	}
	for h, p := range c.parsed {
		data := search.EncodeSegment(p.docs)
		seg, err := search.OpenSegment(data)
		if err != nil {
			continue
		}
		c.segs[h] = &cachedSegment{seg: seg, data: data, probs: p.probs}
	}
	c.parsed = map[plumbing.Hash]parsedSegment{}
	var buf bytes.Buffer
	buf.Write(searchCacheMagic)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { buf.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	for h, seg := range c.segs {
		if !keep[h] {
			continue
		}
		buf.Write(h[:])
		uv(uint64(len(seg.probs)))
		for _, p := range seg.probs {
			uv(uint64(p.Line))
			uv(uint64(len(p.Message)))
			buf.WriteString(p.Message)
		}
		uv(uint64(len(seg.data)))
		buf.Write(seg.data)
	}
	path := filepath.Join(bare, searchCacheFile)
	f, err := os.CreateTemp(bare, searchCacheFile+".tmp-*")
	if err != nil {
		return
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil && cerr == nil {
		_ = os.Rename(f.Name(), path)
	}
}

var errCache = errors.New("damaged search cache")

// decodeSearchCache parses the cache's body; its segments and strings
// point into data, which is never written to afterwards.
func decodeSearchCache(data []byte) (map[plumbing.Hash]*cachedSegment, error) {
	segs := map[plumbing.Hash]*cachedSegment{}
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(data)
		if n <= 0 {
			return 0, false
		}
		data = data[n:]
		return v, true
	}
	bytesOf := func() ([]byte, bool) {
		n, ok := uv()
		if !ok || n > uint64(len(data)) {
			return nil, false
		}
		b := data[:n:n]
		data = data[n:]
		return b, true
	}
	for len(data) > 0 {
		if len(data) < 20 {
			return nil, errCache
		}
		var h plumbing.Hash
		copy(h[:], data)
		data = data[20:]
		np, ok := uv()
		if !ok || np > uint64(len(data)) {
			return nil, errCache
		}
		cs := &cachedSegment{}
		for range np {
			line, ok1 := uv()
			msg, ok2 := bytesOf()
			if !ok1 || !ok2 {
				return nil, errCache
			}
			cs.probs = append(cs.probs, changelog.Problem{Line: int(line), Message: unsafe.String(unsafe.SliceData(msg), len(msg))})
		}
		b, ok := bytesOf()
		if !ok {
			return nil, errCache
		}
		seg, err := search.OpenSegment(b)
		if err != nil {
			return nil, errCache
		}
		cs.seg, cs.data = seg, b
		segs[h] = cs
	}
	return segs, nil
}

// isSegment reports whether a state file is an archive segment (immutable
// once written), whose parsed documents the cache keeps.
func isSegment(p string) bool { return strings.HasPrefix(p, ArchiveDir+"/") && familyOf(p) != "" }

// refreshSearchCache brings the search cache up to date with every archive
// segment of every branch, so the next fresh server's first search reads
// them from it; maintenance runs it, in the background after writes.
func (s *Store) refreshSearchCache(ctx context.Context) error {
	files, err := s.searchFiles()
	if err != nil {
		return err
	}
	segments := map[plumbing.Hash]bool{}
	var want []searchFile
	cache := loadSearchCache(s.Bare)
	for _, f := range files {
		if !isSegment(f.path) || f.data != nil {
			continue
		}
		segments[f.hash] = true
		if _, ok := cache.get(f.hash); !ok {
			want = append(want, f)
		}
	}
	if _, err := readDocs(ctx, want, cache); err != nil {
		return err
	}
	cache.save(s.Bare, segments)
	return nil
}
