package text

import "testing"

func TestOneLine(t *testing.T) {
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
