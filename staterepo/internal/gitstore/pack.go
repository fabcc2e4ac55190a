package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packSet reads objects from a repo's packs the way git does: each .idx is
// searched in place (its fan-out table, then a binary search over one
// bucket of names) instead of being decoded whole. go-git's MemoryIndex
// decodes every .idx it opens and, on the first packed read, builds a map
// from offset to hash of the whole pack; for a state repo of 100,000 entries
// (about 400,000 objects) that cost every CLI or hook process its first
// packed read dearly: BenchmarkPackedRead measures 99 ms and 30 MB with
// go-git against 0.6 ms and 0.2 MB here, for a head commit, its tree and a
// file of a pack of 100,000 commits.
// Files are opened per read and closed again, so git may replace packs at
// any time (on Windows an open file could not be deleted).
type packSet struct {
	dir string // <bare>/objects/pack

	mu      sync.Mutex   // guards scanned and packs, not cache (it has its own)
	scanned bool         // packs has been listed once
	packs   []*packIndex // newest first, as git searches them
	cache   baseCache
}

// packIndex is one pack's .idx, of which only the header is kept in memory.
type packIndex struct {
	name   string // path without the .idx/.pack extension
	n      uint32
	fanout [256]uint32
}

const (
	idxHeader  = 8       // magic and version
	idxFanout  = 256 * 4 // the fan-out table
	idxNames   = idxHeader + idxFanout
	maxDepth   = 10_000    // delta chain limit, against corrupt cycles
	packMaxObj = 1 << 31   // refuse absurd sizes before allocating
	cacheBytes = 16 << 20  // reconstructed objects kept for delta chains
	idxMagic   = "\xfftOc" // version 2 .idx files
)

// scan lists the packs again (after maintenance or a fetch added or
// removed some).
func (ps *packSet) scan() error {
	ents, err := os.ReadDir(ps.dir)
	if errors.Is(err, fs.ErrNotExist) {
		ps.mu.Lock()
		ps.packs, ps.scanned = nil, true
		ps.mu.Unlock()
		return nil
	}
	if err != nil {
		return fmt.Errorf("list packs in %s: %w", ps.dir, err)
	}
	type withTime struct {
		p   *packIndex
		mod int64
	}
	var found []withTime
	ps.mu.Lock()
	known := map[string]*packIndex{}
	for _, p := range ps.packs {
		known[p.name] = p
	}
	ps.mu.Unlock()
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok || !strings.HasPrefix(name, "pack-") {
			continue
		}
		base := filepath.Join(ps.dir, name)
		st, err := os.Stat(base + ".pack")
		if err != nil {
			continue // an .idx without its pack: being written or deleted
		}
		p := known[base]
		if p == nil {
			if p, err = loadIndex(base); err != nil {
				return err
			}
		}
		found = append(found, withTime{p, st.ModTime().UnixNano()})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].mod > found[j].mod })
	packs := make([]*packIndex, len(found))
	for i, f := range found {
		packs[i] = f.p
	}
	ps.mu.Lock()
	ps.packs, ps.scanned = packs, true
	ps.mu.Unlock()
	return nil
}

// loadIndex reads an .idx file's header and fan-out table.
func loadIndex(base string) (*packIndex, error) {
	f, err := os.Open(base + ".idx")
	if err != nil {
		return nil, fmt.Errorf("open pack index: %w", err)
	}
	defer f.Close()
	buf := make([]byte, idxNames)
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fmt.Errorf("read pack index %s.idx: %w (the file is damaged)", base, err)
	}
	if string(buf[:4]) != idxMagic || binary.BigEndian.Uint32(buf[4:8]) != 2 {
		return nil, fmt.Errorf("pack index %s.idx is not a version 2 index (damaged, or written by an unsupported git)", base)
	}
	p := &packIndex{name: base}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(buf[idxHeader+4*i:])
	}
	p.n = p.fanout[255]
	return p, nil
}

// list returns the packs known now, listing them on first use.
func (ps *packSet) list() ([]*packIndex, error) {
	ps.mu.Lock()
	scanned := ps.scanned
	ps.mu.Unlock()
	if !scanned {
		if err := ps.scan(); err != nil {
			return nil, err
		}
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.packs, nil
}

// find returns the pack holding h and the object's offset in it.
func (ps *packSet) find(h plumbing.Hash) (*packIndex, int64, error) {
	packs, err := ps.list()
	if err != nil {
		return nil, 0, err
	}
	for _, p := range packs {
		off, ok, err := p.offset(h)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			return p, off, nil
		}
	}
	return nil, 0, nil
}

// offset looks h up in the .idx; ok is false when the pack lacks it.
func (p *packIndex) offset(h plumbing.Hash) (int64, bool, error) {
	lo := uint32(0)
	if h[0] > 0 {
		lo = p.fanout[h[0]-1]
	}
	hi := p.fanout[h[0]]
	if hi <= lo {
		return 0, false, nil
	}
	f, err := os.Open(p.name + ".idx")
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	names := make([]byte, 20*int(hi-lo))
	if _, err := f.ReadAt(names, idxNames+20*int64(lo)); err != nil {
		return 0, false, fmt.Errorf("read pack index %s.idx: %w (the file is damaged)", p.name, err)
	}
	i := sort.Search(int(hi-lo), func(i int) bool { return bytes.Compare(names[20*i:20*i+20], h[:]) >= 0 })
	if i == int(hi-lo) || !bytes.Equal(names[20*i:20*i+20], h[:]) {
		return 0, false, nil
	}
	pos := int64(lo) + int64(i)
	var b [8]byte
	offTable := idxNames + 24*int64(p.n) // after the names and the CRCs
	if _, err := f.ReadAt(b[:4], offTable+4*pos); err != nil {
		return 0, false, fmt.Errorf("read pack index %s.idx: %w (the file is damaged)", p.name, err)
	}
	off := binary.BigEndian.Uint32(b[:4])
	if off&0x80000000 == 0 {
		return int64(off), true, nil
	}
	large := offTable + 4*int64(p.n) + 8*int64(off&0x7fffffff)
	if _, err := f.ReadAt(b[:], large); err != nil {
		return 0, false, fmt.Errorf("read pack index %s.idx: %w (the file is damaged)", p.name, err)
	}
	return int64(binary.BigEndian.Uint64(b[:])), true, nil
}

