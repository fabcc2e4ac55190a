package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/metrics"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// ContextBudget is the most additional context session-start gives the model.
const ContextBudget = 8000

// Per-part caps inside the budget, most important first.
const (
	currentDescCap = 3000
	parentDescCap  = 2000
	diffStatCap    = 1200
)

// SessionStart builds the context a new, resumed, cleared or compacted
// session starts with: the current change and its description (the living
// summary), the parent's description (the handoff), the diff stat, the
// gate's state and what to do about it, the lineage's transcript, and the
// state repo's context, most important first, at most ContextBudget
// characters, never cutting a line in half. It binds the session to the
// change's lineage and copies the transcript so far, and what earlier
// sessions' transcripts gained after their last hook (the vault's sweep).
// planq's tools are named the way ev's host shows them.
func (r *Runner) SessionStart(ctx context.Context, ev session.Event) (session.Reply, error) {
	text, err := r.sessionContext(ctx, ev)
	return session.Reply{Context: text}, err
}

func (r *Runner) sessionContext(ctx context.Context, ev session.Event) (string, error) {
	tool := ev.Host.Tool
	s, err := r.open(ev)
	if errors.Is(err, ErrNotJJRepo) {
		return fmt.Sprintf("planq: this directory is not a jj repository, so planq's change tracking is off. "+
			"To use it, run `jj git init --colocate` (or call %s), then declare your change with %s.", tool("jj_git_init"), tool("jj_init")), nil
	}
	if err != nil {
		return "", err
	}

	// One jj process for @, @-, the nearest bookmark and @'s diff stat: jj's
	// start-up is most of this hook's cost.
	js, err := snapshot(ctx, s)
	if err != nil {
		return "", err
	}
	cur, parent, stat := js.cur, js.parent, js.stat
	// The files as jj just recorded them are where the check at the
	// declaration starts: what changes while the gate is locked is named
	// then.
	baselineErr := gate.SessionStarted(s.Root, ev.SessionID, ev.ParentID, !cur.Declared())
	var (
		wg       sync.WaitGroup
		summary  staterepo.Summary
		stateErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		summary, stateErr = s.state.Context(ctx, staterepo.ContextOptions{Budget: ContextBudget, CodeBranch: js.branch, NoDetect: true})
	}()
	defer wg.Wait()

	var problems []string
	if baselineErr != nil {
		problems = append(problems, "recording the working copy for the check at declaration: "+baselineErr.Error())
	}
	root, sess, err := s.Bind(ctx, r.Env, ev, cur)
	if err != nil {
		problems = append(problems, "recording the session: "+err.Error())
	}
	var tlines int64
	if root != "" {
		if _, err := r.copyTranscript(ctx, s, root, ev, r.copyBudget()); err != nil {
			problems = append(problems, "copying the transcript: "+err.Error())
		}
		tlines, _ = s.TS.Lines(root)
	}
	// What earlier sessions in the project wrote after their last hook (a
	// crash mid-turn) goes to the vault before the host's cleanup can take it.
	if _, err := r.sweep(ctx, s); err != nil {
		problems = append(problems, "keeping earlier sessions' transcripts: "+err.Error())
	}

	var blocks []block
	blocks = append(blocks, block{text: headline(cur, root, sess, ev.Source)})
	blocks = append(blocks, block{text: gateLine(ev.Host, cur, s.Root, r.Lookup)})
	if jj.IsSecondaryWorkspace(s.Root) {
		blocks = append(blocks, block{text: fmt.Sprintf("You work in the jj workspace at %s, one of several on this repo: other agents work in other workspaces, on changes of their own, and their edits are not here (nor yours there). `planq agents` lists them.", s.Root)})
	}
	if cur.Conflict {
		blocks = append(blocks, block{text: fmt.Sprintf("The current change has conflicts (two lines of work met: another agent's change, a rebase or a squash) in: %s. "+
			"Resolve each file (write the content it should have; jj records the resolution) before %s.", strings.Join(cur.ConflictedFiles, ", "), tool("jj_push"))})
	}
	desc := strings.TrimSpace(cur.Description)
	if desc == "" {
		desc = "(no description yet)"
	} else if !jj.IsSummary(cur.Description) {
		desc += "\n\n(This description is not a living summary yet: when you finish a step, call " + tool("jj_describe") + " with the task line, then Done:, Key decisions:, Left to do:, Open questions: lists.)"
	}
	blocks = append(blocks, block{
		title: fmt.Sprintf("## Current change %s: description (the living summary)", jj.ShortID(cur.ChangeID)),
		text:  desc, cap: currentDescCap, more: "`jj show @` has the rest",
	})
	if parent.ChangeID != "" && !isRootCommit(parent) {
		pdesc := strings.TrimSpace(parent.Description)
		if pdesc == "" {
			pdesc = "(no description)"
		}
		blocks = append(blocks, block{
			title: fmt.Sprintf("## Parent change %s: description (the handoff)", jj.ShortID(parent.ChangeID)),
			text:  pdesc, cap: parentDescCap, more: tool("query_ancestor") + " with change_id \"@-\" has the rest",
		})
	}
	st := strings.TrimSpace(stat)
	if st == "" || cur.Empty {
		st = "(no changes yet)"
	}
	blocks = append(blocks, block{title: "## Diff of the current change (jj diff --stat)", text: st, cap: diffStatCap, more: "`jj diff --stat` has the rest"})
	if root != "" && tlines > 0 {
		blocks = append(blocks, block{title: "## Earlier conversation", text: fmt.Sprintf(
			"The lineage's full transcript (%d lines) is kept by planq. To look something up, call %s "+
				"with change_id %q, include [\"transcript\"] and transcript_filter {\"search\": \"words\"} or {\"range\": [from, to]}.",
			tlines, tool("query_ancestor"), jj.ShortID(root))})
	}
	wg.Wait()
	if stateErr == nil {
		md := strings.TrimSpace(summary.Markdown())
		if md != "" {
			blocks = append(blocks, block{title: "## Agent state (planq state repo)", text: md, more: tool("planq_context") + " has the whole summary"})
		}
	} else {
		problems = append(problems, "state repo: "+stateErr.Error())
	}
	if len(problems) > 0 {
		blocks = append(blocks, block{text: "(planq problems: " + strings.Join(problems, "; ") + ")"})
	}
	text := fit(blocks, ContextBudget)
	session.RecordStart(r.Env, s.Scope, ev, cur.Declared(), shown(summary.Surfaced(), text))
	return text, nil
}

