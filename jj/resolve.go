package jj

import (
	"context"
	"strings"
)

// MinUniquePrefix is the shortest change id prefix ResolveChangeIDs and
// ChangeIDsRevset take: as long as ShortID makes them, so a prefix is
// practically never ambiguous (jj fails a whole revset on one that is).
const MinUniquePrefix = 12

// IsChangeIDPrefix reports whether s is written in jj's change id alphabet
// (k to z) and at least MinUniquePrefix long: safe as change_id()'s
// argument, never revset syntax.
func IsChangeIDPrefix(s string) bool {
	if len(s) < MinUniquePrefix || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'k' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// ChangeIDsRevset is the revset of the changes the ids (or prefixes) name,
// those that still exist: change_id() terms, which match nothing for an
// abandoned change where a bare id would fail. Ids IsChangeIDPrefix refuses
// are left out; none leaves "none()".
func ChangeIDsRevset(ids []string) string {
	terms := make([]string, 0, len(ids))
	for _, id := range ids {
		if IsChangeIDPrefix(id) {
			terms = append(terms, "change_id("+id+")")
		}
	}
	if len(terms) == 0 {
		return "none()"
	}
	return strings.Join(terms, " | ")
}

// ResolveChangeIDs maps each of prefixes that names exactly one existing
// change to that change's full id, in one jj process that leaves the
// working copy alone. Prefixes IsChangeIDPrefix refuses, and those that
// name nothing, are left out.
func (c *Client) ResolveChangeIDs(ctx context.Context, prefixes []string) (map[string]string, error) {
	rs := ChangeIDsRevset(prefixes)
	out := map[string]string{}
	if rs == "none()" {
		return out, nil
	}
	data, err := c.run(ctx, false, "log", "--ignore-working-copy", "--no-graph", "-r", rs, "-T", `change_id ++ "\n"`)
	if err != nil {
		return nil, err
	}
	full := strings.Fields(string(data))
	for _, p := range prefixes {
		if !IsChangeIDPrefix(p) {
			continue
		}
		match := ""
		for _, id := range full {
			if strings.HasPrefix(id, p) {
				if match != "" && match != id {
					match = ""
					break
				}
				match = id
			}
		}
		if match != "" {
			out[p] = match
		}
	}
	return out, nil
}
