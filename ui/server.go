// Package ui serves `planq ui`: a local, read-only web page showing a
// project's agents, change graph with living summaries, stored transcripts,
// agent state and local metrics, updated live while agents work.
//
// The server binds a loopback address only, answers only requests that carry
// its random token (in the URL it prints, then in a cookie) and name it by
// its own host and port (no DNS rebinding), sends a strict
// Content-Security-Policy, and has no endpoint that changes anything.
package ui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// Options configure a Server.
type Options struct {
	Dir    string              // a directory in the code repo (required)
	Getenv func(string) string // environment; default os.Getenv
	JJBin  string              // jj executable; default "jj"
	// Token is the secret every request must carry; default: 32 random bytes.
	Token string
	// Poll is how often the live-update loop checks jj's operation heads and
	// the state branches; default 500ms.
	Poll time.Duration
	Now  func() time.Time // clock; default time.Now
}

// Server is the `planq ui` web server of one code repo.
type Server struct {
	root     string // the code repo's root (main workspace)
	token    string
	getenv   func(string) string
	jjBin    string
	poll     time.Duration
	now      func() time.Time
	tmpl     *template.Template
	state    *staterepo.Store
	searcher *staterepo.Searcher
	ts       *transcript.Store // nil when the store cannot be located
	catalog  *lineageCatalog   // the stored lineages; nil with ts
	metrics  string            // the metrics directory ("" when unknown)

	mu    sync.Mutex
	hosts map[string]bool // Host header values accepted (127.0.0.1:PORT, localhost:PORT)
	port  int

	live  *hub
	notes noteLog // the state repo's warnings (see noteLog)
}

// New prepares a server for the code repo at o.Dir; it listens nowhere yet.
func New(o Options) (*Server, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	root, ok := jj.FindRoot(o.Dir)
	if !ok {
		return nil, fmt.Errorf("%s is not in a jj repo: run planq ui in your code repo or pass --repo", o.Dir)
	}
	if main, err := jj.MainRoot(root); err == nil {
		root = main
	}
	token := o.Token
	if token == "" {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("cannot make a token: %w", err)
		}
		token = hex.EncodeToString(b)
	}
	s := &Server{root: root, token: token, getenv: getenv, jjBin: o.JJBin, poll: o.Poll, now: o.Now, hosts: map[string]bool{}}
	st, err := staterepo.Open(staterepo.Options{Dir: root, Getenv: getenv, Warn: s.notes.add})
	if err != nil {
		return nil, fmt.Errorf("state repo: %w", err)
	}
	s.state, s.searcher = st, staterepo.NewSearcher(st)
	if s.poll <= 0 {
		s.poll = 500 * time.Millisecond
	}
	if s.now == nil {
		s.now = time.Now
	}
	if ts, err := transcript.New(st.Home, st.Project); err == nil {
		s.ts, s.catalog = ts, newLineageCatalog(ts)
	}
	s.metrics = metrics.Dir(st.Home, st.Project)
	if s.tmpl, err = parseTemplates(s.now); err != nil {
		return nil, err
	}
	s.live = newHub(s.keys, s.poll)
	return s, nil
}

// Token returns the secret requests must carry.
func (s *Server) Token() string { return s.token }

// Root returns the code repo's root directory.
func (s *Server) Root() string { return s.root }

// ErrNotLoopback reports an address that is not on the loopback interface.
var ErrNotLoopback = errors.New("planq ui serves on 127.0.0.1 only")

// Listen binds addr ("127.0.0.1:0" for a free port; any host but 127.0.0.1
// or localhost is refused) and makes its port the one the Host header must
// name. It returns the listener for Serve.
func (s *Server) Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", addr, err)
	}
	if host != "127.0.0.1" && host != "localhost" {
		return nil, fmt.Errorf("%w: %q is not 127.0.0.1 (the page shows private work; it is never served to a network)", ErrNotLoopback, host)
	}
	ln, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1:%s: %w", port, err)
	}
	s.AllowPort(ln.Addr().(*net.TCPAddr).Port)
	return ln, nil
}

// AllowPort makes 127.0.0.1:port and localhost:port the Host header values
// the server accepts (Listen calls it; tests with their own listener too).
func (s *Server) AllowPort(port int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.port = port
	p := strconv.Itoa(port)
	s.hosts = map[string]bool{"127.0.0.1:" + p: true, "localhost:" + p: true}
}

// URL returns the address to open, with the token.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("http://127.0.0.1:%d/?token=%s", s.port, s.token)
}

// Serve answers requests on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go s.live.run(ctx)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	}
}

// Handler returns the server's HTTP handler, every route behind the safety
// checks (see guard).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", s.page("overview", s.overview))
	mux.HandleFunc("/changes", s.page("changes", s.changes))
	mux.HandleFunc("/transcript", s.page("transcript", s.transcript))
	mux.HandleFunc("/state", s.page("state", s.statePage))
	mux.HandleFunc("/metrics", s.page("metrics", s.metricsPage))
	mux.HandleFunc("/change/diff", s.fragment("diff", s.changeDiff))
	mux.HandleFunc("/events", s.events)
	mux.Handle("/assets/", http.StripPrefix("/assets/", assetHandler()))
	return s.guard(mux)
}

// jj returns a jj client for the repo.
func (s *Server) jj() *jj.Client {
	c := jj.New(s.root)
	c.Bin = s.jjBin
	return c
}
