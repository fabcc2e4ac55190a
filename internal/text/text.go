// Package text shapes short texts for people and models: one line, the
// first line, and cuts that never split a line or a UTF-8 sequence. It is
// the one home of these helpers; it imports nothing of planq's, so the hook
// binary pays nothing for it.
package text

import (
	"strings"
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
