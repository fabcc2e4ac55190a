package gitstore

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

	"github.com/planq-dev/planq/internal/gitlink"
	"github.com/planq-dev/planq/staterepo/internal/crash"
)

// Worktree is one of the bare repo's linked worktrees, as git records it
// in <bare>/worktrees/<id>/.
type Worktree struct {
	ID     string // the admin directory's name
	Admin  string // <bare>/worktrees/<id>
	Path   string // the worktree's top directory
	Branch string // the checked-out branch, "" when HEAD is detached
}

// worktreeID derives the admin directory name from the worktree's path, so
// the same code repo always maps to the same id.
func worktreeID(path string) string {
	sum := sha1.Sum([]byte(path))
	return "agent-" + hex.EncodeToString(sum[:4])
}

// ListWorktrees reads the bare repo's linked worktrees.
func ListWorktrees(bare string) ([]Worktree, error) {
	dir := filepath.Join(bare, "worktrees")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	var out []Worktree
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		admin := filepath.Join(dir, e.Name())
		gitdir, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		w := Worktree{ID: e.Name(), Admin: admin, Path: filepath.Dir(strings.TrimSpace(string(gitdir)))}
		if head, err := os.ReadFile(filepath.Join(admin, "HEAD")); err == nil {
			if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/"); ok {
				w.Branch = ref
			}
		}
		out = append(out, w)
	}
	return out, nil
}

