package hooks

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

// LocalSettingsIgnore is the ignore pattern that keeps Claude Code's local
// settings file, where local scope puts planq's hooks, out of what jj and git
// track: were jj to snapshot it into the working-copy change, the next
// `jj new` elsewhere would take planq's hooks off the disk with it.
const LocalSettingsIgnore = "/.claude/settings.local.json"

// localIgnoreEdit returns the edit that adds LocalSettingsIgnore to the
// repo's own exclude file (info/exclude in the git directory backing the jj
// repo, which jj reads too), so nothing in the working copy, .gitignore
// included, changes. It is no edit when the pattern is there already, or
// when ProjectDir is in no git or jj repo.
func (o *InstallOptions) localIgnoreEdit(ctx context.Context) (FileEdit, error) {
	gitDir, ok, err := repoGitDir(ctx, o.ProjectDir, o.JJBin)
	if err != nil || !ok {
		return FileEdit{}, err
	}
	e := FileEdit{Path: filepath.Join(gitDir, "info", "exclude"), Mode: 0o644}
	if e.Before, err = readFileOrNil(e.Path); err != nil {
		return e, err
	}
	e.After = e.Before
	sc := bufio.NewScanner(bytes.NewReader(e.Before))
	for sc.Scan() {
		switch strings.TrimSpace(sc.Text()) {
		case LocalSettingsIgnore, strings.TrimPrefix(LocalSettingsIgnore, "/"), "/.claude/", ".claude/", "/.claude", ".claude":
			return e, nil
		}
	}
	var b bytes.Buffer
	b.Write(e.Before)
	if len(e.Before) > 0 && !bytes.HasSuffix(e.Before, []byte("\n")) {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "# Claude Code's local settings, where `planq mcp install` wires planq's hooks\n%s\n", LocalSettingsIgnore)
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
