package staterepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/gitlink"
	"github.com/planq-dev/planq/jj"
)

// ContextOptions bound the context summary; zero values mean the defaults.
type ContextOptions struct {
	LogEntries int    // newest log entries to consider (default 10)
	Learnings  int    // newest learnings to consider, agent and global (default 5)
	Decisions  int    // newest decisions to consider, agent and global (default 5)
	Budget     int    // the Markdown rendering's size limit in bytes (default 12 KiB)
	CodeBranch string // the code branch or jj bookmark; default: detected (see CodeBranch)
	NoDetect   bool   // do not run jj to find the bookmark
}

// withDefaults fills in the defaults of zero options.
func (o ContextOptions) withDefaults() ContextOptions {
	if o.LogEntries <= 0 {
		o.LogEntries = 10
	}
	if o.Learnings <= 0 {
		o.Learnings = 5
	}
	if o.Decisions <= 0 {
		o.Decisions = 5
	}
	if o.Budget <= 0 {
		o.Budget = defaultContextBudget
	}
	if o.Budget < minContextBudget {
		o.Budget = minContextBudget
	}
	return o
}

// Item is an entry as the context summary shows it, its text cut to fit.
type Item struct {
	ID           string           `json:"id"`                     // the entry's id
	Type         changelog.Type   `json:"type"`                   // the entry's type
	Time         time.Time        `json:"time"`                   // when it was written, UTC
	Agent        string           `json:"agent,omitempty"`        // who wrote it
	Source       string           `json:"source"`                 // "agent" or "global"
	Status       changelog.Status `json:"status,omitempty"`       // the entry's status, if any
	Text         string           `json:"text,omitempty"`         // its body, cut to itemTextCap
	Decision     string           `json:"decision,omitempty"`     // a decision: what was chosen
	Alternatives []string         `json:"alternatives,omitempty"` // a decision: what it was chosen over
	Rationale    string           `json:"rationale,omitempty"`    // a decision: why
	To           string           `json:"to,omitempty"`           // a handoff: the agent meant to continue
	NextSteps    []string         `json:"next_steps,omitempty"`   // a handoff: what to do next
}

// Summary is what an agent needs to know at the start of a session, newest
// first and bounded by ContextOptions.Budget. planq_context, `planq context
// show` and the session-start hook all render this one structure.
type Summary struct {
	Project       string   `json:"project"`                         // the project
	Agent         string   `json:"agent"`                           // the current agent
	StateBranch   string   `json:"state_branch"`                    // the agent's branch
	Worktree      string   `json:"worktree,omitempty"`              // set when this code repo has the agent checked out
	CheckedOut    string   `json:"checked_out,omitempty"`           // the agent the worktree holds, when it is another one
	CodeBranch    string   `json:"code_branch,omitempty"`           // the code branch or jj bookmark
	Initialized   bool     `json:"initialized"`                     // whether the state repo exists
	Handoff       *Item    `json:"handoff,omitempty"`               // the newest handoff not yet acted on
	Scratch       string   `json:"scratch,omitempty"`               // scratch.md, cut to fit
	Focus         string   `json:"focus,omitempty"`                 // context.md, cut to fit
	BranchContext string   `json:"branch_context,omitempty"`        // the code branch's context file, cut to fit
	BranchSource  string   `json:"branch_context_source,omitempty"` // "agent" or "global"
	Log           []Item   `json:"log"`                             // the newest log entries that fit
	Decisions     []Item   `json:"decisions"`                       // the newest decisions that fit, agent and global
	Learnings     []Item   `json:"learnings"`                       // the newest learnings that fit, agent and global
	Omitted       []string `json:"omitted,omitempty"`               // what the budget left out
	Problems      []string `json:"problems,omitempty"`              // what could not be read
}

// handoffWindow is how many of the newest changelog entries, the agent's
// and global's, are searched for a pending handoff and its acknowledgement.
const handoffWindow = 50

