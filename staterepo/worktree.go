package staterepo

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// linkedWorktree is one of the bare repo's linked worktrees, as git records
// it in <bare>/worktrees/<id>/.
type linkedWorktree struct {
	ID     string // the admin directory's name
	Admin  string // <bare>/worktrees/<id>
	Path   string // the worktree's top directory
	Branch string // the checked-out branch, "" when HEAD is detached
	// pending is set while a write updates the worktree when an earlier
	// update of it was left unfinished: the marker then stays for a repair.
	pending bool
}

// worktreeID derives the admin directory name from the worktree's path, so
// the same code repo always maps to the same id.
func worktreeID(path string) string {
	sum := sha1.Sum([]byte(path))
	return "agent-" + hex.EncodeToString(sum[:4])
}

// listWorktrees reads the bare repo's linked worktrees.
func listWorktrees(bare string) ([]linkedWorktree, error) {
	dir := filepath.Join(bare, "worktrees")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	var out []linkedWorktree
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		admin := filepath.Join(dir, e.Name())
		gitdir, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		w := linkedWorktree{ID: e.Name(), Admin: admin, Path: filepath.Dir(strings.TrimSpace(string(gitdir)))}
		if head, err := os.ReadFile(filepath.Join(admin, "HEAD")); err == nil {
			if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/"); ok {
				w.Branch = ref
			}
		}
		out = append(out, w)
	}
	return out, nil
}

// worktreesOn returns the linked worktrees that have branch checked out and
// still exist on disk.
func worktreesOn(bare, branch string) ([]linkedWorktree, error) {
	all, err := listWorktrees(bare)
	if err != nil {
		return nil, err
	}
	var out []linkedWorktree
	for _, w := range all {
		if w.Branch != branch {
			continue
		}
		if _, err := os.Stat(filepath.Join(w.Path, ".git")); err != nil {
			continue // removed by hand; git worktree prune would drop it
		}
		out = append(out, w)
	}
	return out, nil
}

// worktreeAt returns the linked worktree of bare whose top is path, if any.
// It errors when path holds a worktree of a different repository, or when
// path (or .planq above it) is a symbolic link.
func worktreeAt(bare, path string) (*linkedWorktree, error) {
	if err := checkWorktreeDir(path); err != nil {
		return nil, err
	}
	gitFile := filepath.Join(path, ".git")
	st, err := os.Lstat(gitFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", gitFile, err)
	}
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("%s is a separate git repository, not planq's state worktree; move it away", path)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (a link?); planq never follows links in its worktree: remove it and run planq again", gitFile)
	}
	data, err := os.ReadFile(gitFile)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", gitFile, err)
	}
	admin, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return nil, fmt.Errorf("%s/.git is not a worktree link; move %s away", path, path)
	}
	all, err := listWorktrees(bare)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if sameFile(all[i].Admin, admin) {
			return &all[i], nil
		}
	}
	return nil, fmt.Errorf("%s belongs to another state repo (%s), not %s; run `planq remove` in that project or delete %s", path, admin, bare, path)
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}

// addWorktree registers path as a linked worktree of bare with branch
// checked out, the way `git worktree add` does: the admin directory with
// HEAD, commondir and gitdir, the worktree's .git file, the files of the
// branch's tree and an index matching them.
func addWorktree(ctx context.Context, r *repo, path, branch string) (*linkedWorktree, error) {
	if err := checkWorktreeDir(path); err != nil {
		return nil, err
	}
	head, err := r.head(branch)
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, fmt.Errorf("branch %s does not exist", branch)
	}
	if others, err := worktreesOn(r.path, branch); err != nil {
		return nil, err
	} else if len(others) > 0 {
		return nil, fmt.Errorf("branch %s is already checked out at %s; an agent's branch can be checked out in one place at a time", branch, others[0].Path)
	}
	if ents, err := os.ReadDir(path); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%s exists and is not empty; move it away first", path)
	}
	id := worktreeID(path)
	admin := filepath.Join(r.path, "worktrees", id)
	if err := os.RemoveAll(admin); err != nil { // a stale admin dir of a deleted worktree
		return nil, err
	}
	if err := os.MkdirAll(admin, 0o755); err != nil {
		return nil, fmt.Errorf("create worktree admin dir: %w", err)
	}
	files := map[string]string{
		"commondir": "../..\n",
		"gitdir":    filepath.Join(path, ".git") + "\n",
		"HEAD":      "ref: refs/heads/" + branch + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(admin, name), []byte(content), 0o644); err != nil {
			return nil, fmt.Errorf("write worktree %s: %w", name, err)
		}
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	if err := os.WriteFile(filepath.Join(path, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("write worktree .git: %w", err)
	}
	w := &linkedWorktree{ID: id, Admin: admin, Path: path, Branch: branch}
	tree, err := r.commitTree(head)
	if err != nil {
		return nil, err
	}
	if err := checkoutTree(ctx, r, w, plumbing.ZeroHash, tree); err != nil {
		return nil, err
	}
	return w, nil
}

