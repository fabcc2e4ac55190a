package search

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// bulkMin is the batch size from which Add tokenises on all CPUs.
const bulkMin = 2048

// tokenized is one worker's share of a bulk add: its documents (owning
// their text) tokenised against a local dictionary.
type tokenized struct {
	docs    []Doc    // copies whose text lives in one arena per worker
	terms   []string // local term number → term
	ndocs   []uint32 // local term number → documents containing it
	term    []uint32 // per (document, term) pair: local term number
	tf      []uint8  // per pair: frequency (capped)
	pairs   []int    // per document: end of its pairs
	lengths []uint32 // per document: tokens
}

// addBulk indexes many documents at once: workers tokenise their share in
// parallel, each with its own dictionary; the dictionaries are merged into
// the index's, every posting list is grown once to its final length, and the
// workers write their postings into disjoint ranges of it. The result is the
// same as adding the documents one by one.
func (x *Index) addBulk(docs []Doc) error {
	last := make(map[docKey]int, len(docs))
	for i := range docs {
		last[docKey{docs[i].Source, docs[i].ID}] = i
	}
	sel := make([]*Doc, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		k := docKey{d.Source, d.ID}
		if last[k] != i {
			continue // a later copy in the batch replaces it
		}
		if s, ok := x.byKey[k]; ok {
			if x.slots[s].doc == *d {
				continue
			}
			x.remove(s)
		}
		sel = append(sel, d)
	}
	if len(x.slots)+len(sel) > maxDocs {
		x.compact()
		if len(x.slots)+len(sel) > maxDocs {
			return fmt.Errorf("add %d documents: %w (%d documents)", len(sel), ErrFull, maxDocs)
		}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(sel)/bulkMin))
	chunk := (len(sel) + workers - 1) / workers
	parts := make([]tokenized, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(len(sel), w*chunk), min(len(sel), (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[w] = tokenizeDocs(sel[lo:hi])
		}()
	}
	wg.Wait()

	// Merge the dictionaries and place every worker's postings: part w's
	// postings of term t start at off[w][local term], after the postings
	// already there and those of parts before w.
	offs := make([][]uint32, len(parts))
	remaps := make([][]uint32, len(parts))
	var end []uint32 // per index term: length after this add
	for w, p := range parts {
		off := make([]uint32, len(p.terms))
		remap := make([]uint32, len(p.terms))
		for lt, term := range p.terms {
			t, ok := x.terms[term]
			if !ok {
				t = uint32(len(x.postings))
				x.terms[term] = t
				x.postings = append(x.postings, nil)
				x.df = append(x.df, 0)
			}
			for int(t) >= len(end) {
				end = append(end, uint32(len(x.postings[len(end)])))
			}
			off[lt] = end[t]
			end[t] += p.ndocs[lt]
			x.df[t] += p.ndocs[lt]
			remap[lt] = t
		}
		offs[w] = off
		remaps[w] = remap
	}
	for t, e := range end {
		if ps := x.postings[t]; int(e) > len(ps) {
			x.postings[t] = slices.Grow(ps, int(e)-len(ps))[:e]
		}
	}

	base := uint32(len(x.slots))
	x.slots = slices.Grow(x.slots, len(sel))
	if len(x.byKey) == 0 {
		x.byKey = make(map[docKey]uint32, len(sel))
	}
	var wg2 sync.WaitGroup
	// Document bookkeeping runs beside the posting writes; they touch
	// different fields.
	wg2.Add(1)
	go func() {
		defer wg2.Done()
		n := base
		for _, p := range parts {
			for j, d := range p.docs {
				k := docKey{d.Source, d.ID}
				x.slots = append(x.slots, slot{doc: d, length: p.lengths[j], alive: true})
				x.byKey[k] = n
				g := x.groups[d.Group]
				if g == nil {
					g = map[docKey]struct{}{}
					x.groups[d.Group] = g
				}
				g[k] = struct{}{}
				x.live++
				x.totalLen += int64(p.lengths[j])
				n++
			}
		}
	}()
	first := base
	for w, p := range parts {
		wg2.Add(1)
		go func(doc uint32) {
			defer wg2.Done()
			off, remap := offs[w], remaps[w]
			start := 0
			for _, stop := range p.pairs {
				for k := start; k < stop; k++ {
					lt := p.term[k]
					x.postings[remap[lt]][off[lt]] = doc<<8 | uint32(p.tf[k])
					off[lt]++
				}
				start = stop
				doc++
			}
		}(first)
		first += uint32(len(p.docs))
	}
	wg2.Wait()
	return nil
}

// tokenizeDocs copies docs' text into one arena and tokenises the documents
// against a fresh local dictionary.
func tokenizeDocs(docs []*Doc) tokenized {
	size := 0
	for _, d := range docs {
		size += len(d.ID) + len(d.Title) + len(d.Fields) + len(d.Body)
	}
	var arena strings.Builder
	arena.Grow(size)
	for _, d := range docs {
		arena.WriteString(d.ID)
		arena.WriteString(d.Title)
		arena.WriteString(d.Fields)
		arena.WriteString(d.Body)
	}
	text := arena.String()
	p := tokenized{
		docs:    make([]Doc, len(docs)),
		pairs:   make([]int, 0, len(docs)),
		lengths: make([]uint32, 0, len(docs)),
		term:    make([]uint32, 0, size/7), // about one distinct term per 7 bytes of notes
		tf:      make([]uint8, 0, size/7),
	}
	pos := 0
	take := func(n int) string {
		s := text[pos : pos+n]
		pos += n
		return s
	}
	for i, d := range docs {
		c := *d
		c.ID, c.Title, c.Fields, c.Body = take(len(d.ID)), take(len(d.Title)), take(len(d.Fields)), take(len(d.Body))
		p.docs[i] = c
	}

	var tk tokenizer
	var uniq []uint32  // distinct local terms of the current document
	var count []uint32 // per local term: occurrences in the current document
	var length uint32
	dict := newDict()
	each := func(tok []byte, _, _ int) {
		t := dict.id(tok)
		if int(t) == len(count) {
			count = append(count, 0)
			p.ndocs = append(p.ndocs, 0)
		}
		if count[t] == 0 {
			uniq = append(uniq, t)
		}
		count[t]++
		length++
	}
	for i := range p.docs {
		d := &p.docs[i]
		uniq, length = uniq[:0], 0
		tk.each(d.Title, each)
		tk.each(d.Fields, each)
		tk.each(d.Body, each)
		p.lengths = append(p.lengths, length)
		for _, t := range uniq {
			p.term = append(p.term, t)
			p.tf = append(p.tf, uint8(min(count[t], maxTF)))
			p.ndocs[t]++
			count[t] = 0
		}
		p.pairs = append(p.pairs, len(p.term))
	}
	p.terms = dict.terms
	return p
}
