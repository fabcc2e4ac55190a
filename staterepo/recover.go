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

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// What a killed process (kill -9, OOM, a full disk, a power cut) can leave
// behind, and how the next planq write deals with it before it writes
// (lockAndRecover), holding the store's lock:
//
//   - a git lock file (refs/heads/<branch>.lock, index.lock, packed-refs.lock)
//     older than gitstore.StaleLockAge: removed, with a warning naming it;
//   - a worktree whose update was interrupted (its sync marker is still
//     there): brought to its branch where the difference is planq's own
//     unfinished write, keeping hand edits (repairWorktree);
//   - a branch whose ref was deleted or damaged: restored from its reflog,
//     or refused with the commands that recover it (restoreBranch), never
//     started over empty;
//   - a damaged remote-tracking ref (refs/remotes/origin/*): deleted, for
//     the next fetch to write again.
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

// The states a sync marker starts with, of equal length.
const (
	markPending = "pending "
	markClean   = "clean   "
)

// setMark writes w's sync marker: state and commit.
func setMark(w *gitstore.Worktree, state string, commit plumbing.Hash) error {
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

// clearSync marks w's update finished.
func clearSync(w *gitstore.Worktree) { _ = setMark(w, markClean, plumbing.ZeroHash) }

// syncPending reports whether w's last update was left unfinished.
func syncPending(w *gitstore.Worktree) bool {
	f, err := os.Open(filepath.Join(w.Admin, syncMarker))
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(markPending))
	n, _ := f.Read(buf)
	return string(buf[:n]) == markPending
}

// syncMarks are the sync markers of the worktrees one write updates. A
// worktree whose last update was still unfinished when the write began
// keeps its marker after this write too (its repair failed, e.g. for lack
// of space): only a repair (repairWorktree) finishes it.
type syncMarks struct {
	wts     []gitstore.Worktree
	pending []bool // per worktree: its marker said pending before this write
}

// readSyncMarks notes which of wts were left pending before this write.
func readSyncMarks(wts []gitstore.Worktree) syncMarks {
	m := syncMarks{wts: wts, pending: make([]bool, len(wts))}
	for i := range wts {
		m.pending[i] = syncPending(&wts[i])
	}
	return m
}

// markPending marks every worktree pending on commit, before the branch
// moves to it.
func (m syncMarks) markPending(commit plumbing.Hash) error {
	for i := range m.wts {
		if err := setMark(&m.wts[i], markPending, commit); err != nil {
			return fmt.Errorf("mark the worktree %s: %w", m.wts[i].Path, err)
		}
	}
	return nil
}

// clear marks worktree i's update finished, unless it was pending before.
func (m syncMarks) clear(i int) {
	if !m.pending[i] {
		clearSync(&m.wts[i])
	}
}

// clearAll undoes markPending when the branch did not move.
func (m syncMarks) clearAll() {
	for i := range m.wts {
		m.clear(i)
	}
}

// lockInitOpen takes the lock (recovering as lockAndRecover does), creates
// the bare repo when it does not exist yet, and opens it: the start of
// every write that may be a project's first. The caller releases the lock.
func (s *Store) lockInitOpen(ctx context.Context) (*fileLock, *gitstore.Repo, error) {
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return nil, nil, err
	}
	if _, err := s.initLocked(ctx); err != nil {
		lk.Release()
		return nil, nil, err
	}
	r, err := s.openRepo()
	if err != nil {
		lk.Release()
		return nil, nil, err
	}
	return lk, r, nil
}