// WorktreesOn returns the linked worktrees that have branch checked out and
// still exist on disk.
func WorktreesOn(bare, branch string) ([]Worktree, error) {
	all, err := ListWorktrees(bare)
	if err != nil {
		return nil, err
	}
	var out []Worktree
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

// WorktreeAt returns the linked worktree of bare whose top is path, if any.
// It errors when path holds a worktree of a different repository, or when
// path (or .planq above it) is a symbolic link.
func WorktreeAt(bare, path string) (*Worktree, error) {
	if err := CheckWorktreeDir(path); err != nil {
		return nil, err
	}
	admin, found, err := gitlink.Read(path)
	if err != nil || !found {
		return nil, err
	}
	all, err := ListWorktrees(bare)
	if err != nil {
		return nil, err
	}
	for i := range all {
		if SameFile(all[i].Admin, admin) {
			return &all[i], nil
		}
	}
	if SameFile(filepath.Dir(admin), filepath.Join(bare, "worktrees")) {
		return nil, fmt.Errorf("%w: %s is linked to %s, which is gone (deleted by hand?), and its files match no branch planq could register it with; "+
			"move it aside (mv %s %s.old): the next planq write checks the branch out again, and you copy back what you need from %s.old",
			ErrUnregistered, path, admin, path, path, path)
	}
	return nil, fmt.Errorf("%s belongs to another state repo (%s), not %s; run `planq remove` in that project or delete %s", path, admin, bare, path)
}

// ErrUnregistered reports a worktree whose .git file links it into this
// state repo, under an admin directory that no longer exists.
var ErrUnregistered = errors.New("the worktree's registration in the state repo is gone")

// CheckedOutBranch returns the branch the linked worktree at path has
// checked out, read from its .git file and its admin directory's HEAD, or
// "" when there is none (no worktree, a link in the way, a detached HEAD).
func CheckedOutBranch(path string) string {
	admin, ok := LinkedAdmin(path)
	if !ok {
		return ""
	}
	head, err := os.ReadFile(filepath.Join(admin, "HEAD"))
	if err != nil {
		return ""
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return branch
}

// SameFile reports whether a and b name the same file, comparing the paths
// when either cannot be read.
func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(sa, sb)
}

// AddWorktree registers path as a linked worktree of r with branch
// checked out, the way `git worktree add` does: the admin directory with
// HEAD, commondir and gitdir, the worktree's .git file, the files of the
// branch's tree and an index matching them.
func (r *Repo) AddWorktree(ctx context.Context, path, branch string) (*Worktree, error) {
	if err := CheckWorktreeDir(path); err != nil {
		return nil, err
	}
	head, err := r.Head(branch)
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, fmt.Errorf("branch %s does not exist", branch)
	}
	if others, err := WorktreesOn(r.path, branch); err != nil {
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
	if err := writeAdmin(admin, path, branch); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	if err := os.WriteFile(filepath.Join(path, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("write worktree .git: %w", err)
	}
	w := &Worktree{ID: id, Admin: admin, Path: path, Branch: branch}
	tree, err := r.CommitTree(head)
	if err != nil {
		return nil, err
	}
	if err := r.Checkout(ctx, w, plumbing.ZeroHash, tree); err != nil {
		return nil, err
	}
	return w, nil
}

// writeAdmin writes the admin directory admin of the worktree at path,
// with branch checked out, as `git worktree add` lays it out.
func writeAdmin(admin, path, branch string) error {
	if err := os.MkdirAll(admin, 0o755); err != nil {
		return fmt.Errorf("create worktree admin dir: %w", err)
	}
	files := map[string]string{
		"commondir": "../..\n",
		"gitdir":    filepath.Join(path, ".git") + "\n",
		"HEAD":      "ref: refs/heads/" + branch + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(admin, name), []byte(content), 0o644); err != nil {
			return fmt.Errorf("write worktree %s: %w", name, err)
		}
	}
	return nil
}

// SwitchWorktree checks out branch in the worktree w, whose files have no
// uncommitted changes.
func (r *Repo) SwitchWorktree(ctx context.Context, w *Worktree, branch string) error {
	var from plumbing.Hash
	if w.Branch != "" {
		var err error
		if _, from, err = r.HeadTree(w.Branch); err != nil {
			return err
		}
	}
	_, to, err := r.HeadTree(branch)
	if err != nil {
		return err
	}
	if err := r.Checkout(ctx, w, from, to); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(w.Admin, "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644); err != nil {
		return err
	}
	w.Branch = branch
	return nil
}

// Remove deletes the worktree's files and git's admin directory.
func (w *Worktree) Remove() error {
	if err := os.RemoveAll(w.Path); err != nil {
		return fmt.Errorf("remove worktree %s: %w", w.Path, err)
	}
	if err := os.RemoveAll(w.Admin); err != nil {
		return fmt.Errorf("remove worktree admin dir %s: %w", w.Admin, err)
	}
	return nil
}

// Checkout moves the worktree's files and index from tree "from" (zero:
// nothing checked out yet) to tree "to", touching only the paths that differ.
// The caller has checked that those paths have no uncommitted edits.
func (r *Repo) Checkout(ctx context.Context, w *Worktree, from, to plumbing.Hash) error {
	oldFiles, err := r.TreeFiles(from)
	if err != nil {
		return err
	}
	newFiles, err := r.TreeFiles(to)
	if err != nil {
		return err
	}
	var changes []FileChange
	for p, e := range newFiles {
		if o, ok := oldFiles[p]; ok && o.Hash == e.Hash && o.Mode == e.Mode {
			continue
		}
		data, err := r.Blob(e.Hash)
		if err != nil {
			return err
		}
		changes = append(changes, FileChange{Path: p, Data: data, Hash: e.Hash})
	}
	for p := range oldFiles {
		if _, ok := newFiles[p]; !ok {
			changes = append(changes, FileChange{Path: p, Del: true})
		}
	}
	return r.syncWorktree(ctx, w, changes, from.IsZero())
}

// FileChange is a file a commit wrote or deleted, to mirror in worktrees.
type FileChange struct {
	Path string        // slash-separated, relative to the worktree
	Data []byte        // the new content
	Hash plumbing.Hash // Data's blob
	Del  bool          // the file is deleted instead
	// Base, when set, is the index entry's hash of the file on disk that
	// Data extends (Data = that content + appended bytes): the worktree
	// copy may be appended to instead of replaced.
	Base     plumbing.Hash
	BaseSize int64 // the size of Base's content
}

// syncWorktree writes changes into the worktree and its index. With fresh
// set the index is rebuilt from the changes alone.
func (r *Repo) syncWorktree(ctx context.Context, w *Worktree, changes []FileChange, fresh bool) error {
	idx := &index.Index{Version: 2}
	if !fresh {
		var err error
		if idx, err = w.ReadIndex(); err != nil {
			return err
		}
	}
	root, err := OpenRoot(w.Path)
	if err != nil {
		return err
	}
	defer root.Close()
	return r.WriteWorktree(ctx, w, root, changes, idx)
}

// WriteWorktree applies changes to the worktree w, opened as root (each
// file replaced by a rename, never written in place, or appended to when
// its Base still matches), and to idx, then writes idx.
func (r *Repo) WriteWorktree(ctx context.Context, w *Worktree, root *Root, changes []FileChange, idx *index.Index) error {
	for _, c := range changes {
		if c.Del {
			if err := root.Remove(c.Path); err != nil {
				return err
			}
			_, _ = idx.Remove(c.Path)
			continue
		}
		e, _ := idx.Entry(c.Path)
		done := false
		if !c.Base.IsZero() && e != nil && e.Hash == c.Base && int64(len(c.Data)) > c.BaseSize {
			var err error
			if done, err = root.Append(c.Path, c.BaseSize, c.Data[c.BaseSize:]); err != nil {
				return err
			}
		}
		if !done {
			if err := root.WriteFile(c.Path, c.Data); err != nil {
				return err
			}
		}
		crash.Point("worktree-file")
		st, err := root.Lstat(c.Path)
		if err != nil {
			return err
		}
		if e == nil {
			e = idx.Add(c.Path)
		}
		FillEntry(e, c.Hash, st)
	}
	return r.writeIndex(ctx, w, idx)
}

// FillEntry records a file's hash and stat data in an index entry, so that
// git trusts it without rehashing.
func FillEntry(e *index.Entry, h plumbing.Hash, st os.FileInfo) {
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

// StatMatches reports whether a file's stat data still matches its index
// entry, git's cheap test that the file is unchanged.
func StatMatches(e *index.Entry, st os.FileInfo) bool {
	if e == nil || uint32(st.Size()) != e.Size || !st.ModTime().Equal(e.ModifiedAt) {
		return false
	}
	if fs, ok := statOf(st); ok && fs.ino != e.Inode {
		return false
	}
	return true
}

// ReadIndex loads the worktree's index; a missing one is empty.
func (w *Worktree) ReadIndex() (*index.Index, error) {
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
func (r *Repo) writeIndex(ctx context.Context, w *Worktree, idx *index.Index) error {
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
	f, err := takeLock(ctx, path+".lock", r.warn)
	if err != nil {
		return fmt.Errorf("write the worktree index: %w", err)
	}
	crash.Point("index-locked")
	// Not fsynced: a lost index is rebuilt from the branch.
	if err := commitLockFile(f, path, buf.Bytes(), false); err != nil {
		return fmt.Errorf("write the worktree index %s: %w", path, err)
	}
	return nil
}

// DirtyPaths lists the worktree's tracked files that differ from tree
// (modified, deleted, or added to the index), using stat data first and
// content hashes only for files whose stat data changed. Untracked files are
// not reported. stale lists those of them whose index entry differs from
// tree: committing them as they are would undo the branch's newer version.
func (r *Repo) DirtyPaths(w *Worktree, tree plumbing.Hash) (dirty, stale []string, err error) {
	files, err := r.TreeFiles(tree)
	if err != nil {
		return nil, nil, err
	}
	idx, err := w.ReadIndex()
	if err != nil {
		return nil, nil, err
	}
	root, err := OpenRoot(w.Path)
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
		case ok && te.Hash == e.Hash && StatMatches(e, st):
			continue
		default:
			data, err := root.ReadFile(e.Name)
			if err == nil && ok && BlobHash(data) == te.Hash {
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

// ResetIndex makes w's index list tree's files without stat data, so that
// the next reader hashes each file: one that differs from tree is then an
// uncommitted edit on top of it. Recovery uses it when a branch had to go
// back to an older commit while the worktree still holds newer files.
func (r *Repo) ResetIndex(ctx context.Context, w *Worktree, tree plumbing.Hash) error {
	files, err := r.TreeFiles(tree)
	if err != nil {
		return err
	}
	idx := &index.Index{Version: 2}
	for p, e := range files {
		ie := idx.Add(p)
		ie.Hash, ie.Mode = e.Hash, filemode.Regular
	}
	return r.writeIndex(ctx, w, idx)
}

// LinkedAdmin returns the admin directory the .git file of the worktree at
// path names, whether or not it exists; ok is false when path has no
// worktree link (or a link in the way).
func LinkedAdmin(path string) (admin string, ok bool) {
	if CheckWorktreeDir(path) != nil {
		return "", false
	}
	admin, found, err := gitlink.Read(path)
	return admin, found && err == nil
}

// Reregister records the worktree at path again under the admin directory
// its .git file names, inside r (worktrees/<id>), with branch checked out
// and an index listing the branch's files without stat data: files that
// differ from the branch are then uncommitted edits. It is for a worktree
// whose admin directory was deleted; the files are left as they are.
func (r *Repo) Reregister(ctx context.Context, path, branch string) (*Worktree, error) {
	admin, ok := LinkedAdmin(path)
	if !ok || !SameFile(filepath.Dir(admin), filepath.Join(r.path, "worktrees")) {
		return nil, fmt.Errorf("%s is not linked into %s", path, r.path)
	}
	_, tree, err := r.HeadTree(branch)
	if err != nil {
		return nil, err
	}
	if err := writeAdmin(admin, path, branch); err != nil {
		return nil, err
	}
	w := &Worktree{ID: filepath.Base(admin), Admin: admin, Path: path, Branch: branch}
	return w, r.ResetIndex(ctx, w, tree)
}

// FileHashes returns the blob id of every regular file under the worktree
// at path (slash-separated, .git left out), read without following links.
func FileHashes(path string) (map[string]plumbing.Hash, error) {
	root, err := OpenRoot(path)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := map[string]plumbing.Hash{}
	err = fs.WalkDir(root.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p == ".git" {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() || p == ".git" {
			return nil
		}
		data, err := root.ReadFile(p)
		if err != nil {
			return nil
		}
		out[p] = BlobHash(data)
		return nil
	})
	return out, err
}

// Relink records path as w's top directory (its admin directory's gitdir
// file), after the worktree moved there with its code repo.
func (w *Worktree) Relink(path string) error {
	if err := os.WriteFile(filepath.Join(w.Admin, "gitdir"), []byte(filepath.Join(path, ".git")+"\n"), 0o644); err != nil {
		return fmt.Errorf("relink worktree %s: %w", w.Admin, err)
	}
	w.Path = path
	return nil
}
