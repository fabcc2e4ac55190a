package ui

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/planq-dev/planq/jj"
)

// Live-update event names: what moved.
const (
	EventJJ    = "jj"    // jj's operation heads: the change graph or a working copy
	EventState = "state" // a state repo branch
)

// keys returns the cheap keys of what the page shows: jj's operation heads
// and the state branches' heads. No process is started.
func (s *Server) keys() map[string]string {
	out := map[string]string{}
	if k, err := jj.OpHeadsKey(s.root); err == nil {
		out[EventJJ] = k
	}
	if k, err := s.state.HeadsKey(); err == nil {
		out[EventState] = k
	}
	return out
}

// hub polls the keys while someone listens and tells every listener which
// moved.
type hub struct {
	keys func() map[string]string
	poll time.Duration

	mu   sync.Mutex
	subs map[chan string]struct{}
	wake chan struct{}
}

func newHub(keys func() map[string]string, poll time.Duration) *hub {
	return &hub{keys: keys, poll: poll, subs: map[chan string]struct{}{}, wake: make(chan struct{}, 1)}
}

// subscribe returns a channel of event names and a function to leave.
func (h *hub) subscribe() (<-chan string, func()) {
	ch := make(chan string, 4)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

func (h *hub) listeners() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// run polls until ctx ends, sleeping while nobody listens.
func (h *hub) run(ctx context.Context) {
	last := h.keys()
	t := time.NewTicker(h.poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.wake:
			continue
		case <-t.C:
		}
		if h.listeners() == 0 {
			continue
		}
		now := h.keys()
		for name, k := range now {
			if last[name] != k {
				h.send(name)
			}
		}
		last = now
	}
}

func (h *hub) send(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- name:
		default: // a slow listener misses an event, never blocks the others
		}
	}
}

// events streams server-sent events: one named EventJJ or EventState each
// time those move, and a comment now and then to keep the stream open.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	ch, leave := s.live.subscribe()
	defer leave()
	fmt.Fprint(w, "retry: 2000\n: planq ui live updates\n\n")
	fl.Flush()
	ping := time.NewTicker(20 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case name := <-ch:
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, name)
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
		}
		fl.Flush()
	}
}
