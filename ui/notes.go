package ui

import (
	"slices"
	"sync"
	"time"
)

// noteLog keeps what the state repo warned about while the server read it
// (entries that do not parse and were left out, repairs), by message with
// when it was last said, so a page can report what its own reads met, once
// each. The Warn hook of a staterepo.Store gets no request, so a page
// collects the notes said since it started; a note another page's read
// said meanwhile is as true of the state.
type noteLog struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

// maxNotes bounds the messages kept; the oldest go first.
const maxNotes = 200

func (n *noteLog) add(msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen == nil {
		n.seen = map[string]time.Time{}
	}
	n.seen[msg] = time.Now()
	for len(n.seen) > maxNotes {
		oldest, at := "", time.Time{}
		for m, t := range n.seen {
			if oldest == "" || t.Before(at) {
				oldest, at = m, t
			}
		}
		delete(n.seen, oldest)
	}
}

// since returns the messages said at or after t, sorted.
func (n *noteLog) since(t time.Time) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for m, at := range n.seen {
		if !at.Before(t) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}
