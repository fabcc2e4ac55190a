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
