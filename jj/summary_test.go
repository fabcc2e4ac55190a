package jj

import (
	"reflect"
	"testing"
)

func TestSummaryRule(t *testing.T) {
	full := "Add rate limiting to API\n\nDone:\n- token bucket\n\nKey decisions:\n- token bucket over sliding window (simpler)\n\nLeft to do:\n- per-endpoint overrides\n\nOpen questions:\n- websockets?\n"
	tests := []struct {
		name, desc string
		summary    bool
		missing    []string
	}{
		{"full summary", full, true, nil},
		{"markdown headings", "Task\n\n## Done\n- x\n## Key decisions\n## Left to do\n## Open questions\n", true, nil},
		{"just a task line", "Add rate limiting to API", false, SummarySections},
		{"empty", "", false, SummarySections},
		{"sections only, no task", "Done:\nKey decisions:\nLeft to do:\nOpen questions:", true, nil},
		{"word inside a sentence is not a section", "Task\n\nDone: most of it\nKey decisions:\nLeft to do:\nOpen questions:", false, []string{"Done:"}},
		{"two missing", "Task\n\nDone:\n- x\nLeft to do:\n- y", false, []string{"Key decisions:", "Open questions:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MissingSections(tt.desc); !reflect.DeepEqual(got, tt.missing) {
				t.Errorf("MissingSections = %v, want %v", got, tt.missing)
			}
			if got := IsSummary(tt.desc); got != tt.summary {
				t.Errorf("IsSummary = %v, want %v", got, tt.summary)
			}
		})
	}
	if tpl := SummaryTemplate("Add X"); !IsSummary(tpl) || TaskLine(tpl) != "Add X" {
		t.Fatalf("the template is not a summary:\n%s", tpl)
	}
}

func TestSectionItems(t *testing.T) {
	tests := []struct {
		name, desc, section string
		want                []string
		ok                  bool
	}{
		{"two items", "Task\n\nDone:\n- a\n\nLeft to do:\n- b\n- c\n\nOpen questions:\n- d", "Left to do:", []string{"b", "c"}, true},
		{"last section runs to the end", "Task\nLeft to do:\n- b\n", "Left to do:", []string{"b"}, true},
		{"markdown heading and markers", "Task\n## Left to do\n* b\n+ c\n1. d\n2) e\n## Open questions\n- f", "Left to do:", []string{"b", "c", "d", "e"}, true},
		{"placeholders are no items", "Task\nLeft to do:\n- nothing\n- None.\n- n/a\n\nOpen questions:\n- none", "Left to do:", nil, true},
		{"checked boxes are done", "Task\nLeft to do:\n- [x] b\n- [ ] c\n- [X] d", "Left to do:", []string{"c"}, true},
		{"continuation lines join the item before", "Task\nLeft to do:\n- b, which\n  spans two lines\nc as plain text", "Left to do:", []string{"b, which", "c as plain text"}, true},
		{"empty section", "Task\nLeft to do:\n\nOpen questions:\n- x", "Left to do:", nil, true},
		{"no such section", "Task\nDone:\n- a", "Left to do:", nil, false},
		{"a sentence is no heading", "Task\nLeft to do: b and c", "Left to do:", nil, false},
		{"unknown section name", "Task\nLeft to do:\n- b", "Later:", nil, false},
		{"a bare marker is no item", "Task\nLeft to do:\n-\n- b", "Left to do:", []string{"b"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SectionItems(tt.desc, tt.section)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SectionItems = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
