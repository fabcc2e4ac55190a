package statusline

import (
	"strings"
	"testing"
)

func TestWidth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"café", 4},
		{"cafe\u0301", 4}, // e + combining acute
		{"日本語", 6},
		{"ｈｉ", 4}, // fullwidth
		{"a\x1b[31mb", 6},
		{"a\tb\n", 2},
		{"a\u200bb", 2}, // zero width space (Cf)
		{"…·", 2},
		{"한글", 4},
	}
	for _, tt := range tests {
		if got := Width(tt.s); got != tt.want {
			t.Errorf("Width(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		cols int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 10, "hello"},
		{"hello world", 6, "hello…"},
		{"hello world", 7, "hello…"}, // the space before the ellipsis goes
		{"hello", 1, "…"},
		{"hello", 0, ""},
		{"日本語です", 5, "日本…"},
		{"日本語です", 4, "日…"}, // 本 would straddle the edge
		{"cafe\u0301 noir", 6, "cafe\u0301…"},
		{"ab\u0301cd", 3, "ab\u0301…"}, // the mark stays with its rune
	}
	for _, tt := range tests {
		got := Cut(tt.s, tt.cols)
		if got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.cols, got, tt.want)
		}
		if Width(got) > max(tt.cols, 0) {
			t.Errorf("Cut(%q, %d) = %q is %d columns wide", tt.s, tt.cols, got, Width(got))
		}
	}
}

func TestFit(t *testing.T) {
	t.Parallel()
	id := Part{Text: "kxqyzmpvqrst"}
	gate := Part{Text: "gate open"}
	task := Part{Text: "Add rate limiting to the public API", Min: 10}
	left := Part{Text: "2 left to do"}
	all := []Part{id, gate, task, left}
	tests := []struct {
		name  string
		parts []Part
		cols  int
		want  string
	}{
		{"everything fits", all, 80, "kxqyzmpvqrst · gate open · Add rate limiting to the public API · 2 left to do"},
		{"exactly fits", all, 77, "kxqyzmpvqrst · gate open · Add rate limiting to the public API · 2 left to do"},
		{"one column short: the least important part goes first", all, 76, "kxqyzmpvqrst · gate open · Add rate limiting to the public API"},
		{"then the summary is cut", all, 50, "kxqyzmpvqrst · gate open · Add rate limiting to t…"},
		{"cut down to its minimum", all, 37, "kxqyzmpvqrst · gate open · Add rate…"},
		{"below its minimum it is dropped", all, 36, "kxqyzmpvqrst · gate open"},
		{"then the gate", all, 20, "kxqyzmpvqrst"},
		{"the id is cut, never dropped", all, 8, "kxqyzmp…"},
		{"no room at all", all, 0, ""},
		{"empty parts are skipped", []Part{id, {Text: ""}, {Text: " \n "}, left}, 80, "kxqyzmpvqrst · 2 left to do"},
		{"control characters become spaces", []Part{{Text: "a\x1b[2Jb\n\nc\td"}}, 80, "a [2Jb c d"},
		{"wide runes count twice", []Part{id, {Text: "日本語のタスク説明です", Min: 4}}, 25, "kxqyzmpvqrst · 日本語の…"},
		{"nothing", nil, 80, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Fit(tt.parts, tt.cols)
			if got != tt.want {
				t.Errorf("Fit(%d) =\n  %q\nwant\n  %q", tt.cols, got, tt.want)
			}
			if w := Width(got); w > max(tt.cols, 0) {
				t.Errorf("Fit(%d) is %d columns wide: %q", tt.cols, w, got)
			}
		})
	}
	// Every width from 0 to the full line keeps the parts in order and
	// within the width.
	for cols := 0; cols <= 90; cols++ {
		got := Fit(all, cols)
		if Width(got) > cols {
			t.Fatalf("Fit(%d) is %d columns wide: %q", cols, Width(got), got)
		}
		if cols >= 8 && !strings.HasPrefix(got, "kxqyzmp") {
			t.Fatalf("Fit(%d) = %q lost the id", cols, got)
		}
		if strings.Contains(got, "left to do") && !strings.Contains(got, task.Text) {
			t.Fatalf("Fit(%d) = %q kept the count but cut the summary", cols, got)
		}
	}
}
