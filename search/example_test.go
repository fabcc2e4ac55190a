package search_test

import (
	"fmt"
	"strings"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/search"
)

// The MCP server keeps one Index and re-syncs a file's group whenever the
// file changed; a one-shot CLI search uses Scan on the same documents.
func Example() {
	file := `---
id: pq-0000000a
timestamp: 2026-01-20T10:00:00Z
agent: add-auth
type: decision
decision: Use RS256 for JWT signing
alternatives: [HS256]
rationale: services verify tokens with the public key
---
---
id: pq-0000000b
timestamp: 2026-01-21T09:00:00Z
agent: add-auth
type: learning
---
Always check token expiry before the signature.
`
	entries, _, _ := changelog.Parse(strings.NewReader(file))
	var docs []search.Doc
	for _, e := range entries {
		docs = append(docs, search.FromEntry(e, "agent"))
	}

	idx := search.NewIndex()
	idx.Sync("agent:decisions.md", docs) // again whenever the file changes
	for _, h := range idx.Search("jwt signing", search.Options{Kinds: []search.Kind{search.KindDecision}}) {
		fmt.Println(h.ID, h.Kind, h.Title)
	}
	for _, h := range search.Scan(docs, "token expiry", search.Options{Sources: []string{"agent"}}) {
		fmt.Println(h.ID, h.Kind, h.Snippet)
	}
	// Output:
	// pq-0000000a decision Use RS256 for JWT signing
	// pq-0000000b learning Always check token expiry before the signature.
	// pq-0000000a decision services verify tokens with the public key · HS256 · add-auth
}
