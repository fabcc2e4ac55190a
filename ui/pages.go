package ui

import (
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// summaryLines is how many lines of a living summary the Overview shows.
const summaryLines = 4

// agentView is one workspace on the Overview.
type agentView struct {
	hooks.AgentStatus
	Task    string   // the summary's task line
	Lines   []string // the first lines of its summary after the task
	Left    int      // "Left to do" items
	HasLeft bool     // the summary has a "Left to do" section
}

type overviewData struct {
	Agents    []agentView
	AgentsErr string
	State     staterepo.Status
	StateErr  string
	Lineages  []*transcript.Session
}

func (s *Server) overview(r *http.Request) (any, error) {
	ctx := r.Context()
	var d overviewData
	list, err := hooks.Agents(ctx, hooks.WorkflowOptions{Dir: s.root, Getenv: s.getenv, JJBin: s.jjBin})
	if err != nil {
		d.AgentsErr = err.Error()
	}
	for _, a := range list {
		v := agentView{AgentStatus: a}
		sum := jj.ParseSummary(a.Description)
		v.Task = sum.Task
		if v.Task == "" {
			v.Task = a.Summary
		}
		_, rest, _ := strings.Cut(strings.TrimSpace(a.Description), "\n")
		for _, l := range strings.Split(rest, "\n") {
			if l = strings.TrimSpace(l); l != "" && len(v.Lines) < summaryLines {
				v.Lines = append(v.Lines, l)
			}
		}
		for _, sec := range sum.Sections {
			if sec.Name == "Left to do:" {
				v.Left, v.HasLeft = len(sec.Items), true
			}
		}
		d.Agents = append(d.Agents, v)
	}
	if d.State, err = s.state.Status(ctx); err != nil {
		d.StateErr = err.Error()
	}
	if s.ts != nil {
		if ls, _ := s.ts.Roots(); len(ls) > 0 {
			if len(ls) > 8 {
				ls = ls[:8]
			}
			d.Lineages = ls
		}
	}
	return d, nil
}

// changesPage is how many changes one Changes page shows.
const changesPage = 50

// ChangesRevset is the part of the graph the Changes page shows besides
// the session lineages' changes: the work not yet in trunk, and trunk itself.
const ChangesRevset = "trunk().. | trunk()"

// maxLineageChanges bounds how many lineage changes the Changes page adds
// to ChangesRevset (the newest lineages' first), so the revset stays a
// modest argument.
const maxLineageChanges = 1000

// changesRevset is ChangesRevset and the changes of the lineages ls (newest
// first) that still exist, even those trunk took in: change_id() matches
// nothing for an abandoned change, where a bare id would fail the revset.
func changesRevset(ls []*transcript.Session) string {
	var b strings.Builder
	b.WriteString(ChangesRevset)
	n := 0
	for _, l := range ls {
		for _, id := range l.Changes {
			if n == maxLineageChanges {
				return b.String()
			}
			if transcript.ValidChangeID(id) != nil {
				continue // never revset text from a hand-edited record
			}
			b.WriteString(" | change_id(" + id + ")")
			n++
		}
	}
	return b.String()
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
	Err        string
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
	d := changesData{Skip: skip, Revset: ChangesRevset + " and the session lineages", Next: skip + changesPage, Prev: max(skip-changesPage, 0)}
	c := s.jj()
	ls := s.lineages()
	rows, more, err := c.LogGraph(r.Context(), changesRevset(ls), skip, changesPage)
	if err != nil {
		d.Err = err.Error()
		return d, nil
	}
	d.More = more
	var commits []string
	for _, row := range rows {
		if row.Change != nil {
			commits = append(commits, row.Change.CommitID)
		}
	}
	var stats map[string]jj.CompactStat
	if len(commits) > 0 {
		// One jj process for the page's stats; a failure only leaves them out.
		stats, _ = c.Stats(r.Context(), strings.Join(commits, " | "))
	}
	lineage := lineageOf(ls)
	for _, row := range rows {
		v := changeView{Graph: row.Graph, Elided: row.Elided}
		if row.Change != nil {
			v.C = row.Change
			v.Open = row.Change.WorkingCopy
			v.Lineage = lineage[row.Change.ChangeID]
			v.Task, v.Sections, v.Body = layoutSummary(row.Change.Description)
			if st, ok := stats[row.Change.CommitID]; ok {
				v.Stat = &st
			}
		}
		d.Rows = append(d.Rows, v)
	}
	return d, nil
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

// lineageOf maps each change recorded in a session lineage to it.
// lineages lists the stored lineages, newest first: the readable ones, even
// when some are not; none when the store cannot be located.
func (s *Server) lineages() []*transcript.Session {
	if s.ts == nil {
		return nil
	}
	ls, _ := s.ts.Roots()
	return ls
}

// lineageOf maps each change of the lineages ls to its lineage, the newest
// lineage winning.
func lineageOf(ls []*transcript.Session) map[string]*transcript.Session {
	out := map[string]*transcript.Session{}
	for _, l := range ls {
		for _, c := range l.Changes {
			if _, ok := out[c]; !ok {
				out[c] = l
			}
		}
		if _, ok := out[l.Root]; !ok {
			out[l.Root] = l
		}
	}
	return out
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
