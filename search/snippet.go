package search

import (
	"strings"
	"unicode/utf8"

	"github.com/planq-dev/planq/changelog"
)

// snippet returns at most n characters of d's text around the place where
// the most query terms occur close together, with "…" where it was cut.
func snippet(d *Doc, terms []string, n int) string {
	text := ""
	if strings.TrimSpace(d.Body) != "" {
		text = changelog.PlainText(d.Body)
	}
	if !hasAny(text, terms) {
		for _, alt := range []string{strings.ReplaceAll(d.Fields, "\n", " · "), d.Title} {
			if hasAny(alt, terms) {
				text = alt
				break
			}
		}
		if text == "" {
			text = d.Title
		}
	}
	text = strings.Join(strings.Fields(strings.ToValidUTF8(text, "\uFFFD")), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	// Byte offsets of matching tokens, and which term each is.
	var pos []int
	var which []int
	var tk tokenizer
	tk.each(text, func(tok []byte, start, _ int) {
		for i, t := range terms {
			if string(tok) == t {
				pos = append(pos, start)
				which = append(which, i)
				return
			}
		}
	})
	// Pick the match whose window holds the most distinct terms.
	best, bestCount := 0, 0
	for i := range pos {
		seen := map[int]bool{}
		for j := i; j < len(pos); j++ {
			if utf8.RuneCountInString(text[pos[i]:pos[j]]) >= n*3/4 {
				break
			}
			seen[which[j]] = true
		}
		if len(seen) > bestCount {
			best, bestCount = i, len(seen)
		}
	}
	start := 0
	if len(pos) > 0 {
		// Start a little before the match, at a word boundary.
		start = pos[best]
		for back := 0; start > 0 && back < n/5; back++ {
			_, size := utf8.DecodeLastRuneInString(text[:start])
			start -= size
		}
		if start > 0 {
			if sp := strings.IndexByte(text[start:pos[best]], ' '); sp >= 0 {
				start += sp + 1
			}
		}
	}
	end := start
	for count := 0; end < len(text) && count < n; count++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	if end < len(text) {
		if sp := strings.LastIndexByte(text[start:end], ' '); sp > 0 {
			end = start + sp
		}
	}
	out := text[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

// hasAny reports whether s contains one of the terms as a token.
func hasAny(s string, terms []string) bool {
	found := false
	var tk tokenizer
	tk.each(s, func(tok []byte, _, _ int) {
		if !found {
			for _, t := range terms {
				if string(tok) == t {
					found = true
					return
				}
			}
		}
	})
	return found
}
