package jj

import (
	"context"
	"strconv"
	"strings"
)

// Symbol renders a change id, commit id or bookmark as a revset symbol:
// quoted, so no id is ever read as revset syntax. "@" stays as it is.
func Symbol(rev string) string {
	if rev == "@" {
		return rev
	}
	return strconv.Quote(rev)
}

// Exists reports whether the change or commit id names a visible change.
func (c *Client) Exists(ctx context.Context, id string) (bool, error) {
	return c.Resolves(ctx, Symbol(id))
}

// IsAncestor reports whether ancestor is rev or one of rev's ancestors
// (either a change id, a commit id or "@"). A missing ancestor is none.
func (c *Client) IsAncestor(ctx context.Context, ancestor, rev string) (bool, error) {
	return c.AnyAncestor(ctx, []string{ancestor}, rev)
}

// AnyAncestor reports whether any of ids is rev or one of rev's ancestors;
// ids that no longer exist are skipped. No ids is false.
func (c *Client) AnyAncestor(ctx context.Context, ids []string, rev string) (bool, error) {
	if len(ids) == 0 {
		return false, nil
	}
	terms := make([]string, len(ids))
	for i, id := range ids {
		terms[i] = "present(" + Symbol(id) + ")"
	}
	return c.Resolves(ctx, "("+strings.Join(terms, " | ")+") & ::"+Symbol(rev))
}

// AncestorIDs returns the change ids of rev and of its ancestors, nearest
// first (jj's order: children before their parents), at most limit of
// them.
func (c *Client) AncestorIDs(ctx context.Context, rev string, limit int) ([]string, error) {
	out, err := c.run(ctx, false, "log", "--no-graph", "-r", "::"+Symbol(rev), "-T", `change_id ++ "\n"`, "--limit", strconv.Itoa(limit))
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}
