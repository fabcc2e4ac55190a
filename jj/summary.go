package jj

import (
	"regexp"
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
