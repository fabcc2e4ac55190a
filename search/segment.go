package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"
)

// A Segment is an inverted index of a fixed set of documents in one byte
// slice, read where it lies: ScanSegments ranks segments (and loose
// documents) as Scan ranks their documents, looking the query's terms up in
// each segment's sorted term table and decoding only the documents that
// match. A set of documents that never changes — an archived log segment —
// is encoded once (EncodeSegment) and kept, so a later cold search reads
// no text at all but the hits'.
//
// Layout, little-endian: "pqsg1\x00\x00\x00", then uint32 document count,
// uint32 term count, uint64 total tokens, uint32 offset of the document
// table, uint32 offset of the term table; the document table (one uint32
// offset per document), the term table (one uint32 offset per term, terms
// in byte order); each document as uvarint tokens, varint Unix nanoseconds
// (0: none) and ID, Kind, Title, Fields, Body as uvarint length and bytes;
// each term as uvarint length and bytes, uvarint posting count, then per
// posting the document number's delta and the frequency, uvarints.
type Segment struct {
	data     []byte
	ndocs    int
	nterms   int
	totalLen int64
	docTab   int
	termTab  int
}

var segmentMagic = []byte("pqsg1\x00\x00\x00")

const segmentHeader = 8 + 4 + 4 + 8 + 4 + 4

// ErrSegment reports an encoded segment that is damaged.
var ErrSegment = errors.New("damaged search segment")

// EncodeSegment indexes docs (their Source and Group are not kept: a
// segment's documents take them from where it is used) into a Segment's
// bytes.
func EncodeSegment(docs []Doc) []byte {
	type posting struct{ doc, tf uint32 }
	postings := map[string][]posting{}
	lengths := make([]uint32, len(docs))
	var total int64
	var tk tokenizer
	counts := map[string]uint32{}
	for i := range docs {
		clear(counts)
		var n uint32
		tk.eachIndexed(&docs[i], func(tok []byte, _, _ int) {
			n++
			counts[string(tok)]++
		})
		lengths[i] = n
		total += int64(n)
		for t, c := range counts {
			postings[t] = append(postings[t], posting{uint32(i), min(c, maxTF)})
		}
	}
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	slices.Sort(terms)

	var body bytes.Buffer
	var tmp [binary.MaxVarintLen64]byte
	uv := func(v uint64) { body.Write(tmp[:binary.PutUvarint(tmp[:], v)]) }
	str := func(s string) { uv(uint64(len(s))); body.WriteString(s) }
	docTab := segmentHeader
	termTab := docTab + 4*len(docs)
	base := termTab + 4*len(terms)
	docOffs := make([]uint32, len(docs))
	for i := range docs {
		d := &docs[i]
		docOffs[i] = uint32(base + body.Len())
		uv(uint64(lengths[i]))
		var ns int64
		if !d.Date.IsZero() {
			ns = d.Date.UnixNano()
		}
		body.Write(tmp[:binary.PutVarint(tmp[:], ns)])
		str(d.ID)
		str(string(d.Kind))
		str(d.Title)
		str(d.Fields)
		str(d.Body)
	}
	termOffs := make([]uint32, len(terms))
	for i, t := range terms {
		termOffs[i] = uint32(base + body.Len())
		str(t)
		ps := postings[t]
		uv(uint64(len(ps)))
		prev := uint32(0)
		for _, p := range ps {
			uv(uint64(p.doc - prev))
			uv(uint64(p.tf))
			prev = p.doc
		}
	}
	out := make([]byte, base, base+body.Len())
	copy(out, segmentMagic)
	le := binary.LittleEndian
	le.PutUint32(out[8:], uint32(len(docs)))
	le.PutUint32(out[12:], uint32(len(terms)))
	le.PutUint64(out[16:], uint64(total))
	le.PutUint32(out[24:], uint32(docTab))
	le.PutUint32(out[28:], uint32(termTab))
	for i, o := range docOffs {
		le.PutUint32(out[docTab+4*i:], o)
	}
	for i, o := range termOffs {
		le.PutUint32(out[termTab+4*i:], o)
	}
	return append(out, body.Bytes()...)
}

// OpenSegment checks an encoded segment's header and tables; data must not
// change while the segment (or a document decoded from it) is in use.
func OpenSegment(data []byte) (*Segment, error) {
	if len(data) < segmentHeader || !bytes.Equal(data[:8], segmentMagic) {
		return nil, ErrSegment
	}
	le := binary.LittleEndian
	s := &Segment{data: data, ndocs: int(le.Uint32(data[8:])), nterms: int(le.Uint32(data[12:])),
		totalLen: int64(le.Uint64(data[16:])), docTab: int(le.Uint32(data[24:])), termTab: int(le.Uint32(data[28:]))}
	if s.docTab != segmentHeader || s.termTab != s.docTab+4*s.ndocs || s.termTab+4*s.nterms > len(data) || s.totalLen < 0 {
		return nil, ErrSegment
	}
	for i := 0; i < s.ndocs+s.nterms; i++ {
		if o := int(le.Uint32(data[s.docTab+4*i:])); o < s.termTab+4*s.nterms || o >= len(data) {
			return nil, ErrSegment
		}
	}
	return s, nil
}

// Len returns the number of documents in the segment.
func (s *Segment) Len() int { return s.ndocs }

