// Package gitlink reads the .git file of a linked git worktree
// ("gitdir: <admin directory>"), the one format planq's state worktree,
// its plumbing and the project naming all read (Read, which never follows
// a symbolic link), and finds the git directory a code repo's worktrees
// share (CommonDir). It imports nothing heavy, so hooks can use it.
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

// CommonDir returns the git directory that the git worktree at dir shares
// with the repository's other worktrees, where info/exclude and the
// objects are: dir/.git itself when it is a directory, else, for a linked
// worktree, the common directory its admin directory names ("commondir"),
// else that admin directory. ok is false when dir has no .git or it names
// nothing readable. It is for a user's code repo and so, as git does,
// follows a .git that is a symbolic link; the state worktree is read with
// Read.
func CommonDir(dir string) (string, bool) {
	p := filepath.Join(dir, ".git")
	st, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if st.IsDir() {
		return p, true
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok || admin == "" {
		return "", false
	}
	if !filepath.IsAbs(admin) {
		admin = filepath.Join(dir, admin)
	}
	if c, err := os.ReadFile(filepath.Join(admin, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(admin, common)
		}
		return filepath.Clean(common), true
	}
	return filepath.Clean(admin), true
}