// Context builds the current agent's summary: it gathers the parts, then
// fits them into the budget (see Summary.fit and budget.go). It reads only
// the ends of the append-only files, so its cost does not grow with their
// length. It never writes; with no state repo yet it returns an empty
// summary.
func (s *Store) Context(ctx context.Context, o ContextOptions) (Summary, error) {
	o = o.withDefaults()
	sum := Summary{Project: s.Project, Agent: s.Agent, StateBranch: s.Branch(), Log: []Item{}, Decisions: []Item{}, Learnings: []Item{}}
	sum.CodeBranch = o.CodeBranch
	if sum.CodeBranch == "" {
		sum.CodeBranch = CodeBranch(ctx, s.Root, o.NoDetect)
	}
	if !s.Initialized() {
		return sum, nil
	}
	sum.Initialized = true
	rd, err := s.reader()
	if err != nil {
		return sum, err
	}
	defer rd.close()
	if co := checkedOutAgent(s.Worktree); co == s.Agent {
		sum.Worktree = s.Worktree
	} else if co != "" {
		sum.CheckedOut = co
	}
	g := s.gather(rd, o, sum.CodeBranch)
	for _, n := range rd.notes {
		g.problems = append(g.problems, n.Error())
	}
	sum.Problems = dedupe(g.problems)
	sum.fit(g, o.Budget)
	return sum, nil
}

// gathered is what the summary can show, before it is fitted into the
// budget: the newest entries and the whole text parts.
type gathered struct {
	handoff                   *Item
	log, decisions, learnings []Item // newest first, as many as ContextOptions asks for
	scratch, focus            string
	branchContext             string
	branchSource              string // "agent" or "global"
	problems                  []string
}

// gather reads the parts of the current agent's summary through rd, noting
// what it could not read in problems.
func (s *Store) gather(rd *reader, o ContextOptions, codeBranch string) gathered {
	var g gathered
	branch := s.Branch()
	read := func(b, p string) string {
		data, _, err := rd.file(b, p)
		if err != nil {
			g.problems = append(g.problems, fmt.Sprintf("%s:%s: %v", b, p, err))
		}
		return strings.TrimSpace(string(data))
	}
	tail := func(b, p string, n int) []changelog.Entry {
		es, probs, err := rd.tailEntriesOf(b, p, n)
		if err != nil {
			g.problems = append(g.problems, fmt.Sprintf("%s:%s: %v", b, p, err))
		}
		for _, pr := range probs {
			g.problems = append(g.problems, fmt.Sprintf("%s: %s (entry skipped; fix it by hand)", b, pr.Error()))
		}
		return es
	}

	agentLog := tail(branch, ChangelogFile, max(o.LogEntries, handoffWindow))
	globalLog := tail(GlobalBranch, ChangelogFile, handoffWindow)
	if h := pendingHandoff(s.Agent, agentLog, globalLog); h != nil {
		src := "agent"
		if h.To == s.Agent && h.Agent != s.Agent {
			src = "global"
		}
		it := toItem(*h, src)
		g.handoff = &it
	}
	for _, e := range agentLog {
		if len(g.log) == o.LogEntries {
			break
		}
		if g.handoff != nil && e.ID == g.handoff.ID {
			continue
		}
		g.log = append(g.log, toItem(e, "agent"))
	}
	g.decisions = mergeNewest(o.Decisions, tail(branch, DecisionsFile, o.Decisions), tail(GlobalBranch, DecisionsFile, o.Decisions))
	g.learnings = mergeNewest(o.Learnings, tail(branch, LearningsFile, o.Learnings), tail(GlobalBranch, LearningsFile, o.Learnings))

	g.scratch = read(branch, ScratchFile)
	g.focus = read(branch, ContextFile)
	if codeBranch != "" {
		if p, err := branchFile(codeBranch); err == nil {
			if data, ok, _ := rd.file(branch, p); ok && len(strings.TrimSpace(string(data))) > 0 {
				g.branchContext, g.branchSource = strings.TrimSpace(string(data)), "agent"
			} else if data, ok, _ := rd.file(GlobalBranch, p); ok && len(strings.TrimSpace(string(data))) > 0 {
				g.branchContext, g.branchSource = strings.TrimSpace(string(data)), "global"
			}
		}
	}
	return g
}

// pendingHandoff returns the newest handoff meant for agent — from its own
// changelog (to itself or to no one) or from global (addressed to it) —
// that none of the agent's own later entries acknowledges. The first entry
// an agent logs while a handoff is pending names it in depends_on (see
// Store.Log), which is what acknowledging means; so a handoff that arrives by
// a pull after the agent did other work is still shown.
func pendingHandoff(agent string, own, global []changelog.Entry) *changelog.Entry {
	acked := map[string]bool{}
	for _, e := range own {
		if e.Agent == agent {
			for _, d := range e.DependsOn {
				acked[d] = true
			}
		}
	}
	var best *changelog.Entry
	consider := func(e changelog.Entry) {
		if e.Type != changelog.TypeHandoff || acked[e.ID] {
			return
		}
		if e.Status != "" && e.Status != changelog.StatusPending {
			return
		}
		if best == nil || e.Timestamp.After(best.Timestamp) {
			e := e
			best = &e
		}
	}
	for _, e := range own {
		if e.To == "" || e.To == agent {
			consider(e)
		}
	}
	for _, e := range global {
		if e.To == agent {
			consider(e)
		}
	}
	return best
}

