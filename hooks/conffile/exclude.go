package conffile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/jj"
)

// ExcludeEdit returns the edit that adds pattern, under a comment line, to
// the repo's own exclude file (info/exclude in the git directory backing the
// jj repo at dir, which jj reads too), so that nothing in the working copy,
// .gitignore included, changes. It is no edit when the file already has
// pattern or one of covered (patterns that ignore it too), or when dir is in
// no git or jj repo.
func ExcludeEdit(ctx context.Context, dir, jjBin, pattern, comment string, covered ...string) (FileEdit, error) {
	gitDir, ok, err := repoGitDir(ctx, dir, jjBin)
	if err != nil || !ok {
		return FileEdit{}, err
	}
	e := FileEdit{Path: filepath.Join(gitDir, "info", "exclude"), Mode: 0o644}
	if e.Before, err = ReadOrNil(e.Path); err != nil {
		return e, err
	}
	e.After = e.Before
	sc := bufio.NewScanner(bytes.NewReader(e.Before))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == pattern || l == strings.TrimPrefix(pattern, "/") {
			return e, nil
		}
		for _, c := range covered {
			if l == c {
				return e, nil
			}
		}
	}
	var b bytes.Buffer
	b.Write(e.Before)
	if len(e.Before) > 0 && !bytes.HasSuffix(e.Before, []byte("\n")) {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "# %s\n%s\n", comment, pattern)
	e.After = b.Bytes()
	return e, nil
}

// repoGitDir returns the git directory of the repo at dir: the one backing
// a jj repo (as `jj git root` reports it, colocated or not), else dir/.git.
func repoGitDir(ctx context.Context, dir, jjBin string) (string, bool, error) {
	if root, ok := jj.FindRoot(dir); ok {
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
