package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/planq-dev/planq/transcript"
)

// lineageCatalog keeps the project's session records in memory for the
// pages that list lineages (Overview, Transcript). A long-running server
// reads each record once and again only when its file changed: a refresh
// lists the sessions directory and stats each record, so a project with
// 10,000 lineages costs 10,000 stats a page, not 10,000 reads and JSON
// decodes.
type lineageCatalog struct {
	ts *transcript.Store

	mu   sync.Mutex
	recs map[string]catalogEntry // by directory name
}

type catalogEntry struct {
	fi   fs.FileInfo         // the record file when it was read
	sess *transcript.Session // nil for a bad record
	err  error               // why the record was skipped
}

// changed reports whether the record file is not the one read: another
// file (the store replaces a record by renaming a new one over it), or the
// same edited in place.
func (ce catalogEntry) changed(fi fs.FileInfo) bool {
	return ce.fi == nil || !os.SameFile(ce.fi, fi) || !ce.fi.ModTime().Equal(fi.ModTime()) || ce.fi.Size() != fi.Size()
}

// lineageList is what a refresh found.
type lineageList struct {
	All  []*transcript.Session   // the valid records, newest Updated first
	Bad  []*transcript.BadRecord // the records skipped as invalid, by path
	Errs []string                // records that could not be read at all
}

func newLineageCatalog(ts *transcript.Store) *lineageCatalog {
	return &lineageCatalog{ts: ts, recs: map[string]catalogEntry{}}
}

// list refreshes the catalog and returns its records.
func (c *lineageCatalog) list() (lineageList, error) {
	var out lineageList
	if c == nil {
		return out, nil
	}
	dir := c.ts.ProjectDir()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("list session lineages: %w", err)
	}
	// Stat the records in parallel: the syscalls dominate, and a machine
	// with cores to spare does them side by side.
	type stat struct {
		fi  fs.FileInfo
		bad error
	}
	stats := make([]stat, len(entries))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 8, max(1, len(entries)/500))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(entries); i += workers {
				e := entries[i]
				if err := c.ts.CheckDir(e); err != nil {
					stats[i].bad = err
					continue
				}
				if !e.IsDir() || transcript.ValidChangeID(e.Name()) != nil {
					continue // index directories, stray files
				}
				// A lineage whose record is not written yet has none.
				stats[i].fi, _ = os.Stat(filepath.Join(dir, e.Name(), transcript.SessionFile))
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		name, fi := e.Name(), stats[i].fi
		if stats[i].bad != nil {
			out.Bad = append(out.Bad, transcript.BadRecords(stats[i].bad)...)
			continue
		}
		if fi == nil {
			continue
		}
		seen[name] = true
		ce, ok := c.recs[name]
		if !ok || ce.changed(fi) {
			ce = catalogEntry{fi: fi}
			ce.sess, ce.err = c.ts.Load(name)
			c.recs[name] = ce
		}
		switch {
		case ce.sess != nil:
			out.All = append(out.All, ce.sess)
		case errors.Is(ce.err, transcript.ErrNoSession):
		case errors.Is(ce.err, transcript.ErrBadRecord):
			out.Bad = append(out.Bad, transcript.BadRecords(ce.err)...)
		default:
			out.Errs = append(out.Errs, ce.err.Error())
		}
	}
	for name := range c.recs {
		if !seen[name] {
			delete(c.recs, name) // removed since
		}
	}
	slices.SortStableFunc(out.All, func(a, b *transcript.Session) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.Root, b.Root)
	})
	return out, nil
}

// badNotice is the one notice a page shows about the session records it
// skipped: how many, the first few with what is wrong, and the fix.
type badNotice struct {
	Count int
	Shown []*transcript.BadRecord
	More  int
}

// maxBadShown bounds the skipped records a notice names.
const maxBadShown = 3

func noticeOf(bad []*transcript.BadRecord) *badNotice {
	if len(bad) == 0 {
		return nil
	}
	n := &badNotice{Count: len(bad), Shown: bad}
	if len(bad) > maxBadShown {
		n.Shown, n.More = bad[:maxBadShown], len(bad)-maxBadShown
	}
	return n
}

// pageLineages finds the lineages of the changes on a page without reading
// every record: a change's root comes from its description's Session
// trailer or the by-change index (transcript.Store.RootFor), and each root's
// record is read once. Records found bad are skipped and returned.
type pageLineages struct {
	ts    *transcript.Store
	roots map[string]*transcript.Session // by root; nil: none or bad
	bad   []*transcript.BadRecord
}

func (s *Server) newPageLineages() *pageLineages {
	return &pageLineages{ts: s.ts, roots: map[string]*transcript.Session{}}
}

// of returns the lineage change belongs to, or nil.
func (p *pageLineages) of(changeID, description string) *transcript.Session {
	if p.ts == nil {
		return nil
	}
	root, ok := p.ts.RootFor(changeID, description)
	if !ok {
		return nil
	}
	return p.load(root)
}

// load returns the record of the lineage rooted at root, or nil.
func (p *pageLineages) load(root string) *transcript.Session {
	if p.ts == nil {
		return nil
	}
	if sess, ok := p.roots[root]; ok {
		return sess
	}
	sess, err := p.ts.Load(root)
	if err != nil {
		sess = nil
		p.bad = append(p.bad, transcript.BadRecords(err)...)
	}
	p.roots[root] = sess
	return sess
}

// lineageFrom says whose machines a lineage's sessions ran on.
type lineageFrom struct {
	// Teammates are the origin ids of the other machines whose sessions it
	// holds, pulled with the state repo: the machine that recorded the
	// lineage first.
	Teammates []string
	Here      bool // some of its sessions ran on this machine, or it was recorded here
}

// fromOf is where sess's sessions ran (transcript.Session.Origin and each
// agent session's Origin).
func fromOf(sess *transcript.Session) lineageFrom {
	var f lineageFrom
	add := func(origin string) {
		if origin == "" {
			f.Here = true
		} else if !slices.Contains(f.Teammates, origin) {
			f.Teammates = append(f.Teammates, origin)
		}
	}
	add(sess.Origin)
	for _, a := range sess.Agents {
		add(a.Origin)
	}
	return f
}

// String says it for a person: "bea-laptop-3f9a1c", "bea-laptop-3f9a1c
// and this machine", "this machine".
func (f lineageFrom) String() string {
	switch {
	case len(f.Teammates) == 0:
		return "this machine"
	case f.Here:
		return strings.Join(f.Teammates, ", ") + " and this machine"
	}
	return strings.Join(f.Teammates, ", ")
}
