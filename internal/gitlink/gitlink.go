// Package gitlink reads the .git file of a linked git worktree
// ("gitdir: <admin directory>"), the one format planq's state worktree,
// its plumbing and the project naming all read. It never follows a
// symbolic link and imports nothing heavy, so hooks can use it.
package gitlink

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Read returns the admin directory that the .git file of the worktree at
// dir names, cleaned (a relative one is taken from dir). found is false
// when dir has no .git; an error says what else is there instead of a
// link file: a directory (a repository of its own), a symbolic link, a
// file that is not a link.
func Read(dir string) (admin string, found bool, err error) {
	gitFile := filepath.Join(dir, ".git")
	st, err := os.Lstat(gitFile)
	switch {
	case err != nil && os.IsNotExist(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("read %s: %w", gitFile, err)
	case st.IsDir():
		return "", true, fmt.Errorf("%s is a separate git repository, not a linked worktree; move it away", dir)
	case st.Mode()&fs.ModeSymlink != 0 || !st.Mode().IsRegular():
		return "", true, fmt.Errorf("%s is not a regular file (a link?); planq never follows links in its worktree: remove it and run planq again", gitFile)
	}
	data, err := os.ReadFile(gitFile)
	if err != nil {
		return "", true, fmt.Errorf("read %s: %w", gitFile, err)
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok || admin == "" {
		return "", true, fmt.Errorf("%s is not a worktree link; move %s away", gitFile, dir)
	}
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(dir, admin)
	}
	return filepath.Clean(admin), true, nil
}
