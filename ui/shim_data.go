package ui

// TEMPORARY: this file stands in for the staterepo data APIs
// of /work/wt/ui-contract.md (branch uidata) until they are merged; it is
// deleted then, and the names below become calls of
// staterepo.Store.BranchEntries and the rest.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo"
)

func gitShow(ctx context.Context, s *staterepo.Store, branch, p string) ([]byte, bool, error) {
	out, err := exec.CommandContext(ctx, "git", "--git-dir", s.Bare, "show", "refs/heads/"+branch+":"+p).Output()
	if err != nil {
		return nil, false, nil
	}
	return out, true, nil
}

func branchEntries(ctx context.Context, s *staterepo.Store, branch, file string, offset, n int) ([]changelog.Entry, int, error) {
	data, ok, err := gitShow(ctx, s, branch, file)
	if err != nil || !ok {
		return nil, 0, err
	}
	es, _ := changelog.ParseBytes(data)
	slices.Reverse(es)
	total := len(es)
	if offset > len(es) {
		offset = len(es)
	}
	es = es[offset:]
	if n > 0 && len(es) > n {
		es = es[:n]
	}
	return es, total, nil
}

func branchFile(ctx context.Context, s *staterepo.Store, branch, p string) ([]byte, bool, error) {
	return gitShow(ctx, s, branch, p)
}

func branchCheckpoints(ctx context.Context, s *staterepo.Store, branch string) ([]staterepo.Checkpoint, error) {
	out, err := exec.CommandContext(ctx, "git", "--git-dir", s.Bare, "ls-tree", "--name-only", "refs/heads/"+branch, staterepo.CheckpointDir+"/").Output()
	if err != nil {
		return nil, nil
	}
	var cps []staterepo.Checkpoint
	for _, name := range strings.Fields(string(out)) {
		data, ok, _ := gitShow(ctx, s, branch, name)
		var cp staterepo.Checkpoint
		if ok && yaml.Unmarshal(data, &cp) == nil {
			cps = append(cps, cp)
		}
	}
	return cps, nil
}

func headsKey(s *staterepo.Store) (string, error) {
	var parts []string
	_ = filepath.WalkDir(filepath.Join(s.Bare, "refs", "heads"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				parts = append(parts, fmt.Sprintf("%s@%d", p, fi.ModTime().UnixNano()))
			}
		}
		return nil
	})
	if fi, err := os.Stat(filepath.Join(s.Bare, "packed-refs")); err == nil {
		parts = append(parts, fmt.Sprintf("packed@%d", fi.ModTime().UnixNano()))
	}
	return strings.Join(parts, ","), nil
}