// reader decodes the fields of one record.
type segReader struct {
	b   []byte
	bad bool
}

func (r *segReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *segReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// str returns the next string, pointing into the segment's bytes.
func (r *segReader) str() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return ""
	}
	if n == 0 {
		return ""
	}
	s := unsafe.String(&r.b[0], int(n))
	r.b = r.b[n:]
	return s
}

func (s *Segment) record(table, i int) *segReader {
	return &segReader{b: s.data[binary.LittleEndian.Uint32(s.data[table+4*i:]):]}
}

// docLength returns the token count of document i.
func (s *Segment) docLength(i int) (uint32, error) {
	r := s.record(s.docTab, i)
	n := r.uvarint()
	if r.bad {
		return 0, ErrSegment
	}
	return uint32(n), nil
}

// Doc decodes document i, with source and group as given; its strings
// point into the segment's bytes.
func (s *Segment) Doc(i int, source, group string) (Doc, error) {
	if i < 0 || i >= s.ndocs {
		return Doc{}, fmt.Errorf("%w: no document %d", ErrSegment, i)
	}
	r := s.record(s.docTab, i)
	r.uvarint()
	ns := r.varint()
	d := Doc{Source: source, Group: group}
	d.ID = r.str()
	d.Kind = Kind(r.str())
	d.Title = r.str()
	d.Fields = r.str()
	d.Body = r.str()
	if r.bad {
		return Doc{}, ErrSegment
	}
	if ns != 0 {
		d.Date = time.Unix(0, ns).UTC()
	}
	return d, nil
}

// Docs decodes every document, with source and group as given.
func (s *Segment) Docs(source, group string) ([]Doc, error) {
	out := make([]Doc, s.ndocs)
	for i := range out {
		var err error
		if out[i], err = s.Doc(i, source, group); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// postings calls fn for each document term occurs in, with its frequency.
func (s *Segment) postings(term string, fn func(doc int, tf uint32)) error {
	var found *segReader
	lo, hi := 0, s.nterms
	for lo < hi {
		mid := (lo + hi) / 2
		r := s.record(s.termTab, mid)
		t := r.str()
		if r.bad {
			return ErrSegment
		}
		switch {
		case t == term:
			found, lo = r, hi
		case t < term:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	if found == nil {
		return nil
	}
	n := found.uvarint()
	doc := 0
	for range n {
		doc += int(found.uvarint())
		tf := found.uvarint()
		if found.bad || doc >= s.ndocs {
			return ErrSegment
		}
		fn(doc, uint32(tf))
	}
	return nil
}

// SegmentRef is a segment as one search uses it: where its documents live.
type SegmentRef struct {
	Seg    *Segment
	Source string // the Source of its documents
	Group  string // their Group
}

// ScanSegments ranks the documents of segs and loose for query as Scan
// ranks them all (the same hits, in the same order), without tokenising
// the segments' documents: their terms are looked up in each segment, and
// only documents that match are decoded. An error means a segment is
// damaged.
func ScanSegments(segs []SegmentRef, loose []Doc, query string, opts Options) ([]Hit, error) {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	looseStats := scanStats(loose, terms)
	n := float64(len(loose))
	totalLen := looseStats.totalLen
	df := slices.Clone(looseStats.df)
	type segMatch struct {
		ref, doc int
		tf       []uint32 // per term
	}
	var matches []segMatch
	for ri, ref := range segs {
		n += float64(ref.Seg.ndocs)
		totalLen += ref.Seg.totalLen
		byDoc := map[int]int{} // document → its match
		for ti, term := range terms {
			err := ref.Seg.postings(term, func(doc int, tf uint32) {
				df[ti]++
				mi, ok := byDoc[doc]
				if !ok {
					mi = len(matches)
					byDoc[doc] = mi
					matches = append(matches, segMatch{ref: ri, doc: doc, tf: make([]uint32, len(terms))})
				}
				matches[mi].tf[ti] = min(tf, maxTF)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if n == 0 {
		return nil, nil
	}
	avgdl := float64(totalLen) / n
	idf := make([]float64, len(terms))
	for i := range terms {
		idf[i] = idfOf(n, float64(df[i]))
	}
	top := newTopK(opts.limit())
	nq := float64(len(terms))
	score := func(tf []uint32, length uint32) float64 {
		s, matched := 0.0, 0
		for i, f := range tf {
			if f > 0 {
				s += termScore(idf[i], f, length, avgdl)
				matched++
			}
		}
		return s * float64(matched) / nq
	}
	for _, m := range looseStats.matches {
		if doc := &loose[m.doc]; opts.admits(doc) {
			top.offer(doc, score(m.tf, m.length))
		}
	}
	for _, m := range matches {
		ref := segs[m.ref]
		length, err := ref.Seg.docLength(m.doc)
		if err != nil {
			return nil, err
		}
		s := score(m.tf, length)
		if len(top.list) == top.k && s < top.list[len(top.list)-1].score {
			continue // cannot make the list: no need to decode it
		}
		d, err := ref.Seg.Doc(m.doc, ref.Source, ref.Group)
		if err != nil {
			return nil, err
		}
		if opts.admits(&d) {
			top.offer(&d, s)
		}
	}
	return top.hits(terms, opts.snippetLen()), nil
}