// Recover repairs what killed processes and hand damage left in the state
// repo, as every write does first (lockAndRecover), without writing
// anything else: `planq state gc` runs it before packing.
func (s *Store) Recover(ctx context.Context) error {
	if !s.Initialized() {
		return nil
	}
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return err
	}
	lk.Release()
	return nil
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
	// Not the session lineages' refs, which may be thousands (a walk of
	// them would cost every write a millisecond): their updates clear their
	// own stale locks, and a push clears them before go-git reads them.
	if err := r.ClearStaleLocks(ctx, SessionsRefPrefix); err != nil {
		lk.Release()
		return nil, err
	}
	s.repairRefs(ctx, r)
	s.reregisterWorktree(ctx, r)
	wts, err := gitstore.ListWorktrees(s.Bare)
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
func (s *Store) repairWorktree(ctx context.Context, r *gitstore.Repo, w *gitstore.Worktree) ([]string, error) {
	head, tree, err := r.HeadTree(w.Branch)
	if err != nil || head.IsZero() {
		return nil, err
	}
	files, err := r.TreeFiles(tree)
	if err != nil {
		return nil, err
	}
	idx, err := w.ReadIndex()
	if err != nil {
		s.warn(fmt.Sprintf("%v; rebuilding it from the branch", err))
		idx = &index.Index{Version: 2}
	}
	root, err := gitstore.OpenRoot(w.Path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if n, _ := root.RemoveTemps(); n > 0 {
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
	var changes []gitstore.FileChange
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
			if ie != nil && gitstore.StatMatches(ie, st) {
				dh = ie.Hash
			} else {
				if disk, err = root.ReadFile(p); err != nil {
					continue
				}
				dh = gitstore.BlobHash(disk)
			}
		}
		restore := func() error {
			data, err := r.Blob(te.Hash)
			if err != nil {
				return err
			}
			changes = append(changes, gitstore.FileChange{Path: p, Data: data, Hash: te.Hash})
			fixed = append(fixed, p)
			return nil
		}
		switch {
		case inHead && exists && dh == te.Hash:
			if ie == nil || ie.Hash != te.Hash || !gitstore.StatMatches(ie, st) {
				if ie == nil {
					ie = idx.Add(p)
				}
				gitstore.FillEntry(ie, te.Hash, st)
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
			changes = append(changes, gitstore.FileChange{Path: p, Del: true})
			if exists {
				fixed = append(fixed, p)
			}
		}
	}
	if err := r.WriteWorktree(ctx, w, root, changes, idx); err != nil {
		return fixed, err
	}
	clearSync(w)
	sort.Strings(fixed)
	return fixed, nil
}

// cutShort reports whether disk is an append to the index's version of a
// file that was cut short: the branch's version starts with disk, and disk
// starts with (and extends) the index's version.
func (s *Store) cutShort(r *gitstore.Repo, disk []byte, indexed, head plumbing.Hash) bool {
	if disk == nil {
		return false
	}
	want, err := r.Blob(head)
	if err != nil || len(disk) >= len(want) || !bytes.HasPrefix(want, disk) {
		return false
	}
	old, err := r.Blob(indexed)
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
func (s *Store) restoreBranch(ctx context.Context, r *gitstore.Repo, branch string, why error) (bool, error) {
	name := gitstore.BranchRef(branch)
	existed := why != nil
	var found, newest plumbing.Hash
	var from string
	for _, log := range r.ReflogsOf(name) {
		es, err := gitstore.ReadReflog(log)
		if err != nil {
			continue
		}
		existed = existed || len(es) > 0
		if len(es) > 0 && newest.IsZero() {
			newest = es[len(es)-1].New
		}
		for i := len(es) - 1; i >= 0 && found.IsZero(); i-- {
			if h := es[i].New; !h.IsZero() {
				if err := r.Complete(h); err == nil {
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
		return false, fmt.Errorf("branch %s is %s and no reflog names a commit of it that the repo still has whole; planq will not start it over. "+
			"Bring back the missing objects (from a backup, or a clone of the state remote: %s), or find its last good commit with `git -C %s fsck --lost-found` "+
			"(the newest dangling commit whose message names a planq write), then run `git -C %s update-ref %s COMMIT` and retry",
			branch, what, s.copyObjectsHint(), s.Bare, s.Bare, name)
	}
	if err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: name, New: found, AnyOld: true, Msg: "planq: restored from " + filepath.Base(from), Sig: s.signature()}); err != nil {
		return false, fmt.Errorf("restore branch %s: %w", branch, err)
	}
	msg := fmt.Sprintf("branch %s was %s; restored it to %s, its last commit in the reflog %s", branch, what, gitstore.Short(found), from)
	if found != newest && !newest.IsZero() {
		// Back to an older commit: a worktree that has the branch checked
		// out may hold the newer files; they become uncommitted edits on
		// top of the restored commit, which the next write commits.
		tree, _ := r.CommitTree(found)
		wts, _ := gitstore.WorktreesOn(s.Bare, branch)
		for i := range wts {
			if err := r.ResetIndex(ctx, &wts[i], tree); err == nil {
				msg += fmt.Sprintf("; %s keeps its newer files as uncommitted edits, which the next write commits", wts[i].Path)
			}
		}
	}
	s.warn(msg)
	return true, nil
}

// copyObjectsHint says how to bring back objects from the state remote, or
// from a backup when there is none.
func (s *Store) copyObjectsHint() string {
	if u := s.Config.State.Remote; u != "" {
		return fmt.Sprintf("`git clone --mirror %s /tmp/planq-state-copy && cp /tmp/planq-state-copy/objects/pack/* %s/objects/pack/`", u, s.Bare)
	}
	return "no state remote is configured, so only a backup of " + filepath.Join(s.Bare, "objects") + " has them"
}

// repairRefs makes the refs git reads whole again before a write: a
// packed-refs with lines git cannot read is saved beside itself and
// rewritten with its valid lines, and every branch whose ref is damaged,
// was deleted by hand (its reflog is still there) or points at a commit
// the repo does not have whole is restored from its reflog (restoreBranch).
// What cannot be restored is left for the write that needs the branch to
// refuse, with the commands that recover it.
func (s *Store) repairRefs(ctx context.Context, r *gitstore.Repo) {
	saved, dropped, err := r.RepairPackedRefs(ctx, s.now())
	switch {
	case err != nil:
		s.warn(err.Error())
	case saved != "":
		s.warn(fmt.Sprintf("packed-refs had %d lines git cannot read (%.60q); saved it as %s and kept its valid lines", len(dropped), dropped[0], saved))
	}
	// Remote-tracking refs are a copy of the remote's branches that the
	// next fetch writes again: a damaged one (go-git's fetch, which older
	// planq versions used, rewrote them in place, so a killed fetch could
	// leave one empty) is deleted rather than left in every push's way.
	for _, name := range r.DamagedRefs(trackingPrefix) {
		if err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: name, AnyOld: true}); err != nil {
			s.warn(fmt.Sprintf("could not delete the damaged ref %s: %v", name, err))
			continue
		}
		s.warn(fmt.Sprintf("deleted the damaged ref %s (a copy of the remote's branch; the next fetch writes it again)", name))
	}
	for _, b := range s.branchesToRestore(r) {
		if _, err := s.restoreBranch(ctx, r, b.name, b.why); err != nil && b.name != s.Branch() && b.name != GlobalBranch {
			s.warn(err.Error()) // the current agent's branch and global refuse in the write itself
		}
	}
}

// brokenBranch is a branch repairRefs restores, and why.
type brokenBranch struct {
	name string
	why  error // nil: the ref is gone but its reflog is there
}

// branchesToRestore lists the branches whose ref is damaged, missing while
// their reflog remains, or pointing at a commit that is missing or cannot
// be read.
func (s *Store) branchesToRestore(r *gitstore.Repo) []brokenBranch {
	names := map[string]bool{}
	if bs, err := r.Branches(); err == nil {
		for _, b := range bs {
			names[b] = true
		}
	}
	logs := filepath.Join(s.Bare, "logs", "refs", "heads")
	_ = filepath.WalkDir(logs, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(p, ".lock") {
			if rel, err := filepath.Rel(logs, p); err == nil {
				names[filepath.ToSlash(rel)] = true
			}
		}
		return nil
	})
	var out []brokenBranch
	for _, b := range sortedKeys(names) {
		h, ok, err := r.ReadRef(gitstore.BranchRef(b))
		switch {
		case err != nil:
			out = append(out, brokenBranch{b, err})
		case !ok:
			if es, _ := gitstore.ReadReflog(filepath.Join(logs, filepath.FromSlash(b))); len(es) > 0 {
				out = append(out, brokenBranch{b, nil})
			}
		default:
			if _, err := r.Commit(h); err != nil {
				out = append(out, brokenBranch{b, fmt.Errorf("it points at commit %s, which %s", gitstore.Short(h), missingOrDamaged(err))})
			}
		}
	}
	return out
}

