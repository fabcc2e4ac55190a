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
// parallel, each with its own dictionary (tokenizeAll); the dictionaries
// are merged into the index's and every posting list is grown once to its
// final length (mergeTerms); then the workers write their postings into
// disjoint ranges of it while the documents are filed (placeAll). The
// result is the same as adding the documents one by one.
func (x *Index) addBulk(docs []Doc) error {
	sel := x.changedDocs(docs)
	if !x.makeRoom(len(sel)) {
		return fmt.Errorf("add %d documents: %w (%d documents)", len(sel), ErrFull, maxDocs)
	}
	parts := tokenizeAll(sel, x.workers)
	offs, remaps := x.mergeTerms(parts)
	x.placeAll(parts, offs, remaps)
	return nil
}

// changedDocs returns the documents of a batch that need indexing: the
// last copy of each (Source, ID) in the batch, unless the index holds it
// unchanged (see current).
func (x *Index) changedDocs(docs []Doc) []*Doc {
	last := make(map[docKey]int, len(docs))
	for i := range docs {
		last[docKey{docs[i].Source, docs[i].ID}] = i
	}
	sel := make([]*Doc, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		if last[docKey{d.Source, d.ID}] != i {
			continue // a later copy in the batch replaces it
		}
		if !x.current(d) {
			sel = append(sel, d)
		}
	}
	return sel
}

// tokenizeAll tokenises docs on up to limit workers (0: GOMAXPROCS), at
// least bulkMin documents each, each against its own dictionary.
func tokenizeAll(docs []*Doc, limit int) []tokenized {
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	workers := max(1, min(limit, len(docs)/bulkMin))
	parts := make([]tokenized, workers)
	inParallel(len(docs), workers, func(w, lo, hi int) {
		parts[w] = tokenizeDocs(docs[lo:hi])
	})
	return parts
}

// mergeTerms merges the parts' dictionaries into the index's and grows
// every posting list once to its length after the add. It returns, per
// part and local term, where that part's postings of the term start (off:
// after the postings already there and those of the parts before it) and
// the term's number in the index (remap).
func (x *Index) mergeTerms(parts []tokenized) (offs, remaps [][]uint32) {
	offs = make([][]uint32, len(parts))
	remaps = make([][]uint32, len(parts))
	var end []uint32 // per index term: length after this add
	for w, p := range parts {
		off := make([]uint32, len(p.terms))
		remap := make([]uint32, len(p.terms))
		for lt, term := range p.terms {
			t, ok := x.terms[term]
			if !ok {
				t = x.newTerm(term)
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
	return offs, remaps
}

// placeAll files the parts' documents in order and, beside that, writes
// each part's postings into the ranges mergeTerms reserved for it, one
// goroutine per part: they touch different fields.
func (x *Index) placeAll(parts []tokenized, offs, remaps [][]uint32) {
	base := uint32(len(x.slots))
	n := 0
	for _, p := range parts {
		n += len(p.docs)
	}
	x.slots = slices.Grow(x.slots, n)
	if len(x.byKey) == 0 {
		x.byKey = make(map[docKey]uint32, n)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for _, p := range parts {
			for j, d := range p.docs {
				x.place(d, p.lengths[j])
			}
		}
	}()
	first := base
	for w, p := range parts {
		wg.Add(1)
		go func(doc uint32) {
			defer wg.Done()
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
	wg.Wait()
}

// inParallel splits n items into workers chunks of consecutive items and
// runs fn(w, lo, hi) for chunk w, items lo to hi, concurrently; it returns
// when all are done.
func inParallel(n, workers int, fn func(w, lo, hi int)) {
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(n, w*chunk), min(n, (w+1)*chunk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	wg.Wait()
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
		tk.eachIndexed(d, each)
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
