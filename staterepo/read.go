package staterepo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// reader reads state files of several branches, preferring a worktree copy
// (what a person sees, hand edits included) over the branch's blob.
type reader struct {
	s     *Store
	r     *gitstore.Repo
	wts   []gitstore.Worktree
	trees map[string]plumbing.Hash
	roots map[string]*gitstore.Root
	// notes are worktree files that were not shown (a link, unreadable),
	// with the branch's version shown instead.
	notes []changelog.Problem
}

func (s *Store) reader() (*reader, error) {
	r, err := s.openRepo()
	if err != nil {
		return nil, err
	}
	wts, err := gitstore.ListWorktrees(s.Bare)
	if err != nil {
		return nil, err
	}
	return &reader{s: s, r: r, wts: wts, trees: map[string]plumbing.Hash{}, roots: map[string]*gitstore.Root{}}, nil
}

// close releases the worktree handles.
func (rd *reader) close() {
	for _, root := range rd.roots {
		root.Close()
	}
}

// worktreeFor returns the worktree whose copy of branch's files to show:
// this code repo's when it has branch checked out, else any other that
// does — but none while an update of it is unfinished (a writer is at work,
// or one was killed), because its files may lag the branch.
func (rd *reader) worktreeFor(branch string) *gitstore.Worktree {
	var found *gitstore.Worktree
	for i := range rd.wts {
		w := &rd.wts[i]
		if w.Branch != branch {
			continue
		}
		if gitstore.SameFile(w.Path, rd.s.Worktree) {
			found = w
			break
		}
		if found == nil {
			if _, err := os.Lstat(filepath.Join(w.Path, ".git")); err == nil {
				found = w
			}
		}
	}
	if found == nil || syncPending(found) {
		return nil
	}
	return found
}

// tree returns branch's head tree (zero when the branch does not exist).
func (rd *reader) tree(branch string) (plumbing.Hash, error) {
	if t, ok := rd.trees[branch]; ok {
		return t, nil
	}
	_, t, err := rd.r.HeadTree(branch)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	rd.trees[branch] = t
	return t, nil
}

// file returns the content of p on branch: the worktree's copy when there
// is one (never through a link), else the branch's.
func (rd *reader) file(branch, p string) ([]byte, bool, error) {
	if err := validPath(p); err != nil {
		return nil, false, err
	}
	if w := rd.worktreeFor(branch); w != nil {
		root, ok := rd.roots[w.Admin]
		var err error
		if !ok {
			if root, err = gitstore.OpenRoot(w.Path); err == nil {
				rd.roots[w.Admin] = root
			}
		}
		if err == nil {
			var data []byte
			if data, err = root.ReadFile(p); err == nil {
				return data, true, nil
			}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			rd.notes = append(rd.notes, changelog.Problem{File: p, Message: err.Error() + "; showing the branch's version"})
		}
	}
	t, err := rd.tree(branch)
	if err != nil {
		return nil, false, err
	}
	return rd.r.ReadFile(t, p)
}

// tail returns the newest n entries of p on branch, newest first, and the
// problems found parsing them.
func (rd *reader) tail(branch, p string, n int) ([]changelog.Entry, []changelog.Problem, error) {
	data, _, err := rd.file(branch, p)
	if err != nil {
		return nil, nil, err
	}
	es, probs := tailEntries(data, n)
	for i := range probs {
		probs[i].File = p
	}
	return es, probs, nil
}

// ReadFile returns file p of the current agent's branch (its worktree copy
// when checked out).
func (s *Store) ReadFile(p string) ([]byte, error) {
	if !s.Initialized() {
		return nil, fmt.Errorf("%w for project %s", ErrNotInitialized, s.Project)
	}
	rd, err := s.reader()
	if err != nil {
		return nil, err
	}
	defer rd.close()
	data, _, err := rd.file(s.Branch(), p)
	for _, n := range rd.notes {
		s.warn(n.Error())
	}
	return data, err
}
