package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/transcript"
)

// transcriptPage is how many transcript lines one page shows.
const transcriptPage = 100

// Kinds of transcript lines, as the page styles and folds them.
const (
	lineUser      = "user"
	lineAssistant = "assistant"
	lineCall      = "call"   // a tool call: folded
	lineResult    = "result" // a tool's result or error: folded
	lineMeta      = "meta"   // bookkeeping ([summary], [attachment] …)
)

// lineView is one transcript line on the page.
type lineView struct {
	N       int64
	Off     int64 // byte offset of the line: where its page starts
	Kind    string
	Text    string
	Summary string // the folded line's one-line summary
	Folded  bool
}

// sideLineages is how many lineages the Transcript page lists at a time.
const sideLineages = 50

type transcriptData struct {
	Lineages []*transcript.Session // the lineages listed, newest first
	LSkip    int                   // lineages skipped before them
	LNext    int                   // the next list's skip; 0: none
	LPrev    int                   // the previous list's skip
	LTotal   int
	Bad      *badNotice
	Sel      *transcript.Session
	Root     string
	Lines    []lineView
	Next     int64 // byte offset of the next page; -1: none
	Prev     int64 // byte offset the previous page ends at; -1: none
	Start    int64
	Query    string
	Hits     []lineView
	Searched bool
	Err      string
}

// classify tells what a rendered transcript line (transcript.Render) is.
func classify(line string) (kind, summary string) {
	head, rest, _ := strings.Cut(line, ": ")
	switch {
	case head == "user":
		return lineUser, ""
	case head == "assistant":
		return lineAssistant, ""
	case head == "tool result" || head == "tool error":
		return lineResult, head + ": " + text.Prefix(text.OneLine(rest), 120)
	case strings.HasPrefix(line, "["):
		return lineMeta, ""
	}
	if who, call, ok := strings.Cut(line, " calls "); ok && !strings.Contains(who, " ") {
		name, _, _ := strings.Cut(call, " ")
		return lineCall, "tool call: " + name + " " + text.Prefix(text.OneLine(strings.TrimPrefix(call, name)), 100)
	}
	return lineMeta, ""
}

func viewLines(ls []transcript.Line) []lineView {
	out := make([]lineView, 0, len(ls))
	for _, l := range ls {
		kind, sum := classify(l.Text)
		out = append(out, lineView{N: l.N, Off: l.Off, Kind: kind, Text: l.Text, Summary: sum, Folded: kind == lineCall || kind == lineResult})
	}
	return out
}

func int64Param(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < -1 {
		return 0, fmt.Errorf("%s=%q: give a byte offset", name, v)
	}
	return n, nil
}

func (s *Server) transcript(r *http.Request) (any, error) {
	var d transcriptData
	if s.ts == nil {
		d.Err = "cannot locate the transcript store"
		return d, nil
	}
	q := r.URL.Query()
	d.Root = q.Get("root")
	if d.Root != "" {
		if err := transcript.ValidChangeID(d.Root); err != nil {
			return nil, fmt.Errorf("root: %w", err)
		}
	}
	var err error
	if d.LSkip, err = intParam(r, "lskip", 0); err != nil {
		return nil, err
	}
	off, err := int64Param(r, "off", 0)
	if err != nil {
		return nil, err
	}
	before, err := int64Param(r, "before", -2)
	if err != nil {
		return nil, err
	}
	// The lineages are listed while the transcript is read.
	var (
		ls     lineageList
		lsErr  error
		listed = make(chan struct{})
	)
	go func() { ls, lsErr = s.catalog.list(); close(listed) }()
	if d.Root == "" {
		<-listed
		if len(ls.All) > 0 {
			d.Root = ls.All[0].Root
		}
	}
	if d.Root != "" {
		s.readTranscript(r, &d, off, before)
	}
	<-listed
	if lsErr != nil {
		d.Err = strings.TrimPrefix(d.Err+"; "+lsErr.Error(), "; ")
	}
	if len(ls.Errs) > 0 { // the readable lineages are listed all the same
		d.Err = strings.TrimPrefix(d.Err+"; "+strings.Join(ls.Errs, "; "), "; ")
	}
	d.Bad = noticeOf(ls.Bad)
	d.LTotal = len(ls.All)
	for _, l := range ls.All {
		if l.Root == d.Root {
			d.Sel = l
		}
	}
	page := ls.All[min(d.LSkip, len(ls.All)):]
	if len(page) > sideLineages {
		page, d.LNext = page[:sideLineages], d.LSkip+sideLineages
	}
	d.Lineages, d.LPrev = page, max(d.LSkip-sideLineages, 0)
	return d, nil
}

// readTranscript reads the lines the page shows of d.Root's transcript:
// the hits of the search q, else the page at off or ending before before
// (-2: none given).
func (s *Server) readTranscript(r *http.Request, d *transcriptData, off, before int64) {
	path, err := s.ts.Path(d.Root)
	if err != nil {
		d.Err = err.Error()
		return
	}
	ctx := r.Context()
	if d.Query = strings.TrimSpace(r.URL.Query().Get("q")); d.Query != "" {
		d.Searched = true
		res, err := transcript.Search(ctx, path, d.Query, 50, transcript.WithRender(transcript.Render))
		if err != nil {
			d.Err = describeReadErr(err)
			return
		}
		d.Hits = viewLines(res.Lines)
		return
	}
	var p transcript.Page
	if before != -2 {
		p, err = transcript.ReadPageBefore(ctx, path, before, transcriptPage, transcript.WithRender(transcript.Render))
	} else {
		p, err = transcript.ReadPage(ctx, path, off, transcriptPage, transcript.WithRender(transcript.Render))
	}
	if err != nil {
		d.Err = describeReadErr(err)
		return
	}
	d.Lines, d.Next, d.Prev, d.Start = viewLines(p.Lines), p.Next, p.Prev, p.Start
}

func describeReadErr(err error) string {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, transcript.ErrNoTranscript) {
		return "no transcript stored for this lineage yet"
	}
	return err.Error()
}
