package conffile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planq-dev/planq/jj"
)

// ExcludeEdit returns the edit that adds patterns, under a comment line, to
// the repo's own exclude file (info/exclude in the git directory backing the
// jj repo at dir, which jj reads too), so that nothing in the working copy,
// .gitignore included, changes. A pattern the file already covers (the same
// line, with or without its leading slash, or a line naming a directory it
// is in) is not added again; it is no edit when every pattern is covered, or
// when dir is in no git or jj repo.
func ExcludeEdit(ctx context.Context, dir, jjBin, comment string, patterns ...string) (FileEdit, error) {
	gitDir, ok, err := repoGitDir(ctx, dir, jjBin)
	if err != nil || !ok {
		return FileEdit{}, err
	}
	e, err := ReadEdit(filepath.Join(gitDir, "info", "exclude"), 0o644)
	if err != nil {
		return e, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(e.Before))
	for sc.Scan() {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	var add []string
	for _, p := range patterns {
		if !slices.ContainsFunc(lines, func(l string) bool { return covers(l, p) }) {
			add = append(add, p)
		}
	}
	if len(add) == 0 {
		return e, nil
	}
	var b bytes.Buffer
	b.Write(e.Before)
	if len(e.Before) > 0 && !bytes.HasSuffix(e.Before, []byte("\n")) {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "# %s\n%s\n", comment, strings.Join(add, "\n"))
	e.After = b.Bytes()
	return e, nil
}

// ExcludeRemoval returns the edit that takes out of the repo's exclude file
// (as ExcludeEdit finds it) the lines ExcludeEdit added: a comment line
// that is one of comments and the lines right after it that are patterns.
// Every other line stays as it was; a file left empty is removed (planq
// made it). It is no edit when there are no such lines.
func ExcludeRemoval(ctx context.Context, dir, jjBin string, comments []string, patterns ...string) (FileEdit, error) {
	gitDir, ok, err := repoGitDir(ctx, dir, jjBin)
	if err != nil || !ok {
		return FileEdit{}, err
	}
	e, err := ReadEdit(filepath.Join(gitDir, "info", "exclude"), 0o644)
	if err != nil || e.Before == nil {
		return e, err
	}
	lines := strings.SplitAfter(string(e.Before), "\n")
	var kept []string
	for i := 0; i < len(lines); i++ {
		if !slices.Contains(comments, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), "#"))) || !strings.HasPrefix(strings.TrimSpace(lines[i]), "#") {
			kept = append(kept, lines[i])
			continue
		}
		for i+1 < len(lines) && slices.Contains(patterns, strings.TrimSpace(lines[i+1])) {
			i++
		}
	}
	after := strings.Join(kept, "")
	if after == string(e.Before) {
		return e, nil
	}
	e.After = []byte(after)
	if after == "" {
		e.After = nil
	}
	return e, nil
}

// covers reports whether the exclude line ignores the anchored path
// pattern: the same path, or a directory above it.
func covers(line, pattern string) bool {
	if line == "" || strings.HasPrefix(line, "#") {
		return false
	}
	l := strings.TrimSuffix(strings.TrimPrefix(line, "/"), "/")
	p := strings.TrimPrefix(pattern, "/")
	return l == p || strings.HasPrefix(p, l+"/")
}

// repoGitDir returns the git directory of the repo at dir: the one backing
// a jj repo (as jj's files name it, else as `jj git root` reports it;
// colocated or not), else dir/.git.
func repoGitDir(ctx context.Context, dir, jjBin string) (string, bool, error) {
	if root, ok := jj.FindRoot(dir); ok {
		if gd, ok := jj.BackingGitDir(root); ok {
			return gd, true, nil // read from jj's own files, no process
		}
		c := jj.New(root)
		if jjBin != "" {
			c.Bin = jjBin
		}
		gd, err := c.GitRoot(ctx)
		if err != nil {
			return "", false, fmt.Errorf("find the git directory of %s: %w", root, err)
		}
		return gd, true, nil
	}
	gd := filepath.Join(dir, ".git")
	if st, err := os.Stat(gd); err == nil && st.IsDir() {
		return gd, true, nil
	}
	return "", false, nil
}