// missingOrDamaged words why an object could not be read.
func missingOrDamaged(err error) string {
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return "the repo does not have"
	}
	return "cannot be read: " + err.Error()
}

// reregisterWorktree registers this code repo's worktree again when its
// .git file links it into the state repo under an admin directory that is
// gone (deleted by hand, or pruned after the code repo moved): with the
// agent branch whose files it holds — the one all its files match, else
// the one most of them match — its files kept as they are. A worktree
// that matches no branch is left for the write to refuse (worktreeError).
func (s *Store) reregisterWorktree(ctx context.Context, r *gitstore.Repo) {
	w, err := gitstore.WorktreeAt(s.Bare, s.Worktree)
	if err == nil && w != nil && !gitstore.SameFile(w.Path, s.Worktree) {
		// The code repo moved: its registration still names the old place,
		// where another repo may appear; point it here, as `git worktree
		// repair` does.
		if err := w.Relink(s.Worktree); err != nil {
			s.warn(fmt.Sprintf("could not record that %s moved to %s: %v", w.Path, s.Worktree, err))
		}
		return
	}
	if !errors.Is(err, gitstore.ErrUnregistered) {
		return
	}
	branch := s.matchingBranch(r)
	if branch == "" {
		return
	}
	w, err = r.Reregister(ctx, s.Worktree, branch)
	if err != nil {
		s.warn(fmt.Sprintf("could not register %s again: %v", s.Worktree, err))
		return
	}
	s.warn(fmt.Sprintf("%s was linked to %s, which was gone; registered it again with branch %s, whose files it holds", s.Worktree, w.Admin, branch))
}

