package staterepo

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/search"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// Search scopes: the current agent's branch, global, or every branch.
const (
	ScopeAgent  = "agent"  // the current agent's branch
	ScopeGlobal = "global" // the global branch
	ScopeAll    = "all"    // every branch, other agents' too
)

// Sources name where a search document lives: SourceAgent for the current
// agent's branch, SourceGlobal for global, and "agent:NAME" for other agents
// (included in ScopeAll only).
const (
	SourceAgent  = "agent"  // the current agent's branch
	SourceGlobal = "global" // the global branch
)

// SearchQuery is one search request.
type SearchQuery struct {
	Query string        // the words to look for
	Kinds []search.Kind // nil: every kind
	Scope string        // agent, global or all (default all)
	Limit int           // default 10
}

// sourcesFor maps a scope to search.Options.Sources.
func sourcesFor(scope string) ([]string, error) {
	switch scope {
	case "", ScopeAll:
		return nil, nil
	case ScopeAgent:
		return []string{SourceAgent}, nil
	case ScopeGlobal:
		return []string{SourceGlobal}, nil
	}
	return nil, fmt.Errorf("scope %q: use agent, global or all", scope)
}

func (q SearchQuery) options() (search.Options, error) {
	src, err := sourcesFor(q.Scope)
	if err != nil {
		return search.Options{}, err
	}
	if strings.TrimSpace(q.Query) == "" {
		return search.Options{}, fmt.Errorf("query is %w; give words to look for", ErrEmpty)
	}
	if len(q.Query) > 1000 {
		return search.Options{}, fmt.Errorf("%w: query is %d bytes; use at most 1000", ErrTooLarge, len(q.Query))
	}
	if q.Limit < 0 || q.Limit > 100 {
		return search.Options{}, fmt.Errorf("limit %d: use 1 to 100", q.Limit)
	}
	return search.Options{Kinds: q.Kinds, Sources: src, Limit: q.Limit}, nil
}

// Searcher keeps a search index of the state repo warm: each Search first
// re-reads only the files whose content changed since the last one. It is
// safe for concurrent use; the MCP server keeps one for its lifetime.
type Searcher struct {
	s *Store
	// mu serialises refreshes and guards seen and problems; idx has its own
	// lock, so a search reads it without mu.
	mu      sync.Mutex
	filling atomic.Bool // the first fill of the index is under way
	// loading holds the documents the first fill read, for searches that
	// arrive while it builds the index.
	loading atomic.Pointer[firstLoad]
	idx     *search.Index
	// seen maps a group (source:path) to the content it was indexed from.
	seen map[string]plumbing.Hash
	// problems maps a group to the malformed entries found in it.
	problems map[string][]changelog.Problem
	// warm is set once the first fill is done; until then searches neither
	// wait for mu (which the fill holds) nor read the index.
	warm atomic.Bool
	// smu guards scanned: the problems of the last search answered while
	// the index was cold.
	smu     sync.Mutex
	scanned []changelog.Problem
}

// NewSearcher returns a Searcher over s's state repo. Its index is built
// on all CPUs but one, so a server building it in the background still
// answers planq_context promptly.
func NewSearcher(s *Store) *Searcher {
	idx := search.NewIndex()
	idx.SetWorkers(max(1, runtime.GOMAXPROCS(0)-1))
	return &Searcher{s: s, idx: idx, seen: map[string]plumbing.Hash{}, problems: map[string][]changelog.Problem{}}
}

