package search

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
)

// bulkMin is the batch size from which Add tokenises on all CPUs.
const bulkMin = 2048

// tokenized is one worker's share of a bulk add: documents tokenised against
// a local dictionary.
type tokenized struct {
	terms   []string // local term number → term
	term    []uint32 // per (document, term) pair: local term number
	tf      []uint8  // per pair: frequency (capped)
	pairs   []int    // per document: end of its pairs
	lengths []uint32 // per document: tokens
}

// addBulk indexes many documents at once: the documents are tokenised in
// parallel, each worker with its own dictionary, and the results merged into
// the index in order. The result is the same as adding them one by one.
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

	// Map each worker's terms to index terms, count the new postings per
	// term, and grow every posting list once.
	remaps := make([][]uint32, len(parts))
	for w, p := range parts {
		remap := make([]uint32, len(p.terms))
		for i, term := range p.terms {
			t, ok := x.terms[term]
			if !ok {
				t = uint32(len(x.postings))
				x.terms[term] = t
				x.postings = append(x.postings, nil)
				x.df = append(x.df, 0)
			}
			remap[i] = t
		}
		remaps[w] = remap
	}
	x.slots = slices.Grow(x.slots, len(sel))
	base := uint32(len(x.slots))
	var wg2 sync.WaitGroup
	// Document bookkeeping runs beside the posting appends; they touch
	// different fields.
	wg2.Add(1)
	go func() {
		defer wg2.Done()
		i := 0
		for _, p := range parts {
			for _, length := range p.lengths {
				d := ownStrings(*sel[i])
				k := docKey{d.Source, d.ID}
				x.slots = append(x.slots, slot{doc: d, length: length, alive: true})
				x.byKey[k] = base + uint32(i)
				g := x.groups[d.Group]
				if g == nil {
					g = map[docKey]struct{}{}
					x.groups[d.Group] = g
				}
				g[k] = struct{}{}
				x.live++
				x.totalLen += int64(length)
				i++
			}
		}
	}()
	// Posting lists: each goroutine owns the terms t with t % workers == w,
	// counts their new postings, grows each list once, then appends.
	for w := range workers {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			own := func(t uint32) bool { return int(t)%workers == w }
			grow := make([]uint32, len(x.postings))
			for pi, p := range parts {
				for _, lt := range p.term {
					if t := remaps[pi][lt]; own(t) {
						grow[t]++
					}
				}
			}
			for t, g := range grow {
				if g > 0 {
					x.postings[t] = slices.Grow(x.postings[t], int(g))
				}
			}
			doc := base
			for pi, p := range parts {
				remap := remaps[pi]
				start := 0
				for _, end := range p.pairs {
					for k := start; k < end; k++ {
						if t := remap[p.term[k]]; own(t) {
							x.postings[t] = append(x.postings[t], doc<<8|uint32(p.tf[k]))
							x.df[t]++
						}
					}
					start = end
					doc++
				}
			}
		}()
	}
	wg2.Wait()
	return nil
}

// tokenizeDocs tokenises docs against a fresh local dictionary.
func tokenizeDocs(docs []*Doc) tokenized {
	p := tokenized{pairs: make([]int, 0, len(docs)), lengths: make([]uint32, 0, len(docs))}
	size := 0
	for _, d := range docs {
		size += len(d.Title) + len(d.Fields) + len(d.Body)
	}
	p.term = make([]uint32, 0, size/7) // about one distinct term per 7 bytes of notes
	p.tf = make([]uint8, 0, size/7)
	var tk tokenizer
	var uniq []uint32  // distinct local terms of the current document
	var count []uint32 // per local term: occurrences in the current document
	var length uint32
	dict := newDict()
	each := func(tok []byte, _, _ int) {
		t := dict.id(tok)
		if int(t) == len(count) {
			count = append(count, 0)
		}
		if count[t] == 0 {
			uniq = append(uniq, t)
		}
		count[t]++
		length++
	}
	for _, d := range docs {
		uniq, length = uniq[:0], 0
		tk.each(d.Title, each)
		tk.each(d.Fields, each)
		tk.each(d.Body, each)
		p.lengths = append(p.lengths, length)
		for _, t := range uniq {
			p.term = append(p.term, t)
			p.tf = append(p.tf, uint8(min(count[t], maxTF)))
			count[t] = 0
		}
		p.pairs = append(p.pairs, len(p.term))
	}
	p.terms = dict.terms
	return p
}
