package staterepo

import (
	"context"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/changelog"
)

// PromoteResult says what a promotion added to global.
type PromoteResult struct {
	Agent     string         `json:"agent"`              // the agent promoted
	Commit    string         `json:"commit,omitempty"`   // global's new head; empty when nothing was new
	Added     map[string]int `json:"added"`              // file → entries added
	Branches  []string       `json:"branches,omitempty"` // branch context files copied
	Problems  []string       `json:"problems,omitempty"` // malformed entries that were not copied
	UpToDate  bool           `json:"up_to_date"`         // global had everything already
	Committed bool           `json:"committed"`          // a commit was made on global
}

// Promote merges the current agent's changelog (log entries and handoffs),
// learnings and decisions into global as the union of their entries — the
// entries global lacks are appended, none is duplicated, nothing is ever a
// conflict — and copies its branch context files (branches/*.md) over
// global's. Running it again adds nothing.
func (s *Store) Promote(ctx context.Context) (PromoteResult, error) {
	res, err := s.promote(ctx)
	if err == nil && res.Committed {
		s.AutoMaintain()
	}
	return res, err
}

func (s *Store) promote(ctx context.Context) (PromoteResult, error) {
	res := PromoteResult{Agent: s.Agent, Added: map[string]int{}}
	if !s.Initialized() {
		return res, fmt.Errorf("%w for project %s; nothing to promote", ErrNotInitialized, s.Project)
	}
	lk, r, err := s.lockInitOpen(ctx)
	if err != nil {
		return res, err
	}
	defer lk.Release()
	agentHead, agentTree, err := r.HeadTree(s.Branch())
	if err != nil {
		return res, err
	}
	if agentHead.IsZero() {
		return res, fmt.Errorf("%w: %s has no branch yet; nothing to promote", ErrNoAgent, s.Agent)
	}
	var summary []string
	h, err := s.updateLocked(ctx, GlobalBranch, "promote: agent "+s.Agent, func(tx *Tx) error {
		for _, fam := range logFamilies {
			ours, err := familyBytes(r, agentTree, fam)
			if err != nil {
				return err
			}
			global, err := familyBytes(r, tx.tree, fam)
			if err != nil {
				return err
			}
			merged, added, probs := changelog.MergeFile(global, ours)
			for _, p := range probs {
				res.Problems = append(res.Problems, fmt.Sprintf("%s %s", fam, p.Error()))
			}
			if len(added) == 0 {
				continue
			}
			if err := appendSegmented(tx, fam, merged[len(global):]); err != nil {
				return err
			}
			res.Added[fam] = len(added)
			summary = append(summary, fmt.Sprintf("%d from %s", len(added), fam))
		}
		files, err := r.TreeFiles(agentTree)
		if err != nil {
			return err
		}
		for p, e := range files {
			if !strings.HasPrefix(p, BranchesDir+"/") || !strings.HasSuffix(p, ".md") {
				continue
			}
			if ge, ok, err := r.FileEntry(tx.tree, p); err != nil {
				return err
			} else if ok && ge.Hash == e.Hash {
				continue
			}
			data, err := r.Blob(e.Hash)
			if err != nil {
				return err
			}
			if err := tx.Write(p, data); err != nil {
				return err
			}
			res.Branches = append(res.Branches, p)
		}
		if len(res.Branches) > 0 {
			summary = append(summary, fmt.Sprintf("%d branch context files", len(res.Branches)))
		}
		tx.SetMessage(fmt.Sprintf("promote: agent %s (%s)", s.Agent, strings.Join(summary, ", ")))
		return nil
	})
	if err != nil {
		return res, err
	}
	res.UpToDate = len(summary) == 0
	if !res.UpToDate {
		res.Commit, res.Committed = h.String(), true
	}
	return res, nil
}

// SetBranchContext writes the context file of a code branch or bookmark,
// branches/<branch>.md, on the agent's branch (promote copies it to
// global). Empty content deletes it.
func (s *Store) SetBranchContext(ctx context.Context, branch, content string) (string, error) {
	p, err := branchFile(branch)
	if err != nil {
		return "", err
	}
	if len(content) > MaxScratchSize {
		return "", fmt.Errorf("%w: branch context is %d bytes, the limit is %d", ErrTooLarge, len(content), MaxScratchSize)
	}
	msg := fmt.Sprintf("branch context: %s (%d bytes)", branch, len(content))
	if strings.TrimSpace(content) == "" {
		msg = "branch context: delete " + branch
	}
	_, err = s.Update(ctx, msg, func(tx *Tx) error {
		if strings.TrimSpace(content) == "" {
			return tx.Delete(p)
		}
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		return tx.Write(p, []byte(content))
	})
	return p, err
}