// Problems returns the malformed entries the last search met (each read of
// the state reports them; see changelog.Problem), in file order.
func (x *Searcher) Problems() []changelog.Problem {
	if !x.warm.Load() {
		x.smu.Lock()
		defer x.smu.Unlock()
		return append([]changelog.Problem(nil), x.scanned...)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []changelog.Problem
	for _, ps := range x.problems {
		out = append(out, ps...)
	}
	sortProblems(out)
	return out
}

// Search brings the index up to date and ranks documents for q. While the
// index has never been filled, it answers from a scan of the documents the
// first fill reads (the same ranking), started now unless the server
// started it already, so a cold first search pays for reading the
// documents once and not for building the whole index.
func (x *Searcher) Search(ctx context.Context, q SearchQuery) ([]search.Hit, error) {
	opts, err := q.options()
	if err != nil {
		return nil, err
	}
	if x.cold() {
		x.Warm()
		if l := x.loading.Load(); l != nil {
			start := time.Now()
			l.scans.RLock() // the fill builds the index only after this scan
			defer l.scans.RUnlock()
			select {
			case <-l.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if l.err == nil {
				ready := time.Now()
				hits, probs, err := rankFiles(l.per, q.Query, opts)
				x.s.debugf("cold search: %d files ready after %v, ranked in %v", len(l.per), ready.Sub(start), time.Since(ready))
				if err == nil {
					x.smu.Lock()
					x.scanned = probs
					x.smu.Unlock()
					return hits, nil
				}
			}
		}
		if x.cold() { // the fill failed: a one-shot scan says why
			hits, probs, err := x.s.Search(ctx, q)
			x.smu.Lock()
			x.scanned = probs
			x.smu.Unlock()
			return hits, err
		}
	}
	if err := x.Refresh(ctx); err != nil {
		return nil, err
	}
	return x.idx.Search(q.Query, opts), nil
}

// firstLoad is the documents the first fill of an index read, shared with
// the searches that arrive before the index is built.
type firstLoad struct {
	ready chan struct{} // closed once per and err are set
	scans sync.RWMutex  // held for reading by the scans of these documents
	once  sync.Once
	per   []fileDocs
	err   error
}

// publish hands what the first fill read (or its error) to the searches
// waiting for it.
func (l *firstLoad) publish(per []fileDocs, err error) {
	if l == nil {
		return
	}
	l.once.Do(func() {
		l.per, l.err = per, err
		close(l.ready)
	})
}

// cold reports whether the index has never been filled (and there is a
// state repo to fill it from).
func (x *Searcher) cold() bool { return !x.warm.Load() && x.s.Initialized() }

// Warm fills the index in the background unless a fill is already under
// way or done; the MCP server calls it at start-up.
func (x *Searcher) Warm() {
	if !x.cold() || !x.filling.CompareAndSwap(false, true) {
		return
	}
	l := &firstLoad{ready: make(chan struct{})}
	x.loading.Store(l)
	go func() {
		defer x.filling.Store(false)
		err := x.refresh(context.Background(), l) // a failure leaves the index cold; searches then scan
		l.publish(nil, err)
		x.loading.Store(nil)
	}()
}

// Refresh re-indexes the files that changed since the last refresh.
func (x *Searcher) Refresh(ctx context.Context) error { return x.refresh(ctx, nil) }

// refresh is Refresh; the first fill publishes the documents it read to l
// before it builds the index.
func (x *Searcher) refresh(ctx context.Context, l *firstLoad) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.s.Initialized() {
		return nil
	}
	files, err := x.s.searchFiles()
	if err != nil {
		return err
	}
	live := map[string]bool{}
	first := len(x.seen) == 0
	var bulk []search.Doc
	var changed []searchFile
	segments := map[plumbing.Hash]bool{}
	for _, f := range files {
		live[f.group] = true
		if x.seen[f.group] != f.hash {
			changed = append(changed, f)
		}
		if isSegment(f.path) {
			segments[f.hash] = true
		}
	}
	var cache *searchCache
	if first {
		cache = loadSearchCache(x.s.Bare)
	}
	perFile, err := readDocs(ctx, changed, cache)
	if err != nil {
		return err
	}
	if first && l != nil {
		// The searches waiting for what the fill read rank it before the
		// index build takes the CPUs.
		l.publish(perFile, nil)
		l.scans.Lock()
		l.scans.Unlock() //lint:ignore SA2001 taking the lock is the wait for the scans that hold it for reading
	}
	for i, f := range changed {
		docs, err := perFile[i].all()
		if err != nil {
			return err
		}
		if first {
			bulk = append(bulk, docs...) // first fill: one bulk add
		} else if err := x.idx.Sync(f.group, docs); err != nil {
			return err
		}
		x.seen[f.group] = f.hash
		if len(perFile[i].problems) > 0 {
			x.problems[f.group] = perFile[i].problems
		} else {
			delete(x.problems, f.group)
		}
	}
	if len(bulk) > 0 {
		if err := x.idx.Add(bulk...); err != nil {
			return err
		}
	}
	x.warm.Store(true)
	cache.save(x.s.Bare, segments)
	for g := range x.seen {
		if !live[g] {
			if err := x.idx.Sync(g, nil); err != nil {
				return err
			}
			delete(x.seen, g)
			delete(x.problems, g)
		}
	}
	return nil
}

// Search ranks the state repo's documents for q without keeping an index
// (for one-shot CLI searches), and returns the malformed entries it met in
// the files it read, as every read of the state reports them.
func (s *Store) Search(ctx context.Context, q SearchQuery) ([]search.Hit, []changelog.Problem, error) {
	opts, err := q.options()
	if err != nil {
		return nil, nil, err
	}
	if !s.Initialized() {
		return []search.Hit{}, nil, nil
	}
	files, err := s.searchFiles()
	if err != nil {
		return nil, nil, err
	}
	segments := map[plumbing.Hash]bool{}
	for _, f := range files {
		if isSegment(f.path) {
			segments[f.hash] = true
		}
	}
	cache := loadSearchCache(s.Bare)
	perFile, err := readDocs(ctx, files, cache)
	if err != nil {
		return nil, nil, err
	}
	hits, probs, err := rankFiles(perFile, q.Query, opts)
	if err != nil {
		return nil, nil, err
	}
	cache.save(s.Bare, segments)
	return hits, probs, nil
}

// sortProblems orders problems by file, then line.
func sortProblems(probs []changelog.Problem) {
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].File != probs[j].File {
			return probs[i].File < probs[j].File
		}
		return probs[i].Line < probs[j].Line
	})
}

