package staterepo

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

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
	idx     *search.Index
	// seen maps a group (source:path) to the content it was indexed from.
	seen map[string]plumbing.Hash
	// problems maps a group to the malformed entries found in it.
	problems map[string][]changelog.Problem
	// scanned holds the problems of the last one-shot scan, while the
	// index was cold.
	scanned []changelog.Problem
}

// NewSearcher returns a Searcher over s's state repo.
func NewSearcher(s *Store) *Searcher {
	return &Searcher{s: s, idx: search.NewIndex(), seen: map[string]plumbing.Hash{}, problems: map[string][]changelog.Problem{}}
}

// Problems returns the malformed entries the last search met (each read of
// the state reports them; see changelog.Problem), in file order.
func (x *Searcher) Problems() []changelog.Problem {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.seen) == 0 {
		return append([]changelog.Problem(nil), x.scanned...)
	}
	var out []changelog.Problem
	for _, ps := range x.problems {
		out = append(out, ps...)
	}
	sortProblems(out)
	return out
}

// Search brings the index up to date and ranks documents for q. While the
// index has never been filled it answers from a one-shot scan (the same
// ranking) and fills the index in the background, so a cold first search
// does not pay for building the whole index.
func (x *Searcher) Search(ctx context.Context, q SearchQuery) ([]search.Hit, error) {
	opts, err := q.options()
	if err != nil {
		return nil, err
	}
	if x.filling.Load() || x.cold() {
		hits, probs, err := x.s.Search(ctx, q)
		x.mu.Lock()
		x.scanned = probs
		x.mu.Unlock()
		x.Warm() // after answering, so the fill does not compete with the scan
		return hits, err
	}
	if err := x.Refresh(ctx); err != nil {
		return nil, err
	}
	return x.idx.Search(q.Query, opts), nil
}

// cold reports whether the index has never been filled.
func (x *Searcher) cold() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.seen) == 0 && x.s.Initialized()
}

// Warm fills the index in the background unless a fill is already under
// way; the MCP server calls it at start-up.
func (x *Searcher) Warm() {
	if !x.filling.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer x.filling.Store(false)
		_ = x.Refresh(context.Background()) // a failure leaves the index cold; searches then scan
	}()
}

// Refresh re-indexes the files that changed since the last refresh.
func (x *Searcher) Refresh(ctx context.Context) error {
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
	for _, f := range files {
		live[f.group] = true
		if x.seen[f.group] != f.hash {
			changed = append(changed, f)
		}
	}
	perFile, err := readDocs(ctx, changed)
	if err != nil {
		return err
	}
	for i, f := range changed {
		if first {
			bulk = append(bulk, perFile[i].docs...) // first fill: one bulk add
		} else if err := x.idx.Sync(f.group, perFile[i].docs); err != nil {
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
	var want []searchFile
	for _, f := range files {
		if len(opts.Sources) == 0 || opts.Sources[0] == f.source {
			want = append(want, f)
		}
	}
	perFile, err := readDocs(ctx, want)
	if err != nil {
		return nil, nil, err
	}
	var docs []search.Doc
	var probs []changelog.Problem
	for _, d := range perFile {
		docs = append(docs, d.docs...)
		probs = append(probs, d.problems...)
	}
	hits := search.Scan(docs, q.Query, opts)
	if hits == nil {
		hits = []search.Hit{}
	}
	sortProblems(probs)
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

// fileDocs is what one file holds for the index: its documents and the
// malformed entries skipped.
type fileDocs struct {
	docs     []search.Doc
	problems []changelog.Problem
}

// readDocs reads and parses files in parallel, one result per file.
func readDocs(ctx context.Context, files []searchFile) ([]fileDocs, error) {
	out := make([]fileDocs, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = files[i].read()
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
	// label names the file in problems: its path on the current agent's
	// branch, as the other reads name it, else branch:path.
	label string
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
			f := searchFile{r: r, source: source, branch: b, path: p, group: source + ":" + p, hash: e.Hash, label: b + ":" + p}
			if b == s.Branch() {
				f.label = p
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

// read reads and converts the file's documents.
func (f searchFile) read() (fileDocs, error) {
	data := f.data
	if data == nil {
		var err error
		if data, err = f.r.Blob(f.hash); err != nil {
			return fileDocs{}, err
		}
	}
	kind := searchKind(f.path)
	if kind == "entries" {
		es, probs := changelog.ParseBytes(data)
		docs := make([]search.Doc, 0, len(es))
		for _, e := range es {
			d := search.FromEntry(e, f.source)
			d.Group = f.group
			docs = append(docs, d)
		}
		for i := range probs {
			probs[i].File = f.label
		}
		return fileDocs{docs: docs, problems: probs}, nil
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
