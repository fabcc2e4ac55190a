// Package jjrepo finds the repository a jj workspace uses, reading files
// only. It is package jj's RepoDir without the rest of package jj, for the
// OS sandbox's entry point (cmd/planq-sandbox), which starts for every
// locked shell command and links as little as it can.
package jjrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir returns the .jj/repo directory that the workspace at root uses:
// root/.jj/repo itself in the repo's first workspace, or the one its
// .jj/repo file names in a workspace added later.
func Dir(root string) (string, error) {
	p := filepath.Join(root, ".jj", "repo")
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s is not a jj workspace: %w", root, err)
	}
	if st.IsDir() {
		return p, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	target := strings.TrimSpace(string(data))
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s names %s, which is not a jj repo directory", p, target)
	}
	return filepath.Clean(target), nil
}
