package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/mcp"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// Transcript answers without a filter show this many of the last lines.
const transcriptTail = 100

// sessionTranscripts answers query_ancestor's transcript part from the
// transcript store (see package transcript): the lineage a change belongs to,
// its lines matching a search or in a range, and plain words when the change
// was rebased away from its lineage or the lineage's root was abandoned.
type sessionTranscripts struct {
	dir    string
	getenv func(string) string
	jjBin  string
}

// newSessionTranscripts returns the transcript source for the repo at dir.
func newSessionTranscripts(dir string, getenv func(string) string, jjBin string) mcp.TranscriptSource {
	return &sessionTranscripts{dir: dir, getenv: getenv, jjBin: jjBin}
}

// Transcript implements mcp.TranscriptSource.
func (t *sessionTranscripts) Transcript(ctx context.Context, ch jj.Change, f mcp.TranscriptFilter) (mcp.TranscriptResult, bool, error) {
	st, err := staterepo.Open(staterepo.Options{Dir: t.dir, Getenv: t.getenv})
	if err != nil {
		return mcp.TranscriptResult{}, false, err
	}
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		return mcp.TranscriptResult{}, false, err
	}
	root, ok := ts.RootFor(ch.ChangeID, ch.Description)
	if !ok {
		return mcp.TranscriptResult{}, false, nil
	}
	out := mcp.TranscriptResult{SessionRoot: root, Lines: []mcp.TranscriptLine{}}
	var notes []string
	c := jj.New(t.dir)
	if t.jjBin != "" {
		c.Bin = t.jjBin
	}
	sess, _ := ts.Load(root)
	if root != ch.ChangeID {
		if exists, err := c.Resolves(ctx, root); err == nil && !exists {
			notes = append(notes, fmt.Sprintf("The lineage's root change %s no longer exists (it was abandoned), so the session cannot be resumed; its transcript is kept.", jj.ShortID(root)))
			markNonResumable(ctx, ts, root)
		}
		if sess != nil && !hasLineageAncestor(ctx, c, sess.Changes, ch) {
			notes = append(notes, fmt.Sprintf("Discontinuity: change %s now sits on %s, which is not part of its session lineage (root %s): it was rebased onto an unrelated parent. The lines below are the lineage's, recorded before the rebase; the parent's own history is elsewhere.",
				jj.ShortID(ch.ChangeID), strings.Join(shortAll(ch.Parents), ", "), jj.ShortID(root)))
		}
	}
	var res transcript.Result
	render := transcript.WithRender(transcript.Render)
	switch {
	case strings.TrimSpace(f.Search) != "":
		res, err = ts.SearchRoot(ctx, root, f.Search, transcript.DefaultLimit, render)
	case len(f.Range) == 2:
		res, err = ts.RangeRoot(ctx, root, int64(f.Range[0]), int64(f.Range[1]), render)
	default:
		var p string
		var n int64
		if p, err = ts.Path(root); err == nil {
			if n, err = transcript.CountLines(p); err == nil {
				res, err = ts.RangeRoot(ctx, root, max(1, n-transcriptTail+1), max(1, n), render)
				if err == nil && n > transcriptTail {
					res.Capped = true
					res.Note = fmt.Sprintf("[showing the last %d of %d lines; give transcript_filter.search or .range for others]", transcriptTail, n)
				}
			}
		}
	}
	if errors.Is(err, transcript.ErrNoTranscript) {
		notes = append(notes, fmt.Sprintf("The session lineage %s recorded no transcript yet (planq copies it at each stop, compaction and session end).", jj.ShortID(root)))
		err = nil
	}
	if err != nil {
		return out, true, err
	}
	for _, l := range res.Lines {
		out.Lines = append(out.Lines, mcp.TranscriptLine{N: int(l.N), Text: l.Text})
	}
	out.Truncated = res.Capped
	if res.Note != "" {
		notes = append(notes, res.Note)
	}
	out.Note = strings.Join(notes, " ")
	return out, true, nil
}

// markNonResumable records that a lineage's root is gone.
func markNonResumable(ctx context.Context, ts *transcript.Store, root string) {
	_, _ = ts.Update(ctx, root, func(s *transcript.Session) error {
		s.NonResumable, s.Reason = true, fmt.Sprintf("its root change %s was abandoned", jj.ShortID(root))
		return nil
	})
}

// hasLineageAncestor reports whether a change of the lineage (other than ch)
// is still an ancestor of ch; when jj cannot tell, it says yes.
func hasLineageAncestor(ctx context.Context, c *jj.Client, lineage []string, ch jj.Change) bool {
	var terms []string
	for _, id := range lineage {
		if id != ch.ChangeID && transcript.ValidChangeID(id) == nil {
			terms = append(terms, "present("+id+")")
		}
	}
	if len(terms) == 0 {
		return true
	}
	ok, err := c.Resolves(ctx, "("+strings.Join(terms, " | ")+") & ::"+ch.ChangeID)
	return ok || err != nil
}

func shortAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = jj.ShortID(id)
	}
	return out
}