// mergeNewest merges two newest-first lists, drops duplicates (an entry
// promoted to global appears in both) and keeps the newest n.
func mergeNewest(n int, agent, global []changelog.Entry) []Item {
	seen := map[string]bool{}
	var out []Item
	for _, e := range agent {
		seen[e.ID] = true
		out = append(out, toItem(e, "agent"))
	}
	for _, e := range global {
		if !seen[e.ID] {
			out = append(out, toItem(e, "global"))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// toItem shows entry e from source ("agent" or "global") as the summary
// does, its text capped at itemTextCap.
func toItem(e changelog.Entry, source string) Item {
	text := e.Body
	if len(text) > itemTextCap {
		text = changelog.Truncate(text, itemTextCap)
	}
	return Item{ID: e.ID, Type: e.Type, Time: e.Timestamp.UTC(), Agent: e.Agent, Source: source, Status: e.Status,
		Text: text, Decision: e.Decision, Alternatives: e.Alternatives, Rationale: e.Rationale, To: e.To, NextSteps: e.NextSteps}
}

// branchFile maps a code branch or bookmark to its context file,
// branches/<branch>.md, refusing names that would leave branches/.
func branchFile(branch string) (string, error) {
	if strings.TrimSpace(branch) == "" {
		return "", fmt.Errorf("branch name is %w", ErrEmpty)
	}
	p := BranchesDir + "/" + branch + ".md"
	if err := validPath(p); err != nil {
		return "", fmt.Errorf("branch %q cannot name a context file: %w", branch, err)
	}
	return p, nil
}

// CodeBranch returns the code repo's current branch: the git branch HEAD
// names, else (jj repos, where HEAD is detached) the nearest bookmark on @
// or its ancestors, found with one `jj log` call unless noJJ is set. It
// returns "" when there is none.
func CodeBranch(ctx context.Context, root string, noJJ bool) string {
	if gd, ok := gitlink.CommonDir(root); ok {
		headPath := filepath.Join(gd, "HEAD")
		if data, err := os.ReadFile(filepath.Join(root, ".git")); err == nil {
			// A linked git worktree keeps its own HEAD in its gitdir.
			if p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
				if !filepath.IsAbs(p) {
					p = filepath.Join(root, p)
				}
				headPath = filepath.Join(p, "HEAD")
			}
		}
		if data, err := os.ReadFile(headPath); err == nil {
			if b, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/heads/"); ok {
				if _, err := os.Stat(filepath.Join(root, ".jj")); err != nil {
					return b // a plain git repo; in a colocated jj repo HEAD lags, ask jj
				}
			}
		}
	}
	if noJJ {
		return ""
	}
	if _, err := os.Stat(filepath.Join(root, ".jj")); err != nil {
		return ""
	}
	c := jj.New(root)
	c.Timeout = 5 * time.Second
	out, err := c.Run(ctx, "log", "--ignore-working-copy", "--no-graph", "-r", "latest(heads(::@ & bookmarks()))",
		"-T", `local_bookmarks.map(|b| b.name()).join("\n") ++ "\n"`)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(strings.TrimSuffix(l, "*")); l != "" {
			return l
		}
	}
	return ""
}

