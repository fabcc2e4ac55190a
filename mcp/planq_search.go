package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/search"
	"github.com/planq-dev/planq/staterepo"
)

// SearchInput is planq_search's input.
type SearchInput struct {
	Query string `json:"query"`
	Type  string `json:"type,omitempty" jsonschema:"Only this kind"`
	Scope string `json:"scope,omitempty" jsonschema:"Default all"`
	Limit int    `json:"limit,omitempty" jsonschema:"Default 10, at most 100"`
}

// SearchOutput is planq_search's result.
type SearchOutput struct {
	Query string       `json:"query"`
	Hits  []search.Hit `json:"hits"`
	// Problems are the malformed entries the search skipped, each with its
	// file and line (hand edits to fix).
	Problems []string `json:"problems,omitempty"`
}

// Text renders the result for the model.
func (o SearchOutput) Text() string {
	var b strings.Builder
	if len(o.Hits) == 0 {
		fmt.Fprintf(&b, "Nothing matches %q.\n", o.Query)
	} else {
		fmt.Fprintf(&b, "%d hits for %q, best first:\n", len(o.Hits), o.Query)
	}
	for _, h := range o.Hits {
		date := ""
		if !h.Date.IsZero() {
			date = " " + h.Date.Format("2006-01-02")
		}
		fmt.Fprintf(&b, "- %s [%s, %s%s] %s: %s\n", h.ID, h.Kind, h.Source, date, h.Title, text.OneLine(h.Snippet))
	}
	if len(o.Problems) > 0 {
		fmt.Fprintf(&b, "Malformed entries skipped (fix them by hand): %s\n", strings.Join(o.Problems, "; "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func planqSearchTool(d *stateDeps) server.ServerTool {
	tool := newTool[SearchInput, SearchOutput]("planq_search",
		"Search past log entries, learnings, decisions, handoffs and branch context by relevance.",
		readOnly)
	kinds := make([]string, len(search.AllKinds()))
	for i, k := range search.AllKinds() {
		kinds[i] = string(k)
	}
	tool = withEnums(tool, map[string][]string{"type": kinds, "scope": {staterepo.ScopeAgent, staterepo.ScopeGlobal, staterepo.ScopeAll}})
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in SearchInput) (SearchOutput, error) {
		q := staterepo.SearchQuery{Query: in.Query, Scope: in.Scope, Limit: in.Limit}
		if in.Type != "" {
			k, err := search.ParseKind(in.Type)
			if err != nil {
				return SearchOutput{}, err
			}
			q.Kinds = []search.Kind{k}
		}
		s, err := d.store()
		if err != nil {
			return SearchOutput{}, err
		}
		x := d.searcher(s)
		hits, err := x.Search(ctx, q)
		if hits == nil {
			hits = []search.Hit{}
		}
		out := SearchOutput{Query: in.Query, Hits: hits}
		for _, p := range x.Problems() {
			out.Problems = append(out.Problems, p.Error())
		}
		return out, err
	})}
}