// shown returns the entries whose id the context text holds: what the
// budget let through to the model.
func shown(entries []metrics.Entry, text string) []metrics.Entry {
	var out []metrics.Entry
	for _, e := range entries {
		if e.ID != "" && strings.Contains(text, e.ID) {
			out = append(out, e)
		}
	}
	return out
}

// snap is what session-start needs from jj.
type snap struct {
	cur, parent jj.Change
	stat        string // jj diff --stat of @
	branch      string // the nearest bookmark on ::@, for the state's branch context
}

// snapshot reads @, @-, @'s diff stat and the code branch in one jj process.
func snapshot(ctx context.Context, s *scope) (snap, error) {
	var out snap
	rows, stat, err := s.JJ.LogWithStat(ctx, "@ | @- | latest(heads(::@ & bookmarks()))", 80)
	if err != nil {
		return out, fmt.Errorf("jj log: %w", err)
	}
	out.stat = stat
	for _, r := range rows {
		if r.WorkingCopy {
			out.cur = r
		}
	}
	if out.cur.ChangeID == "" {
		return out, errors.New("jj log returned no working-copy change")
	}
	for _, r := range rows {
		if len(out.cur.Parents) > 0 && r.ChangeID == out.cur.Parents[0] {
			out.parent = r
		}
	}
	// The nearest bookmark: on @, else @-, else the latest bookmarked ancestor.
	for _, id := range []string{out.cur.ChangeID, out.parent.ChangeID, ""} {
		for _, r := range rows {
			if (id == "" || r.ChangeID == id) && len(r.Bookmarks) > 0 && out.branch == "" {
				out.branch = strings.TrimSuffix(r.Bookmarks[0], "*")
			}
		}
	}
	return out, nil
}