// header is the summary's first lines.
func (s Summary) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# planq context: agent %s (project %s)\n\n", s.Agent, s.Project)
	if !s.Initialized {
		b.WriteString("No state repo yet; the first planq write (planq_log, planq_scratch, `planq log add`) creates it.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "State branch `%s`", s.StateBranch)
	switch {
	case s.Worktree != "":
		fmt.Fprintf(&b, ", checked out at `%s/`", WorktreeDir)
	case s.CheckedOut != "":
		fmt.Fprintf(&b, " (the worktree `%s/` holds agent %s)", WorktreeDir, s.CheckedOut)
	}
	if s.CodeBranch != "" {
		fmt.Fprintf(&b, "; code branch `%s`", s.CodeBranch)
	}
	b.WriteString(".\n")
	return b.String()
}

// Markdown renders the summary for a model or a person.
func (s Summary) Markdown() string {
	var b strings.Builder
	b.WriteString(s.header())
	if s.Handoff != nil {
		fmt.Fprintf(&b, "\n## Pending handoff (from %s, %s)\n\n%s", s.Handoff.Agent, s.Handoff.Time.Format("2006-01-02 15:04"), itemMarkdown(*s.Handoff))
	}
	section := func(title, text string) {
		if text != "" {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, text)
		}
	}
	section("Scratch", s.Scratch)
	if s.BranchContext != "" {
		section(fmt.Sprintf("Branch context: %s (%s)", s.CodeBranch, s.BranchSource), s.BranchContext)
	}
	section("Focus (context.md)", s.Focus)
	list := func(title string, items []Item) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		for _, it := range items {
			b.WriteString(itemMarkdown(it))
		}
	}
	list("Recent log (newest first)", s.Log)
	list("Decisions (newest first)", s.Decisions)
	list("Learnings (newest first)", s.Learnings)
	if len(s.Omitted) > 0 {
		fmt.Fprintf(&b, "\n_Left out to stay short: %s. `planq_search` finds older entries._\n", strings.Join(s.Omitted, "; "))
	}
	if len(s.Problems) > 0 {
		fmt.Fprintf(&b, "\n_Problems reading the state: %s._\n", strings.Join(s.Problems, "; "))
	}
	return b.String()
}

// itemMarkdown renders one item as a list entry.
func itemMarkdown(it Item) string {
	var b strings.Builder
	when := it.Time.Format("2006-01-02 15:04")
	meta := []string{when, it.ID}
	if it.Source == "global" {
		meta = append(meta, "global")
	}
	if it.Agent != "" && it.Type != changelog.TypeLearning && it.Type != changelog.TypeDecision {
		meta = append(meta, it.Agent)
	}
	switch it.Type {
	case changelog.TypeDecision:
		fmt.Fprintf(&b, "- **%s**", it.Decision)
		if len(it.Alternatives) > 0 {
			fmt.Fprintf(&b, " over %s", strings.Join(it.Alternatives, ", "))
		}
		if it.Rationale != "" {
			fmt.Fprintf(&b, ", because %s", it.Rationale)
		}
		fmt.Fprintf(&b, " (%s)\n", strings.Join(meta, ", "))
		if it.Text != "" {
			b.WriteString(indent(it.Text))
		}
	case changelog.TypeLearning:
		fmt.Fprintf(&b, "- %s (%s)\n", learningLine(it.Text), strings.Join(meta, ", "))
	default:
		label := string(it.Type)
		if it.Status != "" {
			label += ", " + string(it.Status)
		}
		if it.To != "" {
			label += ", to " + it.To
		}
		fmt.Fprintf(&b, "- [%s] (%s)\n", label, strings.Join(meta, ", "))
		b.WriteString(indent(it.Text))
		if len(it.NextSteps) > 0 {
			b.WriteString("  Next steps:\n")
			for _, st := range it.NextSteps {
				fmt.Fprintf(&b, "  - %s\n", st)
			}
		}
	}
	return b.String()
}

// learningLine renders a learning on one line: the insight, then its context.
func learningLine(text string) string {
	first, rest, _ := strings.Cut(text, "\n")
	if rest = strings.TrimSpace(rest); rest != "" {
		return first + " — " + strings.ReplaceAll(rest, "\n", " ")
	}
	return first
}

// indent indents text's non-empty lines by two spaces, under a list item.
func indent(text string) string {
	if text == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if l == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// CodeStateKey returns a cheap fingerprint of where the code repo is: jj's
// operation heads (jj.OpHeadsKey) and git's HEAD. It changes whenever jj
// records an operation or git moves HEAD, so a caller can cache CodeBranch
// under it; "" means nothing could be read.
func CodeStateKey(root string) string {
	var b strings.Builder
	if key, err := jj.OpHeadsKey(root); err == nil {
		b.WriteString(key)
		b.WriteByte(',')
	}
	if gd, ok := gitlink.CommonDir(root); ok {
		if data, err := os.ReadFile(filepath.Join(gd, "HEAD")); err == nil {
			b.Write(data)
		}
	}
	return b.String()
}

// dedupe drops repeated strings, keeping the first of each.
func dedupe(list []string) []string {
	seen := map[string]bool{}
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
