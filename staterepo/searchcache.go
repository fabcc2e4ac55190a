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
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/search"
)

// The search cache keeps the documents parsed from archive segments, which
// never change once written (a segment's blob is its content), in one file
// of the bare repo, planq-search-cache: a fresh MCP server, or a `planq
// search`, reads them from it in one go instead of inflating and parsing
// every segment again — at 100,000 entries that is most of a cold search.
// The live files, which change with every write, are always read afresh.
// The file is a cache: a damaged or foreign one is ignored and written
// again; one that cannot be written (a read-only PLANQ_HOME) costs only
// speed.
//
// Format: "planq-search-cache 1\n", then per segment its blob id (20
// bytes), its document count and problem count (uvarints), each document
// as ID, Kind, Title, Fields, Body (uvarint length and bytes) and Date
// (varint Unix nanoseconds, 0 for none), each problem as Line (uvarint)
// and Message.
const searchCacheFile = "planq-search-cache"

var searchCacheMagic = []byte("planq-search-cache 1\n")

// cachedSegment is what one archive segment holds for search: its
// documents without Source and Group (set per use) and its problems
// without File.
type cachedSegment struct {
	docs  []search.Doc
	probs []changelog.Problem
}

// searchCache is the cache as read at the start of a search or a fill,
// plus the segments parsed since.
type searchCache struct {
	mu    sync.Mutex
	segs  map[plumbing.Hash]*cachedSegment
	fresh bool // segments were parsed that the file lacks
}

// loadSearchCache reads bare's search cache; a missing or damaged file is
// an empty cache.
func loadSearchCache(bare string) *searchCache {
	c := &searchCache{segs: map[plumbing.Hash]*cachedSegment{}}
	data, err := os.ReadFile(filepath.Join(bare, searchCacheFile))
	if err != nil || !bytes.HasPrefix(data, searchCacheMagic) {
		return c
	}
	segs, err := decodeSearchCache(data[len(searchCacheMagic):])
	if err == nil {
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

// put records a segment parsed from blob h.
func (c *searchCache) put(h plumbing.Hash, seg *cachedSegment) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.segs[h]; !ok {
		c.segs[h] = seg
		c.fresh = true
	}
}

// save writes the cache to bare when segments were parsed that it lacked,
// keeping only the segments in keep (those the branches still have); a
// failure is ignored (the cache only saves time).
func (c *searchCache) save(bare string, keep map[plumbing.Hash]bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fresh {
		return
	}
	var buf bytes.Buffer
	buf.Write(searchCacheMagic)
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { buf.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	str := func(s string) { uv(uint64(len(s))); buf.WriteString(s) }
	for h, seg := range c.segs {
		if !keep[h] {
			continue
		}
		buf.Write(h[:])
		uv(uint64(len(seg.docs)))
		uv(uint64(len(seg.probs)))
		for i := range seg.docs {
			d := &seg.docs[i]
			str(d.ID)
			str(string(d.Kind))
			str(d.Title)
			str(d.Fields)
			str(d.Body)
			var ns int64
			if !d.Date.IsZero() {
				ns = d.Date.UnixNano()
			}
			buf.Write(tmp[:binary.PutVarint(tmp[:], ns)])
		}
		for _, p := range seg.probs {
			uv(uint64(p.Line))
			str(p.Message)
		}
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
	if cerr := f.Close(); err == nil && cerr == nil && os.Rename(f.Name(), path) == nil {
		c.fresh = false
	}
}

var errCache = errors.New("damaged search cache")

// decodeSearchCache parses the cache's body. Its strings point into data,
// which is never written to afterwards.
func decodeSearchCache(data []byte) (map[plumbing.Hash]*cachedSegment, error) {
	segs := map[plumbing.Hash]*cachedSegment{}
	uv := func() uint64 {
		v, n := binary.Uvarint(data)
		if n <= 0 {
			data = nil
			return 0
		}
		data = data[n:]
		return v
	}
	str := func() (string, bool) {
		n := uv()
		if data == nil || n > uint64(len(data)) {
			return "", false
		}
		s := unsafe.String(unsafe.SliceData(data), int(n))
		if n == 0 {
			s = ""
		}
		data = data[n:]
		return s, true
	}
	for len(data) > 0 {
		if len(data) < 20 {
			return nil, errCache
		}
		var h plumbing.Hash
		copy(h[:], data)
		data = data[20:]
		nd, np := uv(), uv()
		if data == nil || nd > uint64(len(data)) || np > uint64(len(data)) {
			return nil, errCache
		}
		seg := &cachedSegment{docs: make([]search.Doc, nd)}
		for i := range seg.docs {
			d := &seg.docs[i]
			var kind string
			ok := true
			for _, p := range []*string{&d.ID, &kind, &d.Title, &d.Fields, &d.Body} {
				var okOne bool
				*p, okOne = str()
				ok = ok && okOne
			}
			ns, n := binary.Varint(data)
			if !ok || n <= 0 {
				return nil, errCache
			}
			data = data[n:]
			d.Kind = search.Kind(kind)
			if ns != 0 {
				d.Date = time.Unix(0, ns).UTC()
			}
		}
		for range np {
			line := uv()
			msg, ok := str()
			if !ok {
				return nil, errCache
			}
			seg.probs = append(seg.probs, changelog.Problem{Line: int(line), Message: msg})
		}
		segs[h] = seg
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
	if len(want) == 0 && len(cache.segs) == len(segments) {
		return nil
	}
	cache.fresh = true // segments gone from every branch are dropped too
	cache.save(s.Bare, segments)
	return nil
}