// read returns the object at off in pack p, resolving deltas; lookup finds
// the base of a delta that names it by hash.
func (ps *packSet) read(p *packIndex, off int64, lookup func(plumbing.Hash) (plumbing.ObjectType, []byte, error)) (plumbing.ObjectType, []byte, error) {
	f, err := os.Open(p.name + ".pack")
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	typ, data, err := ps.readAt(f, p, off, lookup, 0)
	// The cache keeps data; callers get their own copy.
	return typ, bytes.Clone(data), err
}

// readAt reads the object at off in pack p from f, through the cache,
// resolving deltas up to maxDepth deep.
func (ps *packSet) readAt(f *os.File, p *packIndex, off int64, lookup func(plumbing.Hash) (plumbing.ObjectType, []byte, error), depth int) (plumbing.ObjectType, []byte, error) {
	if typ, data, ok := ps.cache.get(p.name, off); ok {
		return typ, data, nil
	}
	damaged := func(err error) error {
		return fmt.Errorf("read object at offset %d of %s.pack: %w (the pack is damaged; `git fsck` reports the objects it holds)", off, p.name, err)
	}
	if depth > maxDepth {
		return 0, nil, damaged(errors.New("delta chain too long"))
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 4<<10)
	c, err := br.ReadByte()
	if err != nil {
		return 0, nil, damaged(err)
	}
	typ := plumbing.ObjectType((c >> 4) & 7)
	size := int64(c & 15)
	hdr := int64(1)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = br.ReadByte(); err != nil {
			return 0, nil, damaged(err)
		}
		size |= int64(c&0x7f) << shift
		hdr++
		if shift > 56 {
			return 0, nil, damaged(errors.New("bad size"))
		}
	}
	if size > packMaxObj {
		return 0, nil, damaged(fmt.Errorf("object of %d bytes", size))
	}
	var baseOff int64
	var baseHash plumbing.Hash
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	case plumbing.OFSDeltaObject:
		if c, err = br.ReadByte(); err != nil {
			return 0, nil, damaged(err)
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = br.ReadByte(); err != nil {
				return 0, nil, damaged(err)
			}
			rel = ((rel + 1) << 7) | int64(c&0x7f)
		}
		baseOff = off - rel
		if rel <= 0 || baseOff < 12 {
			return 0, nil, damaged(errors.New("bad delta base offset"))
		}
	case plumbing.REFDeltaObject:
		if _, err := io.ReadFull(br, baseHash[:]); err != nil {
			return 0, nil, damaged(err)
		}
	default:
		return 0, nil, damaged(fmt.Errorf("unknown object type %d", typ))
	}
	zr, err := zlib.NewReader(br)
	if err != nil {
		return 0, nil, damaged(err)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return 0, nil, damaged(err)
	}
	if !typ.IsDelta() {
		ps.cache.put(p.name, off, typ, data)
		return typ, data, nil
	}
	var baseTyp plumbing.ObjectType
	var base []byte
	if typ == plumbing.OFSDeltaObject {
		baseTyp, base, err = ps.readAt(f, p, baseOff, lookup, depth+1)
	} else if bo, ok, ferr := p.offset(baseHash); ferr == nil && ok {
		baseTyp, base, err = ps.readAt(f, p, bo, lookup, depth+1)
	} else {
		baseTyp, base, err = lookup(baseHash)
	}
	if err != nil {
		return 0, nil, err
	}
	out, err := packfile.PatchDelta(base, data)
	if err != nil {
		return 0, nil, damaged(err)
	}
	ps.cache.put(p.name, off, baseTyp, out)
	return baseTyp, out, nil
}

// baseCache keeps recently reconstructed packed objects, so reading several
// versions of one file (deltas on a common base) inflates the base once.
type baseCache struct {
	mu    sync.Mutex // guards all of it
	lru   list.List
	items map[cacheKey]*list.Element
	bytes int
}

type cacheKey struct {
	pack string
	off  int64
}

type cacheItem struct {
	key  cacheKey
	typ  plumbing.ObjectType
	data []byte
}

// get returns the object cached for offset off of pack, if any.
func (c *baseCache) get(pack string, off int64) (plumbing.ObjectType, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[cacheKey{pack, off}]; ok {
		c.lru.MoveToFront(e)
		it := e.Value.(*cacheItem)
		return it.typ, it.data, true
	}
	return 0, nil, false
}

// put caches an object (not one over a quarter of cacheBytes), dropping
// the least recently used ones past cacheBytes.
func (c *baseCache) put(pack string, off int64, typ plumbing.ObjectType, data []byte) {
	if len(data) > cacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.items == nil {
		c.items = map[cacheKey]*list.Element{}
	}
	k := cacheKey{pack, off}
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.lru.PushFront(&cacheItem{k, typ, data})
	c.bytes += len(data)
	for c.bytes > cacheBytes {
		e := c.lru.Back()
		it := e.Value.(*cacheItem)
		c.lru.Remove(e)
		delete(c.items, it.key)
		c.bytes -= len(it.data)
	}
}
