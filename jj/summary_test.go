package jj

import (
	"reflect"
	"testing"
)

func TestSummaryRule(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestParseSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, desc string
		want       Summary
	}{
		{
			"full summary with free text",
			"Add rate limiting\n\nWhy: the API was flooded.\n\nDone:\n- token bucket\n  in api/limit.go\n\nKey decisions:\n- buckets per key\n\nLeft to do:\n- overrides\n- [x] tests\n\nOpen questions:\n- none\n",
			Summary{Task: "Add rate limiting", Body: "Why: the API was flooded.", Sections: []Section{
				{Name: "Done:", Items: []string{"token bucket"}, Text: "- token bucket\n  in api/limit.go"},
				{Name: "Key decisions:", Items: []string{"buckets per key"}, Text: "- buckets per key"},
				{Name: "Left to do:", Items: []string{"overrides"}, Text: "- overrides\n- [x] tests"},
				{Name: "Open questions:", Text: "- none"},
			}},
		},
		{
			"sections out of order are listed in SummarySections order",
			"Task\n## Left to do\n- b\n## Done\n- a",
			Summary{Task: "Task", Sections: []Section{
				{Name: "Done:", Items: []string{"a"}, Text: "- a"},
				{Name: "Left to do:", Items: []string{"b"}, Text: "- b"},
			}},
		},
		{"no summary", "Fix the parser\n\nIt dropped the last token.", Summary{Task: "Fix the parser", Body: "It dropped the last token."}},
		{"sections without a task line", "Done:\n- a\nLeft to do:", Summary{Sections: []Section{
			{Name: "Done:", Items: []string{"a"}, Text: "- a"},
			{Name: "Left to do:"},
		}}},
		{"empty", "", Summary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseSummary(tt.desc); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseSummary =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}
