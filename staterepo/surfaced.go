package staterepo

import (
	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/metrics"
)

// Surfaced returns the learnings and decisions s shows, as the local
// metrics record what was surfaced: their ids, kinds and titles (a
// decision's decision, a learning's first line, as search titles them).
func (s Summary) Surfaced() []metrics.Entry {
	out := make([]metrics.Entry, 0, len(s.Decisions)+len(s.Learnings))
	for _, it := range s.Decisions {
		out = append(out, metrics.Entry{ID: it.ID, Kind: metrics.EntryDecision, Title: it.Decision})
	}
	for _, it := range s.Learnings {
		out = append(out, metrics.Entry{ID: it.ID, Kind: metrics.EntryLearning, Title: changelog.QuickTitle(it.Text)})
	}
	return out
}
