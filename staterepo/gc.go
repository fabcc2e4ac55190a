package staterepo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/planq-dev/planq/changelog"
)

// GCResult is gc's verdict on one agent branch.
type GCResult struct {
	Agent   string `json:"agent"`
	Branch  string `json:"branch"`
	Deleted bool   `json:"deleted"`
	Reason  string `json:"reason"`
}

// GC deletes the branches of removed agents whose work is all in global:
// no worktree has the branch checked out, every entry of its changelog,
// learnings and decisions is in global's, its branch context files match
// global's, and its notes/ and artifacts/ hold no files. Other agent
// branches are kept, with the reason. Worktree records whose directory is
// gone are pruned first, as `git worktree prune` does. With dryRun nothing
// is deleted.
func (s *Store) GC(ctx context.Context, dryRun bool) ([]GCResult, error) {
	if !s.Initialized() {
		return nil, fmt.Errorf("%w for project %s; nothing to collect", ErrNotInitialized, s.Project)
	}
	lk, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	r, err := openRepo(s.Bare)
	if err != nil {
		return nil, err
	}
	wts, err := listWorktrees(s.Bare)
	if err != nil {
		return nil, err
	}
	checkedOut := map[string]string{}
	for _, w := range wts {
		if _, err := os.Stat(filepath.Join(w.Path, ".git")); err != nil {
			if !dryRun {
				_ = os.RemoveAll(w.Admin)
			}
			continue
		}
		checkedOut[w.Branch] = w.Path
	}
	globalHead, err := r.head(GlobalBranch)
	if err != nil {
		return nil, err
	}
	globalTree, err := r.commitTree(globalHead)
	if err != nil {
		return nil, err
	}
	globalLogs := map[string][]byte{}
	for _, fam := range logFamilies {
		if globalLogs[fam], err = familyBytes(r, globalTree, fam); err != nil {
			return nil, err
		}
	}
	branches, err := r.branches()
	if err != nil {
		return nil, err
	}
	var out []GCResult
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
		reason, err := s.unpromoted(r, b, globalTree, globalLogs)
		if err != nil {
			return out, err
		}
		if reason != "" {
			res.Reason = reason
			out = append(out, res)
			continue
		}
		res.Deleted, res.Reason = !dryRun, "removed and fully promoted"
		if dryRun {
			res.Reason += " (dry run: would delete)"
		} else if err := r.deleteBranch(b); err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// unpromoted says why branch still holds work global lacks, or "".
func (s *Store) unpromoted(r *repo, branch string, globalTree plumbing.Hash, globalLogs map[string][]byte) (string, error) {
	head, err := r.head(branch)
	if err != nil {
		return "", err
	}
	tree, err := r.commitTree(head)
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
	files, err := r.treeFiles(tree)
	if err != nil {
		return "", err
	}
	for p, e := range files {
		switch {
		case strings.HasPrefix(p, BranchesDir+"/") && strings.HasSuffix(p, ".md"):
			ge, ok, err := r.fileEntry(globalTree, p)
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

// PackResult says what Pack did.
type PackResult struct {
	LooseBefore int   `json:"loose_before"` // loose objects before packing
	LooseAfter  int   `json:"loose_after"`  // loose objects left (unreachable or not yet committed)
	PackBytes   int64 `json:"pack_bytes"`   // size of the pack files after packing
}

// Pack packs every object reachable from a ref into one pack with deltas and
// deletes the loose copies — each state write leaves a loose blob of its
// file's live segment, and packing turns those near-identical blobs into
// small deltas. Objects that only a worktree's index or a half-finished git
// command refers to stay loose. It holds the store's lock.
func (s *Store) Pack(ctx context.Context) (PackResult, error) {
	var res PackResult
	if !s.Initialized() {
		return res, fmt.Errorf("%w for project %s; nothing to pack", ErrNotInitialized, s.Project)
	}
	lk, err := s.lock(ctx)
	if err != nil {
		return res, err
	}
	defer lk.Release()
	res.LooseBefore = countLoose(s.Bare)
	repo, err := git.PlainOpen(s.Bare)
	if err != nil {
		return res, fmt.Errorf("open %s: %w", s.Bare, err)
	}
	if err := repo.RepackObjects(&git.RepackConfig{}); err != nil {
		return res, fmt.Errorf("pack %s: %w", s.Bare, err)
	}
	res.LooseAfter = countLoose(s.Bare)
	packs, _ := filepath.Glob(filepath.Join(s.Bare, "objects", "pack", "*.pack"))
	for _, p := range packs {
		if st, err := os.Stat(p); err == nil {
			res.PackBytes += st.Size()
		}
	}
	return res, nil
}

// countLoose counts the loose object files of a repo.
func countLoose(bare string) int {
	n := 0
	dirs, _ := os.ReadDir(filepath.Join(bare, "objects"))
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		ents, _ := os.ReadDir(filepath.Join(bare, "objects", d.Name()))
		for _, e := range ents {
			if len(e.Name()) == 38 {
				n++
			}
		}
	}
	return n
}
