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
	Deleted bool   `json:"deleted"` // whether gc removed the branch (see Archived)
	// Archived is the ref gc moved the branch to, when the branch held
	// content that exists nowhere else; gc keeps it for good.
	Archived string `json:"archived,omitempty"`
	Reason   string `json:"reason"` // why it was removed, archived or kept
}

// ArchivePrefix is where gc keeps the agent branches it removes while they
// hold content that exists nowhere else:
// refs/planq/archive/agent-NAME/<UTC time>. Every ref under refs/ keeps
// its objects through maintenance, so archived content is never dropped.
const ArchivePrefix = "refs/planq/archive/"

// GC removes the branches of agents that are done with: no worktree has
// the branch checked out and every entry of its changelog, learnings and
// decisions is in global. Such a branch is deleted when everything else on
// it is in global too (its scratch, context, checkpoints, notes and
// artifacts are empty), and otherwise archived under ArchivePrefix, with
// the files that exist only there named. A branch with entries or branch
// context global lacks is kept, with the command that promotes them. Worktree records whose directory is gone are
// pruned first, as `git worktree prune` does. With dryRun nothing changes.
// The comparison runs without the store's lock; the lock is taken only to
// remove, and a branch that moved meanwhile is kept.
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
	type removal struct {
		head    plumbing.Hash
		archive bool
	}
	todo := map[string]removal{}
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
		reason, only, err := s.unpromoted(r, b, head, globalTree, globalLogs)
		if err != nil {
			return out, err
		}
		switch {
		case reason != "":
			res.Reason = reason
		case len(only) > 0:
			res.Reason = fmt.Sprintf("removed; %s exist nowhere else, so the branch is archived", describeFiles(only))
			todo[b] = removal{head, true}
		default:
			res.Reason = "removed, and everything on it is in global"
			todo[b] = removal{head, false}
		}
		if _, ok := todo[b]; ok && dryRun {
			res.Reason += " (dry run: would " + map[bool]string{true: "archive", false: "delete"}[todo[b].archive] + " it)"
			delete(todo, b)
		}
		out = append(out, res)
	}
	if dryRun || (len(todo) == 0 && len(gone) == 0) {
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
		rm, ok := todo[out[i].Branch]
		if !ok {
			continue
		}
		if others, _ := gitstore.WorktreesOn(s.Bare, out[i].Branch); len(others) > 0 {
			out[i].Reason = "checked out at " + others[0].Path + " during gc; kept"
			continue
		}
		if cur, err := r.Head(out[i].Branch); err != nil || cur != rm.head {
			out[i].Reason = "written to during gc; kept"
			continue
		}
		if rm.archive {
			ref, err := s.archiveBranch(ctx, r, out[i].Branch, rm.head)
			if err != nil {
				return out, fmt.Errorf("archive branch %s: %w", out[i].Branch, err)
			}
			out[i].Archived = ref
			out[i].Reason += fmt.Sprintf(" as %s (`git -C %s branch %s %s` brings it back)", ref, s.Bare, out[i].Branch, ref)
		}
		err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: gitstore.BranchRef(out[i].Branch), Old: rm.head})
		if errors.Is(err, ErrRefMoved) {
			out[i].Reason = "written to during gc; kept"
			if out[i].Archived != "" {
				_ = r.UpdateRef(ctx, gitstore.RefUpdate{Name: out[i].Archived, Old: rm.head})
				out[i].Archived = ""
			}
			continue
		}
		if err != nil {
			return out, fmt.Errorf("delete branch %s: %w", out[i].Branch, err)
		}
		out[i].Deleted = true
	}
	return out, nil
}

// archiveBranch points a new ref under ArchivePrefix at head, the branch's
// commit, carrying the branch's reflog over, and returns the ref's name.
func (s *Store) archiveBranch(ctx context.Context, r *gitstore.Repo, branch string, head plumbing.Hash) (string, error) {
	stamp := s.now().UTC().Format("20060102T150405Z")
	ref := ArchivePrefix + branch + "/" + stamp
	for i := 2; ; i++ {
		if _, ok, err := r.ReadRef(ref); err != nil || !ok {
			break
		}
		ref = fmt.Sprintf("%s%s/%s-%d", ArchivePrefix, branch, stamp, i)
	}
	from := filepath.Join(s.Bare, "logs", "refs", "heads", filepath.FromSlash(branch))
	to := filepath.Join(s.Bare, "logs", filepath.FromSlash(ref))
	if data, err := os.ReadFile(from); err == nil {
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			return "", err
		}
	}
	err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: ref, New: head, Msg: "planq: gc: archived " + branch, Sig: s.signature()})
	return ref, err
}

// describeFiles names up to three paths, and how many more.
func describeFiles(paths []string) string {
	if len(paths) > 3 {
		return fmt.Sprintf("%s and %d more files", strings.Join(paths[:3], ", "), len(paths)-3)
	}
	return strings.Join(paths, ", ")
}

// unpromoted says why branch must be kept — entries or branch context
// global lacks, which promotion brings there — or lists the files whose
// content exists only on the branch: scratch, context, checkpoints, notes,
// artifacts and anything else a person put there. Empty files and the
// .gitkeep placeholders are nothing.
func (s *Store) unpromoted(r *gitstore.Repo, branch string, head, globalTree plumbing.Hash, globalLogs map[string][]byte) (reason string, only []string, err error) {
	tree, err := r.CommitTree(head)
	if err != nil {
		return "", nil, err
	}
	for _, fam := range logFamilies {
		data, err := familyBytes(r, tree, fam)
		if err != nil {
			return "", nil, err
		}
		if _, added, _ := changelog.MergeFile(globalLogs[fam], data); len(added) > 0 {
			return fmt.Sprintf("%d entries of %s are not in global; run `PLANQ_AGENT=%s planq context promote`", len(added), fam, strings.TrimPrefix(branch, AgentPrefix)), nil, nil
		}
	}
	files, err := r.TreeFiles(tree)
	if err != nil {
		return "", nil, err
	}
	for _, p := range sortedKeys(files) {
		e := files[p]
		if familyOf(p) != "" || strings.HasSuffix(p, "/.gitkeep") {
			continue // the entries were compared above
		}
		ge, inGlobal, err := r.FileEntry(globalTree, p)
		if err != nil {
			return "", nil, err
		}
		if inGlobal && ge.Hash == e.Hash {
			continue // global has the same file
		}
		if strings.HasPrefix(p, BranchesDir+"/") && strings.HasSuffix(p, ".md") {
			return p + " differs from global's; run `PLANQ_AGENT=" + strings.TrimPrefix(branch, AgentPrefix) + " planq context promote` first", nil, nil
		}
		if data, err := r.Blob(e.Hash); err != nil {
			return "", nil, err
		} else if len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		only = append(only, p)
	}
	return "", only, nil
}