// fileDocs is what one file holds for search: its documents — or, for a
// cached archive segment, its index — and the malformed entries skipped.
type fileDocs struct {
	docs     []search.Doc
	seg      *search.SegmentRef
	problems []changelog.Problem
}

// all returns the file's documents, decoding a segment's.
func (d fileDocs) all() ([]search.Doc, error) {
	if d.seg == nil {
		return d.docs, nil
	}
	return d.seg.Seg.Docs(d.seg.Source, d.seg.Group)
}

// label returns probs with File set to the file's label.
func (f searchFile) label(probs []changelog.Problem) []changelog.Problem {
	out := make([]changelog.Problem, len(probs))
	for i, p := range probs {
		p.File = f.labelName
		out[i] = p
	}
	return out
}

// rankFiles ranks what readDocs read for q, as an index holding all of it
// would: cached segments through their indexes, the rest by a scan.
func rankFiles(per []fileDocs, q string, opts search.Options) ([]search.Hit, []changelog.Problem, error) {
	var refs []search.SegmentRef
	var loose []search.Doc
	var probs []changelog.Problem
	for _, d := range per {
		if d.seg != nil {
			refs = append(refs, *d.seg)
		}
		loose = append(loose, d.docs...)
		probs = append(probs, d.problems...)
	}
	hits, err := search.ScanSegments(refs, loose, q, opts)
	if hits == nil {
		hits = []search.Hit{}
	}
	sortProblems(probs)
	return hits, probs, err
}

