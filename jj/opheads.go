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
	repo, err := RepoDir(root)
	if err != nil {
		return "", err
	}
	heads := filepath.Join(repo, "op_heads", "heads")
	entries, err := os.ReadDir(heads)
	if err != nil {
		return "", fmt.Errorf("read jj's operation heads: %w", err)
	}
	if len(entries) == 0 {
		return "", fmt.Errorf("%s has no operation heads", heads)
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
