package statusline

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// Part is one piece of a status line. Parts are given most important
// first, and shown in that order.
type Part struct {
	Text string
	// Min is the narrowest, in columns, the part may be cut to (ending in
	// "…") before it is dropped; 0 means it is never cut, only dropped.
	Min int
}

// Sep separates the parts of a status line.
const Sep = " · "

// Fit joins parts with Sep within cols terminal columns. While the line is
// too wide, the least important part left gives way first: it is cut (down
// to its Min) when that makes the line fit, else dropped. The most
// important part is never dropped: alone and too wide, it is cut to cols.
func Fit(parts []Part, cols int) string {
	var kept []Part
	for _, p := range parts {
		if p.Text = Clean(p.Text); p.Text != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 || cols <= 0 {
		return ""
	}
	sep := Width(Sep)
	total := -sep
	for _, p := range kept {
		total += Width(p.Text) + sep
	}
	for total > cols && len(kept) > 1 {
		last := &kept[len(kept)-1]
		w := Width(last.Text)
		room := cols - (total - w)
		if last.Min > 0 && room >= last.Min {
			last.Text = Cut(last.Text, room)
			total = cols
			break
		}
		kept = kept[:len(kept)-1]
		total -= w + sep
	}
	if total > cols {
		kept[0].Text = Cut(kept[0].Text, cols)
	}
	texts := make([]string, len(kept))
	for i, p := range kept {
		texts[i] = p.Text
	}
	return strings.Join(texts, Sep)
}

// Width returns how many terminal columns s takes: two for East Asian wide
// and fullwidth runes, none for combining marks, format and control
// characters, one for the rest.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r < 0x20 || r == 0x7f:
		return 0
	case r < 0x300:
		return 1 // ASCII and Latin: the common case, without a table look-up
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Cc):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Cut shortens s to at most cols columns, ending it in "…" when it cut
// anything; a wide rune that would straddle the edge goes whole, and
// combining marks stay with the rune they follow.
func Cut(s string, cols int) string {
	if Width(s) <= cols {
		return s
	}
	if cols <= 0 {
		return ""
	}
	limit := cols - 1 // room for the ellipsis
	var b strings.Builder
	n := 0
	for _, r := range s {
		w := runeWidth(r)
		if n+w > limit {
			break
		}
		b.WriteRune(r)
		n += w
	}
	return strings.TrimRight(b.String(), " ") + "…"
}

// Clean makes s safe to print as part of one line: control characters
// (escape sequences, tabs, newlines) become spaces, runs of spaces one,
// and the ends are trimmed.
func Clean(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}