// readDocs reads and parses files in parallel, one result per file,
// through the search cache.
func readDocs(ctx context.Context, files []searchFile, cache *searchCache) ([]fileDocs, error) {
	out := make([]fileDocs, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = files[i].read(cache)
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// searchFile is one indexable file of one branch.
type searchFile struct {
	r      *gitstore.Repo
	source string
	branch string
	path   string
	group  string
	hash   plumbing.Hash // the content's blob id
	// data is the content when it comes from a worktree (hand edits not
	// committed yet); nil means the blob hash.
	data []byte
	// labelName names the file in problems: its path on the current
	// agent's branch, as the other reads name it, else branch:path.
	labelName string
}

// searchFiles lists every indexable file of global and the agent branches.
// A branch's live files (not its archive segments) are read from the
// worktree that has it checked out, as every other read shows them, so
// uncommitted hand edits are searched and their malformed entries
// reported.
func (s *Store) searchFiles() ([]searchFile, error) {
	rd, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer rd.close()
	r := rd.r
	branches, err := r.Branches()
	if err != nil {
		return nil, err
	}
	var out []searchFile
	for _, b := range branches {
		source := SourceGlobal
		switch {
		case b == GlobalBranch:
		case b == s.Branch():
			source = SourceAgent
		case strings.HasPrefix(b, AgentPrefix):
			source = "agent:" + strings.TrimPrefix(b, AgentPrefix)
		default:
			continue
		}
		files, err := r.BranchFiles(b)
		if err != nil {
			return nil, err
		}
		checkedOut := rd.worktreeFor(b) != nil
		for p, e := range files {
			if searchKind(p) == "" {
				continue
			}
			f := searchFile{r: r, source: source, branch: b, path: p, group: source + ":" + p, hash: e.Hash, labelName: b + ":" + p}
			if b == s.Branch() {
				f.labelName = p
			}
			if checkedOut && !strings.HasPrefix(p, ArchiveDir+"/") {
				if data, ok, err := rd.file(b, p); err == nil && ok {
					if h := gitstore.BlobHash(data); h != e.Hash {
						f.hash, f.data = h, data
					}
				}
			}
			out = append(out, f)
		}
	}
	for _, n := range rd.notes {
		s.warn(n.Error())
	}
	return out, nil
}

// searchKind says how a state file is indexed: "entries" for append-only
// files, a search.Kind for whole documents, "" for files not indexed.
func searchKind(p string) string {
	switch {
	case familyOf(p) != "":
		return "entries"
	case p == ScratchFile:
		return string(search.KindScratch)
	case p == ContextFile || p == PlanFile:
		return string(search.KindContext)
	case strings.HasPrefix(p, BranchesDir+"/") && strings.HasSuffix(p, ".md") && p != BranchesDir+"/README.md":
		return string(search.KindBranch)
	}
	return ""
}

// read reads and converts the file's documents: an archive segment's index
// from the cache when it has it (else the segment is parsed, and handed to
// the cache to encode), other files' documents parsed afresh.
func (f searchFile) read(cache *searchCache) (fileDocs, error) {
	kind := searchKind(f.path)
	segment := f.data == nil && isSegment(f.path)
	if segment {
		if cs, ok := cache.get(f.hash); ok {
			return fileDocs{seg: &search.SegmentRef{Seg: cs.seg, Source: f.source, Group: f.group}, problems: f.label(cs.probs)}, nil
		}
	}
	data := f.data
	if data == nil {
		var err error
		if data, err = f.r.Blob(f.hash); err != nil {
			return fileDocs{}, err
		}
	}
	if kind == "entries" {
		es, probs := changelog.ParseBytes(data)
		neutral := make([]search.Doc, len(es))
		docs := make([]search.Doc, len(es))
		for i, e := range es {
			neutral[i] = search.FromEntry(e, "")
			docs[i] = neutral[i]
			docs[i].Source, docs[i].Group = f.source, f.group
		}
		if segment {
			cache.put(f.hash, parsedSegment{docs: neutral, probs: probs})
		}
		return fileDocs{docs: docs, problems: f.label(probs)}, nil
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return fileDocs{}, nil
	}
	title := f.path
	if kind == string(search.KindBranch) {
		title = "branch context: " + strings.TrimSuffix(strings.TrimPrefix(f.path, BranchesDir+"/"), ".md")
	}
	return fileDocs{docs: []search.Doc{{ID: f.path, Kind: search.Kind(kind), Source: f.source, Group: f.group, Title: title, Body: text}}}, nil
}
