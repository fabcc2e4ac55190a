package staterepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// What a killed process (kill -9, OOM, a full disk, a power cut) can leave
// behind, and how the next planq write deals with it before it writes
// (lockAndRecover), holding the store's lock:
//
//   - a git lock file (refs/heads/<branch>.lock, index.lock, packed-refs.lock)
//     older than staleLockAge: removed, with a warning naming it;
//   - a worktree whose update was interrupted (its sync marker is still
//     there): brought to its branch where the difference is planq's own
//     unfinished write, keeping hand edits (repairWorktree);
//   - a branch whose ref was deleted or damaged: restored from its reflog,
//     or refused with the commands that recover it (restoreBranch), never
//     started over empty.
//
// Objects and refs themselves are written with temporary files and renames,
// so they are never half-written; a killed writer leaves at most a
// tmp_obj_* file (maintenance removes those) and unreachable objects.

// syncMarker is a file in a worktree's admin directory saying whether a
// write started to update the worktree and has not finished: before the
// branch moves it says "pending <commit>", and once the worktree's files
// and index match the new head, "clean   <commit>". It is rewritten in
// place (same length), which costs a few microseconds where creating and
// removing a file costs hundreds on some file systems.
const syncMarker = "planq-sync"

const (
	markPending = "pending "
	markClean   = "clean   "
)

func setMark(w *linkedWorktree, state string, commit plumbing.Hash) error {
	p := filepath.Join(w.Admin, syncMarker)
	line := []byte(state + commit.String() + "\n")
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteAt(line, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if st, serr := os.Stat(p); err == nil && serr == nil && st.Size() == int64(len(line)) {
			return nil
		}
	}
	return os.WriteFile(p, line, 0o644)
}

func markSync(w *linkedWorktree, commit plumbing.Hash) error {
	if err := setMark(w, markPending, commit); err != nil {
		return fmt.Errorf("mark the worktree %s: %w", w.Path, err)
	}
	return nil
}

func clearSync(w *linkedWorktree) { _ = setMark(w, markClean, plumbing.ZeroHash) }

// syncPending reports whether w's last update was left unfinished.
func syncPending(w *linkedWorktree) bool {
	f, err := os.Open(filepath.Join(w.Admin, syncMarker))
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(markPending))
	n, _ := f.Read(buf)
	return string(buf[:n]) == markPending
}

// lockAndRecover takes the store's write lock and finishes what killed
// processes left undone (see above). Recovery problems are warnings: the
// branch, not the worktree, is what a write needs.
func (s *Store) lockAndRecover(ctx context.Context) (*fileLock, error) {
	lk, err := s.lock(ctx)
	if err != nil || !s.Initialized() {
		return lk, err
	}
	r, err := s.openRepo()
	if err != nil {
		return lk, nil
	}
	s.clearStaleLocks(r)
	wts, err := listWorktrees(s.Bare)
	if err != nil {
		s.warn(err.Error())
		return lk, nil
	}
	for i := range wts {
		w := &wts[i]
		_, ierr := os.Lstat(filepath.Join(w.Admin, "index"))
		if !syncPending(w) && !errors.Is(ierr, fs.ErrNotExist) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(w.Path, ".git")); err != nil {
			clearSync(w) // the worktree is gone
			continue
		}
		if fixed, err := s.repairWorktree(ctx, r, w); err != nil {
			s.warn(fmt.Sprintf("could not bring the worktree %s up to date with its branch: %v", w.Path, err))
		} else if len(fixed) > 0 {
			s.debugf("finished an interrupted update of %s: %s", w.Path, strings.Join(fixed, ", "))
		}
	}
	return lk, nil
}

// clearStaleLocks removes ref lock files older than staleLockAge under
// refs/ and packed-refs.lock: with the store's lock held no planq process
// is writing them, and git holds them for milliseconds.
func (s *Store) clearStaleLocks(r *repo) {
	var locks []string
	_ = filepath.WalkDir(filepath.Join(r.path, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
		return nil
	})
	locks = append(locks, filepath.Join(r.path, "packed-refs.lock"), filepath.Join(r.path, "HEAD.lock"))
	for _, l := range locks {
		st, err := os.Lstat(l)
		if err != nil || time.Since(st.ModTime()) <= staleLockAge {
			continue
		}
		if err := os.Remove(l); err == nil {
			s.warn(fmt.Sprintf("removed the stale lock file %s (left by an interrupted planq or git process)", l))
		}
	}
}

