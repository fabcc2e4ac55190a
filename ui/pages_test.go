package ui

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestUIClassifyTranscriptLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, kind, summary string
	}{
		{"user: add rate limiting", lineUser, ""},
		{"assistant: I will declare the change first", lineAssistant, ""},
		{`assistant calls Bash {"command":"go test ./..."}`, lineCall, `tool call: Bash {"command":"go test ./..."}`},
		{"tool result: ok  \tshop/api\t0.01s", lineResult, "tool result: ok shop/api 0.01s"},
		{"tool error: exit status 1", lineResult, "tool error: exit status 1"},
		{"[attachment file]", lineMeta, ""},
		{"summary: the session so far", lineMeta, ""},
		{"the user calls it a day: nothing", lineMeta, ""}, // prose, not a call
	}
	for _, tt := range tests {
		kind, summary := classify(tt.line)
		if kind != tt.kind || summary != tt.summary {
			t.Errorf("classify(%q) = %q, %q; want %q, %q", tt.line, kind, summary, tt.kind, tt.summary)
		}
	}
}

func TestUIRevParamTakesOnlyIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rev string
		ok  bool
	}{
		{"qpkwxyrmzpyv", true},
		{"0123abcd", true},
		{"", false},
		{"@", false},
		{"all()", false},
		{"main..@", false},
		{"QPKW", false},
		{strings.Repeat("a", 65), false},
	}
	for _, tt := range tests {
		_, err := revParam(httptest.NewRequest("GET", "/change/diff?rev="+strings.NewReplacer("(", "%28", ")", "%29", "@", "%40").Replace(tt.rev), nil))
		if (err == nil) != tt.ok {
			t.Errorf("revParam(%q): %v, want ok %v", tt.rev, err, tt.ok)
		}
	}
}

func TestUILayoutSummary(t *testing.T) {
	t.Parallel()
	task, secs, body := layoutSummary("Add rate limiting\n\nWhy: one client took the API down.\n\nDone:\n- `limit.go`\n\nKey decisions:\nWe chose a token bucket.\n\nLeft to do:\n- nothing\n\nOpen questions:\n- per key?\n")
	if task != "Add rate limiting" {
		t.Errorf("task %q", task)
	}
	if !strings.Contains(string(body), "one client took the API down") || strings.Contains(string(body), "Done") {
		t.Errorf("body %q: want the text before the sections only", body)
	}
	var got []string
	for _, s := range secs {
		got = append(got, s.Name)
	}
	if strings.Join(got, ",") != "Done,Key decisions,Left to do,Open questions" {
		t.Fatalf("sections %v", got)
	}
	if len(secs[0].Items) != 1 || !strings.Contains(string(secs[0].Items[0]), "<code>limit.go</code>") {
		t.Errorf("Done items %v: want the Markdown rendered", secs[0].Items)
	}
	if len(secs[1].Items) != 1 || !strings.Contains(string(secs[1].Items[0]), "token bucket") {
		t.Errorf("Key decisions: an unmarked line is an item (jj.SectionItems' rule), got %+v", secs[1])
	}
	if len(secs[2].Items) != 0 || secs[2].Text != "" {
		t.Errorf("Left to do with only a placeholder should be empty, got %+v", secs[2])
	}
}

func TestUIMarkdownHasNoRawHTML(t *testing.T) {
	t.Parallel()
	h := string(renderMarkdown("hello <script>alert(1)</script> <img src=x onerror=alert(1)>"))
	if strings.Contains(h, "<script") || strings.Contains(h, "<img") {
		t.Errorf("raw HTML passed through: %s", h)
	}
}
