package ui

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/search"
	"github.com/planq-dev/planq/staterepo"
)

// statePage is how many entries one State page shows.
const statePage = 50

// What the State page shows of a branch: its entry files, its scratch pad
// and its checkpoints.
const (
	kindChangelog   = "changelog"
	kindHandoffs    = "handoffs"
	kindLearnings   = "learnings"
	kindDecisions   = "decisions"
	kindScratch     = "scratch"
	kindCheckpoints = "checkpoints"
)

var stateKinds = []string{kindChangelog, kindHandoffs, kindLearnings, kindDecisions, kindScratch, kindCheckpoints}

// kindFile is the file holding a kind's entries.
var kindFile = map[string]string{
	kindChangelog: staterepo.ChangelogFile,
	kindHandoffs:  staterepo.ChangelogFile,
	kindLearnings: staterepo.LearningsFile,
	kindDecisions: staterepo.DecisionsFile,
}

// handoffWindow is how many of the newest changelog entries the handoffs
// view picks its handoffs from.
const handoffWindow = 1000

type entryView struct {
	changelog.Entry
	Title   string
	HTML    template.HTML
	Changes []string // the changes it names that exist (full ids)
}

type branchLink struct {
	Name   string // agent name or "global"
	Branch string
	Last   time.Time
}

type stateData struct {
	Branches    []branchLink
	Branch      string
	Kind        string
	Kinds       []string
	Entries     []entryView
	Total       int
	Offset      int
	Next, Prev  int
	More        bool
	Scratch     template.HTML
	HasScratch  bool
	Checkpoints []staterepo.Checkpoint
	Query       string
	Searched    bool
	Hits        []search.Hit
	Err         string
	Notes       capped[string] // what the reads of this page skipped or repaired
	NoteCount   int
	NoRepo      bool
}

func (s *Server) statePage(r *http.Request) (any, error) {
	start := time.Now()
	d, err := s.readState(r)
	if err != nil {
		return nil, err
	}
	// Report once what the page's reads skipped (entries that do not parse).
	notes := s.notes.since(start)
	d.Notes, d.NoteCount = capList(notes, maxBadShown), len(notes)
	return d, nil
}

func (s *Server) readState(r *http.Request) (stateData, error) {
	ctx := r.Context()
	q := r.URL.Query()
	d := stateData{Kinds: stateKinds, Branch: q.Get("branch"), Kind: q.Get("kind"), Query: strings.TrimSpace(q.Get("q"))}
	if !s.state.Initialized() {
		d.NoRepo = true
		return d, nil
	}
	st, err := s.state.Status(ctx)
	if err != nil {
		d.Err = err.Error()
	}
	d.Branches = append(d.Branches, branchLink{Name: staterepo.GlobalBranch, Branch: staterepo.GlobalBranch})
	for _, a := range st.Agents {
		d.Branches = append(d.Branches, branchLink{Name: a.Name, Branch: a.Branch, Last: a.LastCommit})
	}
	if d.Branch == "" {
		d.Branch = staterepo.GlobalBranch
	}
	if !slices.ContainsFunc(d.Branches, func(b branchLink) bool { return b.Branch == d.Branch }) {
		return d, fmt.Errorf("branch %q: no such state branch (pick one from the list)", d.Branch)
	}
	if d.Kind == "" {
		d.Kind = kindChangelog
	}
	if !slices.Contains(stateKinds, d.Kind) {
		return d, fmt.Errorf("kind %q: use one of %s", d.Kind, strings.Join(stateKinds, ", "))
	}
	if d.Query != "" {
		d.Searched = true
		hits, err := s.searcher.Search(ctx, staterepo.SearchQuery{Query: d.Query, Scope: staterepo.ScopeAll, Limit: 20})
		if err != nil {
			d.Err = err.Error()
		}
		d.Hits = hits
	}
	if d.Offset, err = intParam(r, "offset", 0); err != nil {
		return d, err
	}
	switch d.Kind {
	case kindScratch:
		data, ok, err := s.state.BranchFile(ctx, d.Branch, staterepo.ScratchFile)
		if err != nil {
			d.Err = err.Error()
		}
		if ok && strings.TrimSpace(string(data)) != "" {
			d.Scratch, d.HasScratch = renderMarkdown(string(data)), true
		}
	case kindCheckpoints:
		if d.Checkpoints, err = s.state.BranchCheckpoints(ctx, d.Branch); err != nil {
			d.Err = err.Error()
		}
	case kindHandoffs:
		es, _, err := s.state.BranchEntries(ctx, d.Branch, kindFile[d.Kind], 0, handoffWindow)
		if err != nil {
			d.Err = err.Error()
		}
		for _, e := range es {
			if e.Type == changelog.TypeHandoff {
				d.Entries = append(d.Entries, viewEntry(e))
			}
		}
		d.Total = len(d.Entries)
	default:
		es, total, err := s.state.BranchEntries(ctx, d.Branch, kindFile[d.Kind], d.Offset, statePage)
		if err != nil {
			d.Err = err.Error()
		}
		for _, e := range es {
			d.Entries = append(d.Entries, viewEntry(e))
		}
		d.Total = total
		d.Next, d.Prev = d.Offset+statePage, max(d.Offset-statePage, 0)
		d.More = total < 0 && len(es) == statePage || d.Offset+len(es) < total
	}
	s.linkChanges(r.Context(), d.Entries)
	return d, nil
}

// changeWord finds what may be a change id in an entry's text: a word of
// jj's change id letters (k to z), as long as a short id at least. English
// has next to no such words; jj confirms each before it becomes a link.
var changeWord = regexp.MustCompile(`\b[k-z]{12,64}\b`)

// maxNamedChanges bounds the ids a State page asks jj about.
const maxNamedChanges = 100

// linkChanges links each entry to the changes it names (the change it was
// written in, as planq's own entries say "Lineage …" and "planq resume …"),
// when jj knows them: one jj process a page, none when no entry names one.
// A failure only leaves the links out.
func (s *Server) linkChanges(ctx context.Context, es []entryView) {
	named := make([][]string, len(es))
	var all []string
	for i, e := range es {
		text := strings.Join(append([]string{e.Body, e.Decision, e.Rationale}, e.NextSteps...), "\n")
		for _, w := range changeWord.FindAllString(text, -1) {
			if !slices.Contains(named[i], w) && len(all) < maxNamedChanges {
				named[i] = append(named[i], w)
				all = append(all, w)
			}
		}
	}
	if len(all) == 0 {
		return
	}
	full, err := s.jj().ResolveChangeIDs(ctx, all)
	if err != nil {
		return
	}
	for i, ws := range named {
		for _, w := range ws {
			if id, ok := full[w]; ok && !slices.Contains(es[i].Changes, id) {
				es[i].Changes = append(es[i].Changes, id)
			}
		}
	}
}

func viewEntry(e changelog.Entry) entryView {
	v := entryView{Entry: e, Title: changelog.QuickTitle(e.Body)}
	if strings.TrimSpace(e.Body) != v.Title { // a one-line body is its title
		v.HTML = renderMarkdown(e.Body)
	}
	return v
}
