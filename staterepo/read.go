package staterepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/planq-dev/planq/changelog"
)

// reader reads state files of several branches, preferring a worktree copy
// (what a person sees, hand edits included) over the branch's blob.
type reader struct {
	s     *Store
	r     *repo
	wts   []linkedWorktree
	trees map[string]plumbing.Hash
}

func (s *Store) reader() (*reader, error) {
	r, err := openRepo(s.Bare)
	if err != nil {
		return nil, err
	}
	wts, err := listWorktrees(s.Bare)
	if err != nil {
		return nil, err
	}
	return &reader{s: s, r: r, wts: wts, trees: map[string]plumbing.Hash{}}, nil
}

// worktreeFor returns this code repo's worktree when it has branch checked
// out, else any other worktree that does, else "".
func (rd *reader) worktreeFor(branch string) string {
	found := ""
	for _, w := range rd.wts {
		if w.Branch != branch {
			continue
		}
		if sameFile(w.Path, rd.s.Worktree) {
			return w.Path
		}
		if found == "" {
			if _, err := os.Stat(filepath.Join(w.Path, ".git")); err == nil {
				found = w.Path
			}
		}
	}
	return found
}

// tree returns branch's head tree (zero when the branch does not exist).
func (rd *reader) tree(branch string) (plumbing.Hash, error) {
	if t, ok := rd.trees[branch]; ok {
		return t, nil
	}
	h, err := rd.r.head(branch)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	t, err := rd.r.commitTree(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	rd.trees[branch] = t
	return t, nil
}

// file returns the content of p on branch.
func (rd *reader) file(branch, p string) ([]byte, bool, error) {
	if err := validPath(p); err != nil {
		return nil, false, err
	}
	if wt := rd.worktreeFor(branch); wt != "" {
		data, err := os.ReadFile(filepath.Join(wt, filepath.FromSlash(p)))
		if err == nil {
			return data, true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, false, err
		}
	}
	t, err := rd.tree(branch)
	if err != nil {
		return nil, false, err
	}
	return rd.r.readFile(t, p)
}

// tail returns the newest n entries of p on branch, newest first. A
// worktree copy is read from its end only.
func (rd *reader) tail(branch, p string, n int) ([]changelog.Entry, error) {
	if wt := rd.worktreeFor(branch); wt != "" {
		es, err := tailFile(filepath.Join(wt, filepath.FromSlash(p)), n)
		if err == nil {
			return es, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	data, _, err := rd.file(branch, p)
	if err != nil {
		return nil, err
	}
	return tailEntries(data, n), nil
}

// all returns every entry of p on branch, oldest first, and the problems
// found parsing it.
func (rd *reader) all(branch, p string) ([]changelog.Entry, []changelog.Problem, error) {
	data, _, err := rd.file(branch, p)
	if err != nil {
		return nil, nil, err
	}
	es, probs := changelog.ParseBytes(data)
	return es, probs, nil
}

// tailFile parses the newest n entries of the file at path, reading growing
// windows from its end.
func tailFile(path string, n int) ([]changelog.Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	window := int64(64 << 10)
	for {
		if window >= size {
			data, err := io.ReadAll(f)
			if err != nil {
				return nil, err
			}
			return tailEntries(data, n), nil
		}
		buf := make([]byte, window)
		if _, err := f.ReadAt(buf, size-window); err != nil && err != io.EOF {
			return nil, err
		}
		// Parse only from the first entry boundary inside the window.
		if i := indexEntryStart(buf); i >= 0 {
			es := tailEntries(buf[i:], n)
			if len(es) >= n {
				return es, nil
			}
		}
		window *= 4
	}
}

func indexEntryStart(b []byte) int {
	i := bytes.Index(b, entryStart)
	if i < 0 {
		return -1
	}
	return i + 1
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
	data, _, err := rd.file(s.Branch(), p)
	return data, err
}
