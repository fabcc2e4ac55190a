package jj

import (
	"context"
	"strconv"
	"strings"
)

// RootFiles is the fileset of exactly the repo-relative paths (slashes):
// root-file:"a" | root-file:"b".
func RootFiles(paths ...string) string {
	parts := make([]string, len(paths))
	for i, p := range paths {
		parts[i] = "root-file:" + strconv.Quote(p)
	}
	return strings.Join(parts, " | ")
}

// TrackedFiles returns those of paths (repo-relative, slashes) that rev
// tracks. With snapshot false jj answers from its last snapshot of the
// working copy (--ignore-working-copy): nothing new is taken in by asking.
func (c *Client) TrackedFiles(ctx context.Context, rev string, snapshot bool, paths ...string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := []string{"file", "list", "-r", rev, "--", RootFiles(paths...)}
	if !snapshot {
		args = append([]string{"--ignore-working-copy"}, args...)
	}
	out, err := c.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			got = append(got, l)
		}
	}
	return got, nil
}
