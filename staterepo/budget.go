package staterepo

import (
	"fmt"

	"github.com/planq-dev/planq/changelog"
)

// Budget is the room left, in bytes, in a text of bounded size that is
// filled most important part first: the context summary (Store.Context,
// behind planq_context and `planq context show`) and the session-start
// context (hooks.SessionStart), which embeds the summary. A part is sized
// with Room, or taken whole with Take, and what it uses is spent.
type Budget struct{ left int }

// NewBudget returns a budget of total bytes.
func NewBudget(total int) *Budget { return &Budget{left: total} }

// Left returns the bytes not spent yet; it is negative once more was spent
// than there was.
func (b *Budget) Left() int { return b.left }

// Spend takes n bytes from the budget.
func (b *Budget) Spend(n int) { b.left -= n }

// Room returns how many bytes the next part may take: what is left after
// keeping reserve back, and at most limit when limit > 0.
func (b *Budget) Room(limit, reserve int) int {
	room := b.left - reserve
	if limit > 0 && limit < room {
		room = limit
	}
	return room
}

// Take spends n bytes when they fit in what is left, and reports whether
// they did.
func (b *Budget) Take(n int) bool {
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// The context summary's budget (ContextOptions.Budget) and how its parts
// are charged to it. The charges for headings are estimates of the
// Markdown that Summary.Markdown adds around a part, so the rendering stays
// near the budget without being measured twice.
const (
	defaultContextBudget = 12 << 10 // ContextOptions.Budget when zero
	minContextBudget     = 1 << 10  // the least budget a summary is built in

	// Caps of the text parts, whatever is left.
	itemTextCap  = 700     // an entry's text (toItem)
	scratchCap   = 4 << 10 // scratch.md
	focusCap     = 2 << 10 // context.md
	branchCtxCap = 3 << 10 // the code branch's context file

	partReserve    = 64 // kept back when a text part is sized, so the parts after it and the closing notes keep some room
	minPart        = 80 // the least room worth giving a text part: with less it is left out, not cut to a stub
	partHeading    = 32 // a text part's heading and blank lines ("\n## Scratch\n\n" … "\n")
	handoffHeading = 48 // the pending handoff's heading ("\n## Pending handoff (from AGENT, DATE)\n\n")
	listHeading    = 40 // a list's heading and blank lines ("\n## Recent log (newest first)\n\n")
)

// fit fills the summary from what Context gathered, within budget bytes of
// Markdown: the header and the pending handoff first (always shown; toItem
// capped its text), then scratch, the branch context and context.md, each
// cut to its cap and to what is left, then the newest log entry, decision
// and learning in turn. What did not fit is named in Omitted.
func (s *Summary) fit(g gathered, budget int) {
	b := NewBudget(budget)
	b.Spend(len(s.header()))
	if g.handoff != nil {
		s.Handoff = g.handoff
		b.Spend(len(itemMarkdown(*g.handoff)) + handoffHeading)
	}
	s.Scratch = s.fitPart(b, g.scratch, scratchCap, "scratch")
	s.BranchContext = s.fitPart(b, g.branchContext, branchCtxCap, "branch context")
	if s.BranchContext != "" {
		s.BranchSource = g.branchSource
	}
	s.Focus = s.fitPart(b, g.focus, focusCap, "context.md")
	s.fitLists(b, []itemList{
		{g.log, &s.Log, "log entries"},
		{g.decisions, &s.Decisions, "decisions"},
		{g.learnings, &s.Learnings, "learnings"},
	})
}

// fitPart returns text as it fits in b, capped at limit, and charges it
// with its heading; a part with too little room is left out, and both that
// and a cut are noted in Omitted under what.
func (s *Summary) fitPart(b *Budget, text string, limit int, what string) string {
	if text == "" {
		return ""
	}
	room := b.Room(limit, partReserve)
	if room < minPart {
		s.Omitted = append(s.Omitted, what)
		return ""
	}
	if len(text) > room {
		text = changelog.Truncate(text, room)
		s.Omitted = append(s.Omitted, what+" (truncated)")
	}
	b.Spend(len(text) + partHeading)
	return text
}

// itemList is one list of the summary as fitLists fills it.
type itemList struct {
	from []Item  // the candidates, newest first
	to   *[]Item // the summary's list
	name string  // what Omitted calls its items
}

// fitLists charges the lists' headings, then takes the newest item of
// each list in turn while it fits; once an item of a list does not fit,
// that list takes no older one. How many each list left out is noted in
// Omitted.
func (s *Summary) fitLists(b *Budget, lists []itemList) {
	b.Spend(len(lists) * listHeading)
	dropped := make([]int, len(lists))
	for i := 0; ; i++ {
		more := false
		for j, l := range lists {
			if i >= len(l.from) {
				continue
			}
			more = true
			if dropped[j] > 0 || !b.Take(len(itemMarkdown(l.from[i]))) {
				dropped[j]++
				continue
			}
			*l.to = append(*l.to, l.from[i])
		}
		if !more {
			break
		}
	}
	for j, l := range lists {
		if dropped[j] > 0 {
			s.Omitted = append(s.Omitted, fmt.Sprintf("%d older %s", dropped[j], l.name))
		}
	}
}
