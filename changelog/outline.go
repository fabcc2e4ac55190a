package changelog

import (
	"github.com/planq-dev/planq/internal/text"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmtext "github.com/yuin/goldmark/text"
)

// Outline is the structure of a Markdown body, as goldmark parses it.
type Outline struct {
	Title string   `json:"title"`           // first heading, else the first line of the first paragraph
	Items []string `json:"items,omitempty"` // text of every list item, in document order (e.g. next steps)
	Text  string   `json:"text"`            // plain text without Markdown syntax, one block per line
}

// maxTitle bounds titles, in bytes.
const maxTitle = 120

// ParseOutline parses body with goldmark and returns its outline.
func ParseOutline(body string) Outline {
	src := []byte(body)
	doc := goldmark.DefaultParser().Parse(gmtext.NewReader(src))
	var o Outline
	var plain strings.Builder
	var firstPara string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		walkBlocks(n, src, &o, &plain, &firstPara)
	}
	o.Text = strings.TrimSpace(plain.String())
	if o.Title == "" {
		first, _, _ := strings.Cut(firstPara, "\n")
		o.Title = shortTitle(first)
	}
	return o
}

// walkBlocks collects the outline of block n and its children.
func walkBlocks(n ast.Node, src []byte, o *Outline, plain *strings.Builder, firstPara *string) {
	switch b := n.(type) {
	case *ast.Heading:
		t := inlineText(b, src)
		if o.Title == "" {
			o.Title = shortTitle(t)
		}
		writeBlock(plain, t)
		return
	case *ast.Paragraph, *ast.TextBlock:
		t := inlineText(b, src)
		if *firstPara == "" {
			*firstPara = t
		}
		writeBlock(plain, t)
		return
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var sb strings.Builder
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			sb.Write(seg.Value(src))
		}
		writeBlock(plain, sb.String())
		return
	case *ast.HTMLBlock, *ast.ThematicBreak:
		return
	case *ast.ListItem:
		if c := b.FirstChild(); c != nil {
			if t := strings.TrimSpace(inlineText(c, src)); t != "" {
				o.Items = append(o.Items, t)
			}
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		walkBlocks(c, src, o, plain, firstPara)
	}
}

func writeBlock(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(s)
}

// inlineText returns the text of n's inline content: soft line breaks become
// newlines, links keep their text, raw HTML is dropped.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.URL(src))
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// PlainText returns body without Markdown syntax, as goldmark parses it: one
// block per line, for snippets.
func PlainText(body string) string { return ParseOutline(body).Text }

// QuickTitle returns a title for body without a full Markdown parse: the
// first non-blank line with heading, quote, list and emphasis markers
// removed, at most 120 bytes. It is cheap enough to call on every entry.
func QuickTitle(body string) string {
	for body != "" {
		l, rest, _ := strings.Cut(body, "\n")
		body = rest
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			continue
		}
		l = strings.TrimLeft(l, "#>*-+ \t")
		if strings.Contains(l, "**") || strings.Contains(l, "__") || strings.Contains(l, "`") {
			l = strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(l, "**", ""), "__", ""), "`", "")
		}
		l = strings.TrimSpace(l)
		if l != "" {
			return shortTitle(l)
		}
	}
	return ""
}

// shortTitle trims s to one line of at most maxTitle bytes, ending with "…"
// when cut.
func shortTitle(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
	if len(s) <= maxTitle {
		return s
	}
	return strings.TrimSpace(text.Prefix(s, maxTitle-len("…"))) + "…"
}