// repairWorktree brings w's files and index to its branch's head where they
// differ because planq's own update of the worktree was interrupted, and
// leaves everything else — hand edits — as it is:
//
//   - a file equal to its index entry while the branch has a newer version:
//     the interrupted write had not replaced it yet;
//   - a file that is a prefix of the branch's version and extends its index
//     entry's: an append cut short (older planq versions appended in place);
//   - a file the branch has, missing on disk and not (yet) in the index: it
//     was never written;
//   - a file the branch no longer has that still matches its index entry:
//     it was never deleted;
//   - an index entry whose file matches the branch but whose stat data or
//     hash lag: refreshed;
//   - planq's temporary files: removed.
//
// It returns the paths it changed.
func (s *Store) repairWorktree(ctx context.Context, r *repo, w *linkedWorktree) ([]string, error) {
	head, err := r.head(w.Branch)
	if err != nil || head.IsZero() {
		return nil, err
	}
	tree, err := r.commitTree(head)
	if err != nil {
		return nil, err
	}
	files, err := r.treeFiles(tree)
	if err != nil {
		return nil, err
	}
	idx, err := readIndex(w)
	if err != nil {
		s.warn(fmt.Sprintf("%v; rebuilding it from the branch", err))
		idx = &index.Index{Version: 2}
	}
	root, err := openWorktree(w.Path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if n, _ := root.removeTemps(); n > 0 {
		s.debugf("removed %d temporary files from %s", n, w.Path)
	}
	paths := map[string]bool{}
	for p := range files {
		paths[p] = true
	}
	byName := map[string]*index.Entry{}
	for _, e := range idx.Entries {
		paths[e.Name] = true
		byName[e.Name] = e
	}
	var changes []fileChange
	var fixed []string
	for _, p := range sortedKeys(paths) {
		te, inHead := files[p]
		ie := byName[p]
		st, lerr := root.Lstat(p)
		if lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
			continue // a link or an unreadable file: a hand change, left alone
		}
		exists := lerr == nil
		if exists && !st.Mode().IsRegular() {
			continue
		}
		var disk []byte
		var dh plumbing.Hash
		if exists {
			if ie != nil && statMatches(ie, st) {
				dh = ie.Hash
			} else {
				if disk, err = root.ReadFile(p); err != nil {
					continue
				}
				dh = blobHash(disk)
			}
		}
		restore := func() error {
			data, err := r.blob(te.Hash)
			if err != nil {
				return err
			}
			changes = append(changes, fileChange{path: p, data: data, hash: te.Hash})
			fixed = append(fixed, p)
			return nil
		}
		switch {
		case inHead && exists && dh == te.Hash:
			if ie == nil || ie.Hash != te.Hash || !statMatches(ie, st) {
				if ie == nil {
					ie = idx.Add(p)
				}
				fillEntry(ie, te.Hash, st)
			}
		case inHead && !exists && (ie == nil || ie.Hash != te.Hash):
			if err := restore(); err != nil {
				return fixed, err
			}
		case inHead && exists && ie != nil && ie.Hash != te.Hash && (dh == ie.Hash || s.cutShort(r, disk, ie.Hash, te.Hash)):
			if err := restore(); err != nil {
				return fixed, err
			}
		case !inHead && ie != nil && (!exists || dh == ie.Hash):
			changes = append(changes, fileChange{path: p, del: true})
			if exists {
				fixed = append(fixed, p)
			}
		}
	}
	if err := syncWorktreeWith(ctx, r, w, root, changes, idx); err != nil {
		return fixed, err
	}
	clearSync(w)
	sort.Strings(fixed)
	return fixed, nil
}

// cutShort reports whether disk is an append to the index's version of a
// file that was cut short: the branch's version starts with disk, and disk
// starts with (and extends) the index's version.
func (s *Store) cutShort(r *repo, disk []byte, indexed, head plumbing.Hash) bool {
	if disk == nil {
		return false
	}
	want, err := r.blob(head)
	if err != nil || len(disk) >= len(want) || !bytes.HasPrefix(want, disk) {
		return false
	}
	old, err := r.blob(indexed)
	return err == nil && len(disk) > len(old) && bytes.HasPrefix(disk, old)
}

// restoreBranch brings back a branch whose ref is missing or damaged (why)
// from the last commit recorded for it: its reflog, else the reflog of HEAD
// where HEAD names it (the bare repo's for global, the worktree's for an
// agent), both of which planq and git append to on every commit. It reports
// whether it restored the branch, with a warning. When the branch existed
// (a reflog, a worktree that has it checked out, or — for global — any
// other branch says so) but no record names a commit the repo still has,
// it refuses with the commands that recover it: planq never starts a
// branch over silently.
func (s *Store) restoreBranch(ctx context.Context, r *repo, branch string, why error) (bool, error) {
	name := branchRef(branch)
	existed := why != nil
	var found plumbing.Hash
	var from string
	for _, log := range r.reflogsOf(name) {
		es, err := readReflog(log)
		if err != nil {
			continue
		}
		existed = existed || len(es) > 0
		for i := len(es) - 1; i >= 0 && found.IsZero(); i-- {
			if h := es[i].new; !h.IsZero() {
				if _, err := r.commit(h); err == nil {
					found, from = h, log
				}
			}
		}
		if !found.IsZero() {
			break
		}
	}
	if !existed {
		existed = s.branchInUse(r, branch)
	}
	what := "missing"
	if why != nil {
		what = "damaged (" + why.Error() + ")"
	}
	if found.IsZero() {
		if !existed {
			return false, nil
		}
		return false, fmt.Errorf("branch %s is %s and no reflog names a commit of it that the repo still has; planq will not start it over. "+
			"Find its last commit with `git -C %s fsck --lost-found` (the newest dangling commit whose message names a planq write), "+
			"then run `git -C %s update-ref %s COMMIT` and retry", branch, what, s.Bare, s.Bare, name)
	}
	if err := r.updateRef(ctx, refUpdate{name: name, new: found, anyOld: true, msg: "planq: restored from " + filepath.Base(from), sig: s.signature()}); err != nil {
		return false, fmt.Errorf("restore branch %s: %w", branch, err)
	}
	s.warn(fmt.Sprintf("branch %s was %s; restored it to %s, its last commit in the reflog %s", branch, what, short(found), from))
	return true, nil
}

// branchInUse reports whether something other than a reflog shows that
// branch existed: a worktree that has it checked out with files in its
// index, or, for global, any other branch (global is created first).
func (s *Store) branchInUse(r *repo, branch string) bool {
	if branch == GlobalBranch {
		bs, _ := r.branches()
		for _, b := range bs {
			if b != GlobalBranch {
				return true
			}
		}
		return false
	}
	wts, _ := listWorktrees(r.path)
	for i := range wts {
		if wts[i].Branch != branch {
			continue
		}
		if idx, err := readIndex(&wts[i]); err == nil && len(idx.Entries) > 0 {
			return true
		}
	}
	return false
}
