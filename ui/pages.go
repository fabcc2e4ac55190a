package ui

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/workflow"
)

// summaryLines is how many lines of a description without a living summary
// the Overview shows.
const summaryLines = 4

// cardItems bounds the items of each list on an Overview card (Left to do,
// Open questions, conflicted files); the rest is "and N more".
const cardItems = 5

// newestLineages is how many session lineages the Overview lists.
const newestLineages = 8

// capped is a list cut to its first items, and how many it left out.
type capped[T any] struct {
	Items []T
	More  int
}

func capList[T any](items []T, n int) capped[T] {
	if len(items) > n {
		return capped[T]{Items: items[:n], More: len(items) - n}
	}
	return capped[T]{Items: items}
}

// cardList is a living-summary section on an Overview card, its items
// rendered and capped.
type cardList struct {
	Class, Title string
	capped[template.HTML]
	Total  int
	Change string // where the rest is: the change on the Changes page
}

// agentView is one workspace on the Overview.
type agentView struct {
	workflow.AgentStatus
	Task      string
	Body      template.HTML // the first lines of a description that is no living summary
	Lists     []cardList    // Left to do and Open questions, as the summary has them
	Conflicts capped[string]
	Lineage   *transcript.Session // the session lineage its change belongs to
}

type overviewData struct {
	Agents    []agentView
	AgentsErr string
	State     staterepo.Status
	StateErr  string
	Lineages  []*transcript.Session
	More      int // lineages not listed
	LinErr    string
	Bad       *badNotice
}

func (s *Server) overview(r *http.Request) (any, error) {
	ctx := r.Context()
	var d overviewData
	// The lineages are listed while jj and git answer.
	var (
		ls    lineageList
		lsErr error
		wg    sync.WaitGroup
	)
	wg.Go(func() { ls, lsErr = s.catalog.list() })
	list, err := workflow.Agents(ctx, workflow.Options{Dir: s.root, JJBin: s.jjBin})
	if err != nil {
		d.AgentsErr = err.Error()
	}
	pl := s.newPageLineages()
	for _, a := range list {
		d.Agents = append(d.Agents, viewAgent(a, pl))
	}
	if d.State, err = s.state.Status(ctx); err != nil {
		d.StateErr = err.Error()
	}
	wg.Wait()
	if lsErr != nil {
		d.LinErr = lsErr.Error()
	}
	d.Lineages = ls.All
	if len(d.Lineages) > newestLineages {
		d.Lineages, d.More = d.Lineages[:newestLineages], len(d.Lineages)-newestLineages
	}
	if len(ls.Errs) > 0 {
		d.LinErr = strings.Join(ls.Errs, "; ")
	}
	d.Bad = noticeOf(ls.Bad)
	return d, nil
}

// viewAgent lays out a workspace's card: what is left and what is open,
// item by item, rather than the summary's raw first lines.
func viewAgent(a workflow.AgentStatus, pl *pageLineages) agentView {
	v := agentView{AgentStatus: a, Conflicts: capList(a.Conflicts, cardItems)}
	sum := jj.ParseSummary(a.Description)
	v.Task = sum.Task
	if v.Task == "" {
		v.Task = a.Summary
	}
	for _, sec := range sum.Sections {
		l := cardList{Title: strings.TrimSuffix(sec.Name, ":"), Total: len(sec.Items), Change: a.Change}
		switch sec.Name {
		case "Left to do:":
			l.Class = "left"
		case "Open questions:":
			l.Class = "questions"
		default:
			continue
		}
		c := capList(sec.Items, cardItems)
		l.More = c.More
		for _, it := range c.Items {
			l.Items = append(l.Items, renderInline(it))
		}
		v.Lists = append(v.Lists, l)
	}
	if len(sum.Sections) == 0 && strings.TrimSpace(sum.Body) != "" {
		var lines []string
		for _, l := range strings.Split(sum.Body, "\n") {
			if strings.TrimSpace(l) != "" && len(lines) < summaryLines {
				lines = append(lines, l)
			}
		}
		v.Body = renderMarkdown(strings.Join(lines, "\n"))
	}
	if a.Change != "" {
		v.Lineage = pl.of(a.Change, a.Description)
	}
	return v
}

// changesPage is how many changes one Changes page shows.
const changesPage = 50

