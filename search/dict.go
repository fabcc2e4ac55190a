package search

// dict numbers distinct terms. It is an open-addressing hash table whose
// slots hold a term's hash and number together, so most probes touch one
// cache line; it is faster than a map[string]uint32 for the many short
// look-ups of bulk indexing.
type dict struct {
	table []uint64 // hash<<32 | term number + 1; 0 is empty
	terms []string // per term
	mask  uint32
}

func newDict() *dict {
	return &dict{table: make([]uint64, 1<<14), mask: 1<<14 - 1}
}

// fnv32 is FNV-1a.
func fnv32(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// id returns tok's term number, adding tok when new.
func (d *dict) id(tok []byte) uint32 {
	h := fnv32(tok)
	for i := h & d.mask; ; i = (i + 1) & d.mask {
		e := d.table[i]
		if e == 0 {
			t := uint32(len(d.terms))
			d.terms = append(d.terms, string(tok))
			d.table[i] = uint64(h)<<32 | uint64(t+1)
			if len(d.terms)*2 > len(d.table) {
				d.grow()
			}
			return t
		}
		if uint32(e>>32) == h {
			if t := uint32(e) - 1; d.terms[t] == string(tok) {
				return t
			}
		}
	}
}

func (d *dict) grow() {
	old := d.table
	d.table = make([]uint64, 2*len(old))
	d.mask = uint32(len(d.table) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := uint32(e>>32) & d.mask
		for d.table[i] != 0 {
			i = (i + 1) & d.mask
		}
		d.table[i] = e
	}
}