// matchingBranch returns the agent branch, not checked out elsewhere, whose
// files the worktree at s.Worktree holds: the one all its files match, or
// else the one that most of them match (at least half of the branch's), or
// "" when none or several qualify.
func (s *Store) matchingBranch(r *gitstore.Repo) string {
	disk, err := gitstore.FileHashes(s.Worktree)
	if err != nil {
		return ""
	}
	bs, err := r.Branches()
	if err != nil {
		return ""
	}
	best, bestScore, tie := "", 0, false
	for _, b := range bs {
		if !strings.HasPrefix(b, AgentPrefix) {
			continue
		}
		if others, _ := gitstore.WorktreesOn(s.Bare, b); len(others) > 0 {
			continue
		}
		files, err := r.BranchFiles(b)
		if err != nil || len(files) == 0 {
			continue
		}
		score := 0
		for p, e := range files {
			if disk[p] == e.Hash {
				score++
			}
		}
		if score == len(files) && len(disk) == len(files) {
			score += len(files) // an exact match beats any partial one
		}
		switch {
		case score*2 < len(files):
		case score > bestScore:
			best, bestScore, tie = b, score, false
		case score == bestScore:
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// branchInUse reports whether something other than a reflog shows that
// branch existed: a worktree that has it checked out with files in its
// index, or, for global, any other branch (global is created first).
func (s *Store) branchInUse(r *gitstore.Repo, branch string) bool {
	if branch == GlobalBranch {
		bs, _ := r.Branches()
		for _, b := range bs {
			if b != GlobalBranch {
				return true
			}
		}
		return false
	}
	wts, _ := gitstore.ListWorktrees(r.Path())
	for i := range wts {
		if wts[i].Branch != branch {
			continue
		}
		if idx, err := wts[i].ReadIndex(); err == nil && len(idx.Entries) > 0 {
			return true
		}
	}
	return false
}
