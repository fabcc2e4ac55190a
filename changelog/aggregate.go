package changelog

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"
)

// AgentSummary is one row of the session changelog.
type AgentSummary struct {
	Agent        string    `json:"agent"`
	Status       Status    `json:"status"`        // the latest entry's status, else derived from its type
	LastType     Type      `json:"last_type"`     // type of the latest entry
	LastActivity time.Time `json:"last_activity"` // timestamp of the latest entry
	LastTitle    string    `json:"last_title"`    // QuickTitle of the latest entry's body
	Entries      int       `json:"entries"`       // number of entries
}

// Summary is the session changelog aggregated across agent branches.
type Summary struct {
	Project     string         `json:"project,omitempty"` // set by the caller
	GeneratedAt time.Time      `json:"generated_at"`      // the newest entry's timestamp, so regenerating an unchanged state changes nothing
	Agents      []AgentSummary `json:"agents"`            // newest activity first, then by name
	Recent      []Entry        `json:"recent"`            // newest entries across agents, newest first, at most RecentLimit
}

// RecentLimit bounds Summary.Recent.
const RecentLimit = 20

// DeriveStatus returns e's status, or one implied by its type when unset:
// end is completed, handoff is pending (waiting to be picked up), anything
// else in_progress.
func DeriveStatus(e Entry) Status {
	switch {
	case e.Status != "":
		return e.Status
	case e.Type == TypeEnd:
		return StatusCompleted
	case e.Type == TypeHandoff:
		return StatusPending
	}
	return StatusInProgress
}

// Aggregate builds the session changelog from each agent's entries (in any
// order). Agents without entries are listed with zero counts.
func Aggregate(byAgent map[string][]Entry) Summary {
	var s Summary
	var all []Entry
	for agent, es := range byAgent {
		row := AgentSummary{Agent: agent, Entries: len(es)}
		var last *Entry
		for i := range es {
			e := &es[i]
			if last == nil || e.Timestamp.After(last.Timestamp) || e.Timestamp.Equal(last.Timestamp) && e.ID > last.ID {
				last = e
			}
		}
		if last != nil {
			row.Status = DeriveStatus(*last)
			row.LastType = last.Type
			row.LastActivity = last.Timestamp.UTC()
			row.LastTitle = entryTitle(*last)
			if row.LastActivity.After(s.GeneratedAt) {
				s.GeneratedAt = row.LastActivity
			}
		}
		s.Agents = append(s.Agents, row)
		all = append(all, es...)
	}
	sort.Slice(s.Agents, func(i, j int) bool {
		a, b := s.Agents[i], s.Agents[j]
		if !a.LastActivity.Equal(b.LastActivity) {
			return a.LastActivity.After(b.LastActivity)
		}
		return a.Agent < b.Agent
	})
	SortEntries(all)
	for i := len(all) - 1; i >= 0 && len(s.Recent) < RecentLimit; i-- {
		s.Recent = append(s.Recent, all[i])
	}
	return s
}

// entryTitle is the body's quick title, or the decision for a decision
// entry without a body.
func entryTitle(e Entry) string {
	if t := QuickTitle(e.Body); t != "" {
		return t
	}
	if e.Decision != "" {
		return shortTitle(e.Decision)
	}
	return ""
}

const timeLayout = "2006-01-02 15:04 UTC"

// Markdown renders s as the global branch's session changelog: front matter
// (generated_at, project, agents), a table of agents with status, last
// activity and entry count, and the recent entries. The front matter has no
// entry keys, so Parse reads no entries from it.
func (s Summary) Markdown() string {
	var b bytes.Buffer
	b.WriteString("---\n")
	if !s.GeneratedAt.IsZero() {
		fmt.Fprintf(&b, "generated_at: %s\n", s.GeneratedAt.UTC().Format(time.RFC3339))
	}
	if s.Project != "" {
		writeKV(&b, "project", s.Project)
	}
	names := make([]string, len(s.Agents))
	for i, a := range s.Agents {
		names[i] = a.Agent
	}
	if len(names) == 0 {
		b.WriteString("agents: []\n")
	} else {
		writeList(&b, "agents", names)
	}
	b.WriteString("---\n\n# Session Changelog\n\n## Active Agents\n\n")
	if len(s.Agents) == 0 {
		b.WriteString("No agent has logged anything yet.\n")
	} else {
		b.WriteString("| Agent | Status | Last Activity | Entries | Latest |\n")
		b.WriteString("|-------|--------|---------------|---------|--------|\n")
		for _, a := range s.Agents {
			last := "—"
			if !a.LastActivity.IsZero() {
				last = a.LastActivity.UTC().Format(timeLayout)
			}
			status := string(a.Status)
			if status == "" {
				status = "—"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %s |\n", cell(a.Agent), status, last, a.Entries, cell(a.LastTitle))
		}
	}
	if len(s.Recent) > 0 {
		b.WriteString("\n## Recent Entries\n\n")
		for _, e := range s.Recent {
			fmt.Fprintf(&b, "- %s · %s · %s", e.Timestamp.UTC().Format(timeLayout), e.Agent, e.Type)
			if e.Status != "" {
				fmt.Fprintf(&b, " (%s)", e.Status)
			}
			if t := entryTitle(e); t != "" {
				fmt.Fprintf(&b, " · %s", inline(t))
			}
			fmt.Fprintf(&b, " `%s`\n", e.ID)
		}
	}
	return b.String()
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(inline(s), "|", `\|`)
}

// inline makes s one line.
func inline(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
