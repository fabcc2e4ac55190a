package jj

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// SummarySections are the sections of a living summary, in order: the change
// description's first line is the task, then these lists.
var SummarySections = []string{"Done:", "Key decisions:", "Left to do:", "Open questions:"}

// sectionRes match a section heading line; compiled on first use, so the
// hooks that never look at a summary do not pay for them.
var sectionRes = sync.OnceValue(func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range SummarySections {
		out = append(out, regexp.MustCompile(`(?mi)^[ \t]*(?:#+[ \t]*)?`+regexp.QuoteMeta(strings.TrimSuffix(s, ":"))+`[ \t]*:?[ \t]*$`))
	}
	return out
})

// MissingSections returns the summary sections desc lacks (a section is a
// line holding just its name, "Done:" or "## Done"), in order.
func MissingSections(desc string) []string {
	var missing []string
	for i, re := range sectionRes() {
		if !re.MatchString(desc) {
			missing = append(missing, SummarySections[i])
		}
	}
	return missing
}

// IsSummary reports whether desc is a living summary: a task line and all
// four sections. The stop hook, session-start and jj_describe share this rule.
func IsSummary(desc string) bool {
	return TaskLine(desc) != "" && len(MissingSections(desc)) == 0
}

// SectionItems returns the items of one of a living summary's sections
// (section is one of SummarySections) in desc, in order, or ok false when
// desc has no such section. An item is a line under the heading, up to the
// next section heading: a list item ("- x", "* x", "1. x") without its
// marker, or an unindented line of text; an indented line without a marker
// continues the item before it. A placeholder ("none", "nothing", "n/a")
// and a checked box ("- [x] y") are no items, so "Left to do:\n- nothing"
// has none.
func SectionItems(desc, section string) (items []string, ok bool) {
	i := slices.Index(SummarySections, section)
	if i < 0 {
		return nil, false
	}
	text, _, ok := sectionText(desc, i)
	if !ok {
		return nil, false
	}
	return itemsOf(text), true
}

// sectionText returns the text under the heading of SummarySections[i] in
// desc, up to the next section heading of any kind, and where the heading
// starts; ok is false when desc has no such heading.
func sectionText(desc string, i int) (text string, at int, ok bool) {
	res := sectionRes()
	loc := res[i].FindStringIndex(desc)
	if loc == nil {
		return "", 0, false
	}
	rest := desc[loc[1]:]
	end := len(rest)
	for _, re := range res {
		if l := re.FindStringIndex(rest); l != nil && l[0] < end {
			end = l[0]
		}
	}
	return rest[:end], loc[0], true
}

// itemsOf returns the items of a section's text (see SectionItems).
func itemsOf(text string) []string {
	var items []string
	for _, l := range strings.Split(text, "\n") {
		item, marked, checked := listItem(l)
		if item == "" || !marked && (l[0] == ' ' || l[0] == '\t') {
			continue // blank, or a continuation line
		}
		if !checked && !isPlaceholder(item) {
			items = append(items, item)
		}
	}
	return items
}

// Summary is a change description read as a living summary.
type Summary struct {
	Task string // the first non-empty line (TaskLine)
	// Body is the free text between the task line and the first section
	// heading, trimmed; all of the text after the task line when there are
	// no sections.
	Body     string
	Sections []Section // the sections desc has, in SummarySections order
}

// Section is one section of a living summary.
type Section struct {
	Name  string   // as SummarySections names it, e.g. "Left to do:"
	Items []string // its items, as SectionItems reads them
	Text  string   // the text under the heading, trimmed, for display as Markdown
}

// ParseSummary reads desc as a living summary, with the rules of
// SectionItems and MissingSections. A description that is no summary gives
// its task line, the rest as Body, and no sections.
func ParseSummary(desc string) Summary {
	s := Summary{Task: TaskLine(desc)}
	afterTask := 0
	if s.Task != "" {
		afterTask = strings.Index(desc, s.Task) + len(s.Task)
	}
	bodyEnd := len(desc)
	for i, name := range SummarySections {
		text, at, ok := sectionText(desc, i)
		if !ok {
			continue
		}
		if at < bodyEnd {
			bodyEnd = at
		}
		s.Sections = append(s.Sections, Section{Name: name, Items: itemsOf(text), Text: strings.TrimRight(strings.TrimLeft(text, "\n"), " \t\n")})
	}
	if s.Task != "" && bodyEnd < afterTask {
		// The first line is a section heading: there is no task line.
		s.Task, afterTask = "", 0
	}
	if bodyEnd > afterTask {
		s.Body = strings.TrimSpace(desc[afterTask:bodyEnd])
	}
	return s
}

// listItem returns line's text without its list marker, whether it had
// one, and whether it is a checked task box ("- [x] done").
func listItem(line string) (text string, marked, checked bool) {
	s := strings.TrimSpace(line)
	for _, m := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(s, m) || s == strings.TrimSpace(m) {
			s, marked = strings.TrimSpace(strings.TrimPrefix(s, strings.TrimSpace(m))), true
			break
		}
	}
	if n := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); !marked && n > 0 && n < len(s)-1 && (s[n] == '.' || s[n] == ')') && s[n+1] == ' ' {
		s, marked = strings.TrimSpace(s[n+2:]), true
	}
	if marked && len(s) >= 3 && s[0] == '[' && s[2] == ']' {
		checked = s[1] == 'x' || s[1] == 'X'
		s = strings.TrimSpace(s[3:])
	}
	return s, marked, checked
}

// isPlaceholder reports whether a section item only says the section is
// empty.
func isPlaceholder(item string) bool {
	switch strings.ToLower(strings.Trim(item, " .!")) {
	case "none", "nothing", "n/a", "na", "-", "—", "(none)", "(nothing)", "none yet", "nothing yet", "nothing left", "nothing else":
		return true
	}
	return false
}

// TaskLine returns the first non-empty line of desc, the original task.
func TaskLine(desc string) string {
	for _, l := range strings.Split(desc, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// SummaryTemplate is the living summary's form for task, to show the model.
func SummaryTemplate(task string) string {
	if task = strings.TrimSpace(task); task == "" {
		task = "<the original task, one line>"
	}
	return task + `

Done:
- <what is finished, with the files it touched>

Key decisions:
- <each decision, with its rationale>

Left to do:
- <what remains>

Open questions:
- <what is unresolved, or "none">`
}
