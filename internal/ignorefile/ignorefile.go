// Package ignorefile keeps planq's lines in a git ignore file: the
// repository's own exclude file (info/exclude in the git directory behind
// a jj or git repo, which jj and git read in every workspace and worktree
// and no commit carries), or a .gitignore when asked for one. planq adds
// its patterns under a comment line naming what they keep out, never twice
// (a line that already covers a pattern counts), takes exactly those lines
// out again, and keeps every other byte of the file; files are replaced
// atomically (package atomicfile).
//
// Local-scope host wiring (hooks/conffile), the jj workspaces of parallel
// agents and the state worktree (.planq/agent) all go through here.
package ignorefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planq-dev/planq/internal/atomicfile"
	"github.com/planq-dev/planq/internal/gitlink"
	"github.com/planq-dev/planq/jj"
)

// Exclude returns the exclude file of the repo at dir: info/exclude in the
// git directory behind it — for a jj repo (dir's own, else the one dir is
// in) the git directory backing it, colocated or not, which all its
// workspaces share; for a git repo whose root dir is, its git directory (a
// linked worktree's common one). ok is false when dir is in neither. It
// reads files only. A jj repo that no git directory backs has no exclude
// file: that is an error.
func Exclude(dir string) (path string, ok bool, err error) {
	root := dir
	if st, err := os.Stat(filepath.Join(dir, ".jj")); err != nil || !st.IsDir() {
		if gd, ok := gitlink.CommonDir(dir); ok {
			return filepath.Join(gd, "info", "exclude"), true, nil
		}
		if root, ok = jj.FindRoot(dir); !ok {
			return "", false, nil
		}
	}
	if gd, ok := jj.BackingGitDir(root); ok {
		return filepath.Join(gd, "info", "exclude"), true, nil
	}
	if gd, ok := gitlink.CommonDir(root); ok {
		return filepath.Join(gd, "info", "exclude"), true, nil
	}
	return "", false, fmt.Errorf("the jj repo at %s has no git directory behind it, so it has no info/exclude to keep planq's files out of your changes; use a git-backed repo (jj git init)", root)
}

// Add returns content with the patterns it does not cover yet added at
// its end under "# comment" (after a newline when content lacks a final
// one). It returns content itself when it covers every pattern.
func Add(content []byte, comment string, patterns ...string) []byte {
	var lines []string
	for _, l := range strings.Split(string(content), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	var add []string
	for _, p := range patterns {
		if !slices.ContainsFunc(lines, func(l string) bool { return Covers(l, p) }) && !slices.Contains(add, p) {
			add = append(add, p)
		}
	}
	if len(add) == 0 {
		return content
	}
	var b bytes.Buffer
	b.Write(content)
	if len(content) > 0 && !bytes.HasSuffix(content, []byte("\n")) {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "# %s\n%s\n", comment, strings.Join(add, "\n"))
	return b.Bytes()
}

// Remove returns content without the lines Add added: a comment line
// that is "# " and one of comments, and the lines right after it that are
// patterns. Every other line stays as it was. It returns content itself
// when there are no such lines.
func Remove(content []byte, comments []string, patterns ...string) []byte {
	lines := strings.SplitAfter(string(content), "\n")
	var kept []string
	removed := false
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "#") || !slices.Contains(comments, strings.TrimSpace(strings.TrimPrefix(l, "#"))) {
			kept = append(kept, lines[i])
			continue
		}
		removed = true
		for i+1 < len(lines) && slices.Contains(patterns, strings.TrimSpace(lines[i+1])) {
			i++
		}
	}
	if !removed {
		return content
	}
	return []byte(strings.Join(kept, ""))
}

// Covers reports whether the ignore-file line ignores the anchored path
// pattern: the same path (with or without its leading or trailing slash),
// or a directory above it. Comments and blank lines cover nothing.
func Covers(line, pattern string) bool {
	if line == "" || strings.HasPrefix(line, "#") {
		return false
	}
	l := strings.TrimSuffix(strings.TrimPrefix(line, "/"), "/")
	p := strings.TrimPrefix(pattern, "/")
	return l == p || strings.HasPrefix(p, l+"/")
}

// Ensure makes the ignore file at path (a symbolic link: the file it
// names) cover patterns, adding them as Add does; the file and its
// directory are made when missing (mode 0644), an existing file keeps its
// mode and every byte, and it is replaced atomically. It writes nothing
// when the file covers every pattern already.
func Ensure(path, comment string, patterns ...string) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	after := Add(data, comment, patterns...)
	if len(after) == len(data) { // Add only appends
		return nil
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := atomicfile.Write(path, after, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