// ChangesRevset is the part of the graph the Changes page shows: the work
// not yet in trunk, and trunk itself. It does not grow with the session
// lineages: the page looks up the lineages of the changes it shows, and a
// lineage's own changes (trunk may have taken them in) are one link away.
const ChangesRevset = "trunk().. | trunk()"

// maxLineageChanges bounds how many changes of one lineage its Changes
// view asks jj for (the newest), so the revset stays a modest argument.
const maxLineageChanges = 500

// lineageRevset is the revset of a lineage's changes that still exist, the
// newest maxLineageChanges of them (jj.ChangeIDsRevset: change_id() terms
// of ids checked twice, when the record was read and as the terms are
// made).
func lineageRevset(sess *transcript.Session) string {
	ids := sess.Changes
	if len(ids) > maxLineageChanges {
		ids = ids[len(ids)-maxLineageChanges:]
	}
	if !slices.Contains(ids, sess.Root) {
		ids = append([]string{sess.Root}, ids...)
	}
	return jj.ChangeIDsRevset(ids)
}

// section is one living-summary section as the page lays it out.
type section struct {
	Name  string          // "Done", "Key decisions", "Left to do", "Open questions"
	Items []template.HTML // its items, rendered
	Text  template.HTML   // its text, rendered, when it has no list items
}

// changeView is one line of the Changes page's graph.
type changeView struct {
	Graph    string
	C        *jj.Change
	Task     string
	Sections []section     // the living summary's sections, laid out
	Body     template.HTML // the rest of the description, rendered
	Lineage  *transcript.Session
	Stat     *jj.CompactStat // nil when unknown
	Elided   bool            // jj's "(elided revisions)" line
	Open     bool            // shown expanded: the working copy
}

type changesData struct {
	Rows       []changeView
	Skip       int
	Next, Prev int
	More       bool
	Revset     string
	Lineage    *transcript.Session // the lineage shown, with ?lineage=
	Change     string              // the one change shown, with ?change=
	Err        string
	Bad        *badNotice
}

func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: give a whole number, 0 or more", name, v)
	}
	return n, nil
}

func (s *Server) changes(r *http.Request) (any, error) {
	skip, err := intParam(r, "skip", 0)
	if err != nil {
		return nil, err
	}
	d := changesData{Skip: skip, Revset: ChangesRevset, Next: skip + changesPage, Prev: max(skip-changesPage, 0)}
	pl := s.newPageLineages()
	revset := ChangesRevset
	if id := r.URL.Query().Get("change"); id != "" {
		if !jj.IsChangeIDPrefix(id) {
			return nil, fmt.Errorf("change=%q: give a change id (at least %d of the letters k to z)", id, jj.MinUniquePrefix)
		}
		d.Change = id
		revset = jj.ChangeIDsRevset([]string{id})
		d.Revset = "change " + jj.ShortID(id)
	} else if root := r.URL.Query().Get("lineage"); root != "" {
		if err := transcript.ValidChangeID(root); err != nil {
			return nil, fmt.Errorf("lineage: %w", err)
		}
		if d.Lineage = pl.load(root); d.Lineage == nil {
			d.Bad = noticeOf(pl.bad)
			d.Err = fmt.Sprintf("no readable session lineage %s is stored", jj.ShortID(root))
			return d, nil
		}
		revset = lineageRevset(d.Lineage)
		d.Revset = fmt.Sprintf("the changes of session lineage %s", jj.ShortID(root))
	}
	rows, more, err := s.graphPage(r.Context(), revset, skip)
	if err != nil {
		d.Err = err.Error()
		return d, nil
	}
	d.More = more
	for _, row := range rows {
		v := changeView{Graph: row.Graph, Elided: row.Elided}
		if row.Change != nil {
			v.C = row.Change
			v.Open = row.Change.WorkingCopy || d.Change != ""
			v.Lineage = pl.of(row.Change.ChangeID, row.Change.Description)
			v.Task, v.Sections, v.Body = layoutSummary(row.Change.Description)
			v.Stat = row.Stat
		}
		d.Rows = append(d.Rows, v)
	}
	d.Bad = noticeOf(pl.bad)
	return d, nil
}