// removeWorktree deletes the worktree's files and git's admin directory.
func removeWorktree(w *linkedWorktree) error {
	if err := os.RemoveAll(w.Path); err != nil {
		return fmt.Errorf("remove worktree %s: %w", w.Path, err)
	}
	if err := os.RemoveAll(w.Admin); err != nil {
		return fmt.Errorf("remove worktree admin dir %s: %w", w.Admin, err)
	}
	return nil
}

// checkoutTree moves the worktree's files and index from tree "from" (zero:
// nothing checked out yet) to tree "to", touching only the paths that differ.
// The caller has checked that those paths have no uncommitted edits.
func checkoutTree(ctx context.Context, r *repo, w *linkedWorktree, from, to plumbing.Hash) error {
	oldFiles, err := r.treeFiles(from)
	if err != nil {
		return err
	}
	newFiles, err := r.treeFiles(to)
	if err != nil {
		return err
	}
	var changes []fileChange
	for p, e := range newFiles {
		if o, ok := oldFiles[p]; ok && o.Hash == e.Hash && o.Mode == e.Mode {
			continue
		}
		data, err := r.blob(e.Hash)
		if err != nil {
			return err
		}
		changes = append(changes, fileChange{path: p, data: data, hash: e.Hash})
	}
	for p := range oldFiles {
		if _, ok := newFiles[p]; !ok {
			changes = append(changes, fileChange{path: p, del: true})
		}
	}
	return syncWorktree(ctx, r, w, changes, from.IsZero())
}

// fileChange is a file a commit wrote or deleted, to mirror in worktrees.
type fileChange struct {
	path string // slash-separated, relative to the worktree
	data []byte
	hash plumbing.Hash
	del  bool
	// base, when set, is the index entry's hash of the file on disk that
	// data extends (data = that content + appended bytes): the worktree
	// copy may be appended to instead of replaced.
	base     plumbing.Hash
	baseSize int64
}

