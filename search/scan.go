package search

import "runtime"

// Scan ranks docs for query without building an index, for one-shot
// searches such as `planq search` from the shell; it returns the same hits as
// an Index holding docs (whose (Source, ID) pairs must be unique). It
// tokenises the documents once, on all CPUs, and keeps only the counts of the
// query's terms.
func Scan(docs []Doc, query string, opts Options) []Hit {
	terms := queryTerms(query)
	if len(terms) == 0 || len(docs) == 0 {
		return nil
	}
	st := scanStats(docs, terms)
	n := float64(len(docs))
	avgdl := float64(st.totalLen) / n
	idf := make([]float64, len(terms))
	for i := range terms {
		idf[i] = idfOf(n, float64(st.df[i]))
	}
	top := newTopK(opts.limit())
	nq := float64(len(terms))
	for _, m := range st.matches {
		doc := &docs[m.doc]
		if !opts.admits(doc) {
			continue
		}
		score, matched := 0.0, 0
		for i, f := range m.tf {
			if f > 0 {
				score += termScore(idf[i], f, m.length, avgdl)
				matched++
			}
		}
		top.offer(doc, score*float64(matched)/nq)
	}
	return top.hits(terms, opts.snippetLen())
}

// match is a document that holds at least one query term: its number, its
// token count and each term's frequency (capped).
type match struct {
	doc    int
	length uint32
	tf     []uint32 // per term
}

// stats is what a scan of documents found: their tokens in all, how many
// hold each term, and the documents that hold any.
type stats struct {
	totalLen int64
	df       []uint32
	matches  []match
}

// scanStats tokenises docs on all CPUs and counts the query's terms.
func scanStats(docs []Doc, terms []string) stats {
	type part struct {
		totalLen int64
		df       []uint32
		matches  []match
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(docs)/2000))
	parts := make([]part, workers)
	inParallel(len(docs), workers, func(w, lo, hi int) {
		p := &parts[w]
		p.df = make([]uint32, len(terms))
		tf := make([]uint32, len(terms))
		var tk tokenizer
		var length uint32
		each := func(tok []byte, _, _ int) {
			length++
			for i, t := range terms {
				if len(tok) == len(t) && string(tok) == t {
					tf[i]++
					return
				}
			}
		}
		for d := lo; d < hi; d++ {
			clear(tf)
			length = 0
			doc := &docs[d]
			tk.eachIndexed(doc, each)
			p.totalLen += int64(length)
			hit := false
			for i, f := range tf {
				if f > 0 {
					p.df[i]++
					hit = true
				}
			}
			if hit {
				m := match{doc: d, length: length, tf: make([]uint32, len(terms))}
				for i, f := range tf {
					m.tf[i] = min(f, maxTF)
				}
				p.matches = append(p.matches, m)
			}
		}
	})
	out := stats{df: make([]uint32, len(terms))}
	for _, p := range parts {
		out.totalLen += p.totalLen
		for i, f := range p.df {
			out.df[i] += f
		}
		out.matches = append(out.matches, p.matches...)
	}
	return out
}