// graphPage reads a page of the graph of revset with each change's diff
// stat: the first page from one jj process, a later one from two (jj
// would compute the stats of the skipped changes too), the second of
// which may fail and only leave the stats out.
func (s *Server) graphPage(ctx context.Context, revset string, skip int) ([]jj.GraphRow, bool, error) {
	c := s.jj()
	if skip == 0 {
		return c.LogGraphWithStats(ctx, revset, 0, changesPage)
	}
	rows, more, err := c.LogGraph(ctx, revset, skip, changesPage)
	if err != nil {
		return nil, false, err
	}
	var commits []string
	for _, row := range rows {
		if row.Change != nil {
			commits = append(commits, row.Change.CommitID)
		}
	}
	if len(commits) == 0 {
		return rows, more, nil
	}
	stats, err := c.Stats(ctx, strings.Join(commits, " | "))
	if err != nil {
		return rows, more, nil
	}
	for i, row := range rows {
		if row.Change != nil {
			if st, ok := stats[row.Change.CommitID]; ok {
				rows[i].Stat = &st
			}
		}
	}
	return rows, more, nil
}

// layoutSummary splits a description into its task line, its living
// summary's sections (each item rendered as Markdown) and the rest, rendered.
func layoutSummary(desc string) (task string, secs []section, body template.HTML) {
	sum := jj.ParseSummary(desc)
	for _, sec := range sum.Sections {
		v := section{Name: strings.TrimSuffix(sec.Name, ":")}
		for _, it := range sec.Items {
			v.Items = append(v.Items, renderInline(it))
		}
		if len(sec.Items) == 0 && !isListOnly(sec.Text) {
			v.Text = renderMarkdown(sec.Text)
		}
		secs = append(secs, v)
	}
	if strings.TrimSpace(sum.Body) != "" {
		body = renderMarkdown(sum.Body)
	}
	return sum.Task, secs, body
}

// isListOnly reports whether a section's text holds only list items (all
// of them placeholders or checked boxes when the section has no items).
func isListOnly(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "- ") && !strings.HasPrefix(l, "* ") && !strings.HasPrefix(l, "+ ") && l != "-" {
			return false
		}
	}
	return true
}

// revParam reads a change id from the query: letters and digits only, so
// it is a change or commit id and never a revset expression.
func revParam(r *http.Request) (string, error) {
	rev := r.URL.Query().Get("rev")
	if rev == "" || len(rev) > 64 || strings.IndexFunc(rev, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	}) >= 0 {
		return "", fmt.Errorf("rev=%q: give a change id (lowercase letters and digits)", rev)
	}
	return rev, nil
}

// maxDiff bounds the diff shown at once, in bytes.
const maxDiff = 2 << 20

type diffLine struct {
	Class string // add, del, hunk, file or ""
	Text  string
}

type diffData struct {
	Rev   string
	Lines []diffLine
	Cut   bool
	Err   string
}

func (s *Server) changeDiff(r *http.Request) (any, error) {
	rev, err := revParam(r)
	if err != nil {
		return nil, err
	}
	d := diffData{Rev: rev}
	out, err := s.jj().DiffGit(r.Context(), rev)
	if err != nil {
		d.Err = err.Error()
		return d, nil
	}
	out, d.Cut = text.CutAtLine(out, maxDiff)
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		c := ""
		switch {
		case strings.HasPrefix(l, "diff --git"), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
			c = "file"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		d.Lines = append(d.Lines, diffLine{Class: c, Text: l})
	}
	return d, nil
}

type metricsData struct {
	Dir   string
	Since string
	Sum   metrics.Summary
	Err   string
}

func (s *Server) metricsPage(r *http.Request) (any, error) {
	d := metricsData{Dir: s.metrics, Since: r.URL.Query().Get("since")}
	if s.metrics == "" {
		d.Err = "cannot locate this project's metrics"
		return d, nil
	}
	var since = s.now().AddDate(0, 0, -30)
	if d.Since != "" {
		t, err := metrics.ParseSince(d.Since, s.now())
		if err != nil {
			return nil, fmt.Errorf("since: %w", err)
		}
		since = t
	} else {
		d.Since = "30d"
	}
	sum, err := metrics.Summarize(r.Context(), s.metrics, since)
	if err != nil {
		d.Err = err.Error()
	}
	d.Sum = sum
	return d, nil
}
