package text

import (
	"testing"
	"time"
)

func TestOneLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                       "",
		"  a  b\n\tc \r\n":       "a b c",
		"exit status 1\nstderr:": "exit status 1 stderr:",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                          "",
		"Add limiter\n\nDone:\n- x": "Add limiter",
		"\n\n  Task  \nmore":        "Task",
		"one":                       "one",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"héllo", 2, "h"}, // é is two bytes: not split
		{"héllo", 3, "hé"},
		{"日本", 4, "日"},
	}
	for _, tt := range tests {
		if got := Prefix(tt.s, tt.n); got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestCutAtLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s       string
		max     int
		want    string
		wantCut bool
	}{
		{"short", 10, "short", false},
		{"one\ntwo\nthree\n", 10, "one\ntwo\n", true},
		{"one\ntwo\nthree\n", 8, "one\ntwo\n", true},
		{"one\ntwo\nthree\n", 7, "one\n", true},
		{"a very long first line\nnext", 6, "a very", true},
		{"\nlong line after a blank", 5, "\nlong", true},
		{"日本語\n", 5, "日", true},
	}
	for _, tt := range tests {
		got, cut := CutAtLine(tt.s, tt.max)
		if got != tt.want || cut != tt.wantCut {
			t.Errorf("CutAtLine(%q, %d) = %q, %v; want %q, %v", tt.s, tt.max, got, cut, tt.want, tt.wantCut)
		}
		if len(got) > tt.max {
			t.Errorf("CutAtLine(%q, %d) kept %d bytes, over the limit", tt.s, tt.max, len(got))
		}
	}
}

func TestAgo(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		then time.Time
		want string
	}{
		{time.Time{}, "-"},
		{now.Add(-30 * time.Second), "just now"},
		{now.Add(time.Minute), "just now"}, // a clock a little ahead
		{now.Add(-5*time.Minute - 59*time.Second), "5m ago"},
		{now.Add(-3 * time.Hour), "3h ago"},
		{now.Add(-47 * time.Hour), "47h ago"},
		{now.Add(-4 * 24 * time.Hour), "4d ago"},
	}
	for _, tt := range tests {
		if got := Ago(now, tt.then); got != tt.want {
			t.Errorf("Ago(now, now%+v) = %q, want %q", tt.then.Sub(now), got, tt.want)
		}
	}
}
