package jj

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// OpHeadsKey returns a cheap key, read without running jj, that changes
// whenever jj's operation heads move: the names of the files under
// .jj/repo/op_heads/heads with their modification times. Every jj operation
// replaces them, so a caller may cache what it read from jj under this key
// (the gate does) or poll it to notice new operations (planq ui does).
func OpHeadsKey(root string) (string, error) {
	repo, entries, err := opHeadEntries(root)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(entries))
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return "", fmt.Errorf("read jj's operation heads: %w", err)
		}
		parts = append(parts, fmt.Sprintf("%s@%d", e.Name(), info.ModTime().UnixNano()))
	}
	slices.Sort(parts)
	return repo + "|" + strings.Join(parts, ","), nil
}

// OpHeads returns the ids of jj's current operation heads, read without
// running jj (one id, unless operations ran concurrently and no jj command
// has merged them yet).
func OpHeads(root string) ([]string, error) {
	_, entries, err := opHeadEntries(root)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	slices.Sort(ids)
	return ids, nil
}

// opHeadEntries reads the repo's op_heads/heads directory: one empty file
// per operation head, named by its id.
func opHeadEntries(root string) (repo string, entries []os.DirEntry, err error) {
	if repo, err = RepoDir(root); err != nil {
		return "", nil, err
	}
	heads := filepath.Join(repo, "op_heads", "heads")
	if entries, err = os.ReadDir(heads); err != nil {
		return "", nil, fmt.Errorf("read jj's operation heads: %w", err)
	}
	if len(entries) == 0 {
		return "", nil, fmt.Errorf("%s has no operation heads", heads)
	}
	return repo, entries, nil
}
