package staterepo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/planq-dev/planq/changelog"
)

// ErrNoBranch reports a state branch that does not exist.
var ErrNoBranch = errors.New("no such state branch")

// Read-only views of any state branch (global or an agent's), for planq ui.
// Like the context summary they show a worktree's copy of a file when a
// worktree has the branch checked out, else the branch's.

// branchReader opens a reader for branch after checking that branch is a
// state branch name that exists.
func (s *Store) branchReader(branch string) (*reader, error) {
	if branch != GlobalBranch {
		agent, ok := strings.CutPrefix(branch, AgentPrefix)
		if !ok {
			return nil, fmt.Errorf("state branch %q: name %s or %s<agent>", branch, GlobalBranch, AgentPrefix)
		}
		if err := ValidAgentName(agent); err != nil {
			return nil, fmt.Errorf("state branch %q: %w", branch, err)
		}
	}
	if !s.Initialized() {
		return nil, fmt.Errorf("%w for project %s", ErrNotInitialized, s.Project)
	}
	rd, err := s.reader()
	if err != nil {
		return nil, err
	}
	if h, err := rd.r.Head(branch); err != nil || h.IsZero() {
		rd.close()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w %q in project %s; `planq state status` lists them", ErrNoBranch, branch, s.Project)
	}
	return rd, nil
}

// warnNotes passes on what a reader could not show as it was.
func (s *Store) warnNotes(rd *reader, probs []changelog.Problem) {
	for _, n := range rd.notes {
		s.warn(n.Error())
	}
	for _, p := range probs {
		s.warn(p.Error())
	}
}

// BranchEntries returns entries of file (ChangelogFile, LearningsFile or
// DecisionsFile, with its archive segments) on branch, newest first: the n
// newest after skipping the offset newest (n <= 0: all after offset).
// It parses the live file and then archive segments newest first, only as
// many as the page needs, so the newest entries of a long history cost what
// a short one's do. total is the number of entries when the page reached
// the oldest one (everything was read), and -1 when older entries follow.
// Entries that do not parse are left out and reported through the store's
// warnings.
func (s *Store) BranchEntries(ctx context.Context, branch, file string, offset, n int) (entries []changelog.Entry, total int, err error) {
	if !slices.Contains([]string{ChangelogFile, LearningsFile, DecisionsFile}, file) {
		return nil, 0, fmt.Errorf("state entries of %q: use %s, %s or %s", file, ChangelogFile, LearningsFile, DecisionsFile)
	}
	if offset < 0 {
		return nil, 0, fmt.Errorf("state entries: offset %d is negative", offset)
	}
	rd, err := s.branchReader(branch)
	if err != nil {
		return nil, 0, err
	}
	defer rd.close()
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	var (
		es    []changelog.Entry
		probs []changelog.Problem
	)
	if n <= 0 {
		es, probs, err = rd.allEntries(branch, file)
		slices.Reverse(es)
	} else {
		// One more than the page, to know whether older entries follow.
		es, probs, err = rd.tailEntriesOf(branch, file, offset+n+1)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s of %s: %w", file, branch, err)
	}
	s.warnNotes(rd, probs)
	total = len(es)
	if n > 0 && len(es) > offset+n {
		total = -1
		es = es[:offset+n]
	}
	if offset >= len(es) {
		return nil, total, nil
	}
	return es[offset:], total, nil
}

// BranchFile returns file p of branch (e.g. ScratchFile, ContextFile,
// PlanFile); ok is false when the branch has no such file.
func (s *Store) BranchFile(ctx context.Context, branch, p string) (data []byte, ok bool, err error) {
	rd, err := s.branchReader(branch)
	if err != nil {
		return nil, false, err
	}
	defer rd.close()
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	data, ok, err = rd.file(branch, p)
	if err != nil {
		return nil, false, fmt.Errorf("read %s of %s: %w", p, branch, err)
	}
	s.warnNotes(rd, nil)
	return data, ok, nil
}

// BranchCheckpoints lists the checkpoints on branch, oldest first.
func (s *Store) BranchCheckpoints(ctx context.Context, branch string) ([]Checkpoint, error) {
	rd, err := s.branchReader(branch)
	if err != nil {
		return nil, err
	}
	defer rd.close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return checkpointsOn(rd.r, branch)
}

// HeadsKey returns a cheap key that changes whenever a state branch moves
// (is written, made or deleted): the branch refs and their commits, read
// from the ref files only. Edits by hand in a worktree that are not
// committed do not change it. An uninitialised store has the key "".
func (s *Store) HeadsKey() (string, error) {
	if !s.Initialized() {
		return "", nil
	}
	r, err := s.openRepo()
	if err != nil {
		return "", err
	}
	refs, err := r.RefsUnder("refs/heads/")
	if err != nil {
		return "", fmt.Errorf("read the state branches: %w", err)
	}
	parts := make([]string, 0, len(refs))
	for name, h := range refs {
		parts = append(parts, strings.TrimPrefix(name, "refs/heads/")+"="+h.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ","), nil
}
