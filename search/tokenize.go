package search

import (
	"unicode"
	"unicode/utf8"
)

// maxToken is the longest token indexed, in bytes; longer runs (hashes,
// base64) are skipped.
const maxToken = 64

// tokenizer splits text into lowercased tokens, reusing its buffer.
type tokenizer struct {
	buf []byte
}

// each calls fn for every token of s with its byte span in s. The token
// slice is only valid during the call.
func (t *tokenizer) each(s string, fn func(tok []byte, start, end int)) {
	b := t.buf[:0]
	start := -1
	ascii := true
	flush := func(end int) {
		if start >= 0 && len(b) > 0 && len(b) <= maxToken {
			if ascii {
				b = stem(b)
			}
			fn(b, start, end)
		}
		b = b[:0]
		start = -1
		ascii = true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				if start < 0 {
					start = i
				}
				b = append(b, c)
			case c >= 'A' && c <= 'Z':
				if start < 0 {
					start = i
				}
				b = append(b, c+'a'-'A')
			default:
				flush(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isIdeograph(r):
			flush(i)
			b = utf8.AppendRune(b, r)
			start = i
			flush(i + size)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
			ascii = false
			b = utf8.AppendRune(b, unicode.ToLower(r))
		default:
			flush(i)
		}
		i += size
	}
	flush(len(s))
	t.buf = b[:0]
}

// eachIndexed calls fn for every token of the text d is indexed by: its
// title, fields and body, in that order.
func (t *tokenizer) eachIndexed(d *Doc, fn func(tok []byte, start, end int)) {
	t.each(d.Title, fn)
	t.each(d.Fields, fn)
	t.each(d.Body, fn)
}

// stem folds English plurals so that "tests" finds "test" and "retries"
// finds "retry": a final "ies" becomes "y", and a final "s" goes unless the
// word ends in "ss", "us" or "is" or is four letters or shorter. It applies
// to ASCII words only.
func stem(b []byte) []byte {
	n := len(b)
	if n <= 4 || b[n-1] != 's' {
		return b
	}
	switch b[n-2] {
	case 's', 'u', 'i':
		return b
	case 'e':
		if b[n-3] == 'i' && n > 5 {
			b[n-3] = 'y'
			return b[:n-2]
		}
	}
	return b[:n-1]
}

// isIdeograph reports whether r belongs to a script written without spaces,
// whose characters are indexed one by one.
func isIdeograph(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// stopWords are dropped from queries (not from documents) unless a query
// has nothing else.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"for": true, "from": true, "how": true, "in": true, "is": true, "it": true, "of": true, "on": true,
	"or": true, "that": true, "the": true, "this": true, "to": true, "was": true, "what": true,
	"when": true, "where": true, "which": true, "why": true, "with": true,
}

// queryTerms returns the distinct tokens of q in order, without stop words
// unless q has only stop words.
func queryTerms(q string) []string {
	var t tokenizer
	var all, kept []string
	seen := map[string]bool{}
	t.each(q, func(tok []byte, _, _ int) {
		s := string(tok)
		if seen[s] {
			return
		}
		seen[s] = true
		all = append(all, s)
		if !stopWords[s] {
			kept = append(kept, s)
		}
	})
	if len(kept) == 0 {
		return all
	}
	return kept
}
