package staterepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// GCResult is gc's verdict on one agent branch.
type GCResult struct {
	Agent   string `json:"agent"`   // the agent
	Branch  string `json:"branch"`  // its branch
	Deleted bool   `json:"deleted"` // whether gc deleted it
	Reason  string `json:"reason"`  // why it was deleted or kept
}

// GC deletes the branches of removed agents whose work is all in global:
// no worktree has the branch checked out, every entry of its changelog,
// learnings and decisions is in global's, its branch context files match
// global's, and its notes/ and artifacts/ hold no files. Other agent
// branches are kept, with the reason. Worktree records whose directory is
// gone are pruned first, as `git worktree prune` does. With dryRun nothing
// is deleted. The comparison runs without the store's lock; the lock is
// taken only to delete, and a branch that moved meanwhile is kept.
func (s *Store) GC(ctx context.Context, dryRun bool) ([]GCResult, error) {
	if !s.Initialized() {
		return nil, fmt.Errorf("%w for project %s; nothing to collect", ErrNotInitialized, s.Project)
	}
	r, err := s.openRepo()
	if err != nil {
		return nil, err
	}
	wts, err := gitstore.ListWorktrees(s.Bare)
	if err != nil {
		return nil, err
	}
	checkedOut := map[string]string{}
	var gone []gitstore.Worktree
	for _, w := range wts {
		if _, err := os.Lstat(filepath.Join(w.Path, ".git")); err != nil {
			gone = append(gone, w)
			continue
		}
		checkedOut[w.Branch] = w.Path
	}
	_, globalTree, err := r.HeadTree(GlobalBranch)
	if err != nil {
		return nil, err
	}
	globalLogs := map[string][]byte{}
	branches, err := r.Branches()
	if err != nil {
		return nil, err
	}
	var out []GCResult
	heads := map[string]plumbing.Hash{}
	for _, b := range branches {
		name, ok := strings.CutPrefix(b, AgentPrefix)
		if !ok {
			continue
		}
		res := GCResult{Agent: name, Branch: b}
		if p, ok := checkedOut[b]; ok {
			res.Reason = "checked out at " + p + "; `planq remove " + name + "` there first"
			out = append(out, res)
			continue
		}
		if len(globalLogs) == 0 {
			for _, fam := range logFamilies {
				if globalLogs[fam], err = familyBytes(r, globalTree, fam); err != nil {
					return nil, err
				}
			}
		}
		head, err := r.Head(b)
		if err != nil {
			return out, err
		}
		reason, err := s.unpromoted(r, b, head, globalTree, globalLogs)
		if err != nil {
			return out, err
		}
		if reason != "" {
			res.Reason = reason
			out = append(out, res)
			continue
		}
		res.Reason = "removed and fully promoted"
		if dryRun {
			res.Reason += " (dry run: would delete)"
		} else {
			heads[b] = head
		}
		out = append(out, res)
	}
	if dryRun || (len(heads) == 0 && len(gone) == 0) {
		return out, nil
	}
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return out, err
	}
	defer lk.Release()
	for _, w := range gone {
		if _, err := os.Lstat(filepath.Join(w.Path, ".git")); err != nil {
			_ = os.RemoveAll(w.Admin)
		}
	}
	for i := range out {
		head, ok := heads[out[i].Branch]
		if !ok {
			continue
		}
		if others, _ := gitstore.WorktreesOn(s.Bare, out[i].Branch); len(others) > 0 {
			out[i].Reason = "checked out at " + others[0].Path + " during gc; kept"
			continue
		}
		err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: gitstore.BranchRef(out[i].Branch), Old: head})
		if errors.Is(err, ErrRefMoved) {
			out[i].Reason = "written to during gc; kept"
			continue
		}
		if err != nil {
			return out, fmt.Errorf("delete branch %s: %w", out[i].Branch, err)
		}
		out[i].Deleted = true
	}
	return out, nil
}

// unpromoted says why branch still holds work global lacks, or "".
func (s *Store) unpromoted(r *gitstore.Repo, branch string, head, globalTree plumbing.Hash, globalLogs map[string][]byte) (string, error) {
	tree, err := r.CommitTree(head)
	if err != nil {
		return "", err
	}
	for _, fam := range logFamilies {
		data, err := familyBytes(r, tree, fam)
		if err != nil {
			return "", err
		}
		if _, added, _ := changelog.MergeFile(globalLogs[fam], data); len(added) > 0 {
			return fmt.Sprintf("%d entries of %s are not in global; run `PLANQ_AGENT=%s planq context promote`", len(added), fam, strings.TrimPrefix(branch, AgentPrefix)), nil
		}
	}
	files, err := r.TreeFiles(tree)
	if err != nil {
		return "", err
	}
	for p, e := range files {
		switch {
		case strings.HasPrefix(p, BranchesDir+"/") && strings.HasSuffix(p, ".md"):
			ge, ok, err := r.FileEntry(globalTree, p)
			if err != nil {
				return "", err
			}
			if !ok || ge.Hash != e.Hash {
				return p + " differs from global's; promote it first", nil
			}
		case (strings.HasPrefix(p, "notes/") || strings.HasPrefix(p, "artifacts/")) && !strings.HasSuffix(p, "/.gitkeep"):
			return p + " is not promoted (notes/ and artifacts/ stay with the branch); move what you need, then delete it from the branch", nil
		}
	}
	return "", nil
}
