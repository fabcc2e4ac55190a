package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/project"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/transcript/share"
)

// transcriptTail is how many of the last lines a transcript answer without
// a filter shows.
const transcriptTail = 100

// transcripts opens the transcript store of the server's project, the one
// its hooks write (project.Locate), and says where the project is. It
// reads files only: the state repo is opened when a lazy fetch is due.
func (d *deps) transcripts() (*transcript.Store, project.Location, error) {
	root, ok := jj.FindRoot(d.dir)
	if !ok {
		return nil, project.Location{}, fmt.Errorf("%s is not in a jj repo", d.dir)
	}
	return transcript.ForRepo(root, d.getenv)
}

// lazyFetchTimeout bounds a lazy fetch of a lineage from the state remote.
const lazyFetchTimeout = 20 * time.Second

// fetchMemoTTL is how long a server does not ask the remote again for a
// lineage it fetched or found missing.
const fetchMemoTTL = 2 * time.Minute

// fetchMemo remembers when each lineage was last fetched lazily.
type fetchMemo struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func newFetchMemo() *fetchMemo { return &fetchMemo{last: map[string]time.Time{}} }

// due reports whether root may be fetched now, and records that it is.
func (m *fetchMemo) due(root string) bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.last[root]; ok && time.Since(t) < fetchMemoTTL {
		return false
	}
	m.last[root] = time.Now()
	return true
}

// fetchLineage fetches the lineage of ch rooted at root (see
// share.Sharer.FetchFor) from the state remote, once in a while at most; it
// reports whether the lineage came, and a note when the fetch failed.
func (d *deps) fetchLineage(ctx context.Context, ch jj.Change, root string) (bool, string) {
	if !d.fetched.due(root) {
		return false, ""
	}
	st, err := staterepo.Open(staterepo.Options{Dir: d.dir, Getenv: d.getenv})
	if err != nil {
		return false, "fetching its session from the state remote failed: " + text.FirstLine(err.Error())
	}
	sh, err := share.New(st)
	if err != nil {
		return false, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, lazyFetchTimeout)
	defer cancel()
	found, err := sh.FetchFor(ctx, d.jj, ch, root)
	if err != nil {
		return false, "fetching its session from the state remote failed: " + text.FirstLine(err.Error())
	}
	return found, ""
}

// transcriptOf answers the transcript part of a query from the lineage's
// stored transcript: the lines matching a search, a range, or the tail.
func transcriptOf(ctx context.Context, ts *transcript.Store, root string, f TranscriptFilter) (TranscriptResult, error) {
	out := TranscriptResult{SessionRoot: root, Lines: []TranscriptLine{}}
	var res transcript.Result
	var err error
	render := transcript.WithRender(transcript.Render)
	switch {
	case strings.TrimSpace(f.Search) != "":
		res, err = ts.SearchRoot(ctx, root, f.Search, transcript.DefaultLimit, render)
	case len(f.Range) == 2:
		res, err = ts.RangeRoot(ctx, root, int64(f.Range[0]), int64(f.Range[1]), render)
	default:
		res, err = tail(ctx, ts, root, render)
	}
	if errors.Is(err, transcript.ErrNoTranscript) {
		out.Note = fmt.Sprintf("The session lineage %s recorded no transcript yet (planq copies it at each stop, compaction and session end).", jj.ShortID(root))
		return out, nil
	}
	if err != nil {
		return out, err
	}
	for _, l := range res.Lines {
		out.Lines = append(out.Lines, TranscriptLine{N: int(l.N), Text: l.Text})
	}
	out.Truncated, out.Note = res.Capped, res.Note
	return out, nil
}

// tail returns the last transcriptTail lines of the lineage's transcript.
func tail(ctx context.Context, ts *transcript.Store, root string, render transcript.Option) (transcript.Result, error) {
	p, err := ts.Path(root)
	if err != nil {
		return transcript.Result{}, err
	}
	n, err := transcript.CountLines(p)
	if err != nil {
		return transcript.Result{}, err
	}
	res, err := ts.RangeRoot(ctx, root, max(1, n-transcriptTail+1), max(1, n), render)
	if err == nil && n > transcriptTail {
		res.Capped = true
		res.Note = fmt.Sprintf("[showing the last %d of %d lines; give transcript_filter.search or .range for others]", transcriptTail, n)
	}
	return res, err
}