// isRootCommit reports jj's virtual root commit (change id all z).
func isRootCommit(c jj.Change) bool {
	return strings.Trim(c.ChangeID, "z") == ""
}

func headline(cur jj.Change, root string, sess *transcript.Session, source string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "planq: this session works in jj change %s", jj.ShortID(cur.ChangeID))
	if t := jj.TaskLine(cur.Description); t != "" {
		fmt.Fprintf(&b, " (%q)", t)
	}
	if root != "" {
		if root == cur.ChangeID {
			b.WriteString(", the root of its session lineage")
		} else {
			fmt.Fprintf(&b, ", a checkpoint of the session lineage rooted at %s", jj.ShortID(root))
			if sess != nil && sess.Task != "" {
				fmt.Fprintf(&b, " (%q)", sess.Task)
			}
		}
	}
	b.WriteString(".")
	if source == "compact" {
		b.WriteString(" The conversation was just compacted: the descriptions below are the durable summary.")
	}
	return b.String()
}

// gateLine says whether file edits are held back and what to do, and how
// the gate is enforced in the project at root.
func gateLine(h session.Host, cur jj.Change, root string, getenv func(string) string) string {
	if !cur.Declared() {
		how, sandboxed := session.Enforcement(h, root, getenv)
		if sandboxed {
			return "Gate: LOCKED. Until you declare the change, tools that modify files are denied and shell commands run in an " + how +
				" where the project is read-only: call " + h.Tool("jj_init") +
				" with one line saying what you are about to do (it runs jj new -m). Reading, searching and read-only commands work."
		}
		return "Gate: LOCKED. Tools that modify files are denied until you declare the change: call " + h.Tool("jj_init") +
			" with one line saying what you are about to do (it runs jj new -m). Reading and searching are allowed. (Enforcement: " + how + ".)"
	}
	return "Gate: unlocked, file edits are allowed. Keep the description a living summary with " + h.Tool("jj_describe") +
		"; checkpoint with " + h.Tool("jj_new") + " when a step is done."
}

// block is one part of the session context.
type block struct {
	title string // heading line, kept with the text
	text  string
	cap   int    // max characters of text (0: no cap besides the budget)
	more  string // where to find what a cut left out
}

// minRoomAfterCut is how much of the budget must be left after a block cut
// to its own cap for later blocks still to be added.
const minRoomAfterCut = 200

// fit joins blocks in order within budget characters (a staterepo.Budget,
// as the state summary it embeds is fitted). A block over its cap or over
// what is left is cut at a line boundary with a marker saying where the
// rest is; nothing after a block cut for lack of room is added.
func fit(blocks []block, budget int) string {
	var out strings.Builder
	rest := staterepo.NewBudget(budget)
	for _, b := range blocks {
		sep := ""
		if out.Len() > 0 {
			sep = "\n\n"
		}
		head := b.title
		if head != "" {
			head += "\n"
		}
		left := rest.Room(0, len(sep)+len(head))
		if left <= 0 {
			break
		}
		text, cut := cutLines(b.text, b.cap, left, b.more)
		if text == "" {
			break
		}
		out.WriteString(sep)
		out.WriteString(head)
		out.WriteString(text)
		rest.Spend(len(sep) + len(head) + len(text))
		if cut && (b.cap == 0 || rest.Left() <= minRoomAfterCut) {
			break
		}
	}
	return out.String()
}

// cutLines returns text within min(cap, left) characters, cut after a whole
// line with a marker when it does not fit. It returns "" when not even one
// line and the marker fit.
func cutLines(text string, cap, left int, more string) (string, bool) {
	limit := left
	if cap > 0 && cap < limit {
		limit = cap
	}
	if len(text) <= limit {
		return text, false
	}
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		marker := fmt.Sprintf("… (%d more lines cut to fit", len(lines)-i)
		if more != "" {
			marker += "; " + more
		}
		marker += ")"
		add := len(l)
		if b.Len() > 0 {
			add++
		}
		if b.Len()+add+1+len(marker) > limit {
			if b.Len() == 0 {
				if len(marker) <= limit {
					return marker, true
				}
				return "", true
			}
			b.WriteString("\n")
			b.WriteString(marker)
			return b.String(), true
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(l)
	}
	return b.String(), false
}
