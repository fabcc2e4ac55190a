// Package text shapes short texts for people and models: one line, the
// first line, cuts that never split a line or a UTF-8 sequence, and how
// long ago something was. It is
// the one home of these helpers; it imports nothing of planq's, so the hook
// binary pays nothing for it.
package text

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// OneLine folds every run of whitespace in s, newlines included, into one
// space, and trims both ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// FirstLine returns the first line of s, without leading blank lines and
// surrounding whitespace.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(l)
}

// Prefix returns at most n bytes of s, never splitting a UTF-8 sequence.
func Prefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// CutAtLine returns the longest prefix of s of at most max bytes that ends
// after a newline, or, when the first line alone is longer, Prefix(s, max).
// cut reports whether anything was left out.
func CutAtLine(s string, max int) (kept string, cut bool) {
	if len(s) <= max {
		return s, false
	}
	if i := strings.LastIndexByte(s[:max], '\n'); i > 0 {
		return s[:i+1], true
	}
	return Prefix(s, max), true
}

// Ago says how long before now t was, in the largest whole unit ("just
// now", "5m ago", "3h ago", "4d ago"); "-" for the zero time.
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