// syncWorktree writes changes into the worktree and its index. With fresh
// set the index is rebuilt from the changes alone.
func syncWorktree(ctx context.Context, r *repo, w *linkedWorktree, changes []fileChange, fresh bool) error {
	idx := &index.Index{Version: 2}
	if !fresh {
		var err error
		if idx, err = readIndex(w); err != nil {
			return err
		}
	}
	root, err := openWorktree(w.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	return syncWorktreeWith(ctx, r, w, root, changes, idx)
}

// syncWorktreeWith applies changes to the worktree (each file replaced by a
// rename, never written in place) and to idx, then writes idx.
func syncWorktreeWith(ctx context.Context, r *repo, w *linkedWorktree, root *wtRoot, changes []fileChange, idx *index.Index) error {
	for _, c := range changes {
		if c.del {
			if err := root.Remove(c.path); err != nil {
				return err
			}
			_, _ = idx.Remove(c.path)
			continue
		}
		e, _ := idx.Entry(c.path)
		done := false
		if !c.base.IsZero() && e != nil && e.Hash == c.base && int64(len(c.data)) > c.baseSize {
			var err error
			if done, err = root.Append(c.path, c.baseSize, c.data[c.baseSize:]); err != nil {
				return err
			}
		}
		if !done {
			if err := root.WriteFile(c.path, c.data); err != nil {
				return err
			}
		}
		crashPoint("worktree-file")
		st, err := root.Lstat(c.path)
		if err != nil {
			return err
		}
		if e == nil {
			e = idx.Add(c.path)
		}
		fillEntry(e, c.hash, st)
	}
	return writeIndex(ctx, r, w, idx)
}

// fillEntry records a file's hash and stat data in an index entry, so that
// git trusts it without rehashing.
func fillEntry(e *index.Entry, h plumbing.Hash, st os.FileInfo) {
	e.Hash = h
	e.Mode = filemode.Regular
	e.Size = uint32(st.Size())
	e.ModifiedAt = st.ModTime()
	e.CreatedAt = st.ModTime()
	if fs, ok := statOf(st); ok {
		e.CreatedAt = fs.ctime
		e.Dev, e.Inode = fs.dev, fs.ino
		e.UID, e.GID = fs.uid, fs.gid
	}
	e.Stage = 0
	e.SkipWorktree, e.IntentToAdd = false, false
}

// statMatches reports whether a file's stat data still matches its index
// entry, git's cheap test that the file is unchanged.
func statMatches(e *index.Entry, st os.FileInfo) bool {
	if e == nil || uint32(st.Size()) != e.Size || !st.ModTime().Equal(e.ModifiedAt) {
		return false
	}
	if fs, ok := statOf(st); ok && fs.ino != e.Inode {
		return false
	}
	return true
}

// readIndex loads the worktree's index; a missing one is empty.
func readIndex(w *linkedWorktree) (*index.Index, error) {
	idx := &index.Index{Version: 2}
	data, err := os.ReadFile(filepath.Join(w.Admin, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read worktree index: %w", err)
	}
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		p := filepath.Join(w.Admin, "index")
		return nil, fmt.Errorf("the worktree index %s is %w (%v): remove it, and the next planq write rebuilds it from the branch", p, ErrDamaged, err)
	}
	return idx, nil
}

// writeIndex stores idx with git's lock protocol (index.lock, rename).
func writeIndex(ctx context.Context, r *repo, w *linkedWorktree, idx *index.Index) error {
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	if idx.Version < 2 || idx.Version > 3 {
		idx.Version = 2
	}
	idx.Cache = nil // the cached-tree extension is not written; drop it so git does not trust a stale one
	idx.ResolveUndo = nil
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		return fmt.Errorf("encode worktree index: %w", err)
	}
	path := filepath.Join(w.Admin, "index")
	f, err := takeGitLock(ctx, path+".lock", r.warn)
	if err != nil {
		return fmt.Errorf("write the worktree index: %w", err)
	}
	crashPoint("index-locked")
	// Not fsynced: a lost index is rebuilt from the branch.
	if err := commitLockFile(f, path, buf.Bytes(), false); err != nil {
		return fmt.Errorf("write the worktree index %s: %w", path, err)
	}
	return nil
}

// dirtyPaths lists the worktree's tracked files that differ from tree
// (modified, deleted, or added to the index), using stat data first and
// content hashes only for files whose stat data changed. Untracked files are
// not reported. stale lists those of them whose index entry differs from
// tree: committing them as they are would undo the branch's newer version.
func dirtyPaths(r *repo, w *linkedWorktree, tree plumbing.Hash) (dirty, stale []string, err error) {
	files, err := r.treeFiles(tree)
	if err != nil {
		return nil, nil, err
	}
	idx, err := readIndex(w)
	if err != nil {
		return nil, nil, err
	}
	root, err := openWorktree(w.Path)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	seen := map[string]bool{}
	for _, e := range idx.Entries {
		seen[e.Name] = true
		te, ok := files[e.Name]
		st, lerr := root.Lstat(e.Name)
		switch {
		case lerr != nil || !st.Mode().IsRegular():
			dirty = append(dirty, e.Name)
		case ok && te.Hash == e.Hash && statMatches(e, st):
			continue
		default:
			data, err := root.ReadFile(e.Name)
			if err == nil && ok && blobHash(data) == te.Hash {
				continue // only stat data moved, or the index lags a correct file
			}
			dirty = append(dirty, e.Name)
		}
		if ok && te.Hash != e.Hash {
			stale = append(stale, e.Name)
		}
	}
	for p := range files {
		if !seen[p] {
			dirty = append(dirty, p)
		}
	}
	sort.Strings(dirty)
	sort.Strings(stale)
	return dirty, stale, nil
}
