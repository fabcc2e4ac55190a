package staterepo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// repo is a bare repository opened for plumbing work: blobs, trees, commits
// and refs, without a worktree.
type repo struct {
	path string
	st   *filesystem.Storage
	mu   sync.Mutex // serialises go-git reads from parallel readers
}

// openRepo opens the bare repository at path.
func openRepo(path string) (*repo, error) {
	if _, err := os.Stat(filepath.Join(path, "HEAD")); err != nil {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNotInitialized, path)
	}
	st := filesystem.NewStorage(osfs.New(path), cache.NewObjectLRU(8*cache.MiByte))
	return &repo{path: path, st: st}, nil
}

// branchRef returns the full ref name of a branch.
func branchRef(branch string) plumbing.ReferenceName { return plumbing.NewBranchReferenceName(branch) }

// head returns the commit a branch points to, or the zero hash when the
// branch does not exist.
func (r *repo) head(branch string) (plumbing.Hash, error) {
	ref, err := r.st.Reference(branchRef(branch))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("read branch %s: %w", branch, err)
	}
	return ref.Hash(), nil
}

// branches lists the repo's branch names.
func (r *repo) branches() ([]string, error) {
	iter, err := r.st.IterReferences()
	if err != nil {
		return nil, err
	}
	var out []string
	err = iter.ForEach(func(ref *plumbing.Reference) error {
		if ref.Name().IsBranch() {
			out = append(out, ref.Name().Short())
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// commit reads a commit object.
func (r *repo) commit(h plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// commitTree returns the tree hash of a commit, or the zero hash for the
// zero commit.
func (r *repo) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	if h.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := r.commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// fileEntry finds path in tree; ok is false when it is missing.
func (r *repo) fileEntry(tree plumbing.Hash, path string) (e object.TreeEntry, ok bool, err error) {
	if tree.IsZero() {
		return e, false, nil
	}
	for {
		t, err := object.GetTree(r.st, tree)
		if err != nil {
			return e, false, fmt.Errorf("read tree %s: %w", tree, err)
		}
		name, rest, sub := strings.Cut(path, "/")
		var found *object.TreeEntry
		for i := range t.Entries {
			if t.Entries[i].Name == name {
				found = &t.Entries[i]
				break
			}
		}
		if found == nil {
			return e, false, nil
		}
		if !sub {
			return *found, true, nil
		}
		if found.Mode != filemode.Dir {
			return e, false, nil
		}
		tree, path = found.Hash, rest
	}
}

// readFile returns the content of path in tree; ok is false when missing.
func (r *repo) readFile(tree plumbing.Hash, path string) (data []byte, ok bool, err error) {
	e, ok, err := r.fileEntry(tree, path)
	if err != nil || !ok || e.Mode == filemode.Dir {
		return nil, false, err
	}
	data, err = r.blob(e.Hash)
	return data, err == nil, err
}

// blob reads a blob's content: a loose object straight from its file (no
// hashing, one copy), else through go-git (packed objects).
func (r *repo) blob(h plumbing.Hash) ([]byte, error) {
	if data, ok, err := r.readLoose(h, plumbing.BlobObject); ok || err != nil {
		return data, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.st.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	buf := bytes.NewBuffer(make([]byte, 0, o.Size()))
	_, err = io.Copy(buf, rd)
	return buf.Bytes(), err
}

// readLoose reads a loose object of type typ; ok is false when there is no
// loose file for h.
func (r *repo) readLoose(h plumbing.Hash, typ plumbing.ObjectType) (data []byte, ok bool, err error) {
	hex := h.String()
	f, err := os.Open(filepath.Join(r.path, "objects", hex[:2], hex[2:]))
	if err != nil {
		return nil, false, nil
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReaderSize(f, 32<<10))
	if err != nil {
		return nil, true, fmt.Errorf("read object %s: %w", h, err)
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 64)
	header, err := br.ReadString(0)
	if err != nil {
		return nil, true, fmt.Errorf("read object %s header: %w", h, err)
	}
	kind, sizeStr, _ := strings.Cut(strings.TrimSuffix(header, "\x00"), " ")
	size, err := strconv.ParseInt(sizeStr, 10, 64)
	if err != nil || size < 0 || kind != typ.String() {
		return nil, true, fmt.Errorf("object %s is not a %s (header %q)", h, typ, header)
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, true, fmt.Errorf("read object %s: %w", h, err)
	}
	return data, true, nil
}

// writeBlob stores data as a loose blob and returns its hash. It writes the
// object file itself, with zlib's fastest level: state files are appended to
// constantly, and git's default level costs several times more for little
// gain (git gc repacks them anyway).
func (r *repo) writeBlob(data []byte) (plumbing.Hash, error) {
	h := blobHash(data)
	hex := h.String()
	dir := filepath.Join(r.path, "objects", hex[:2])
	final := filepath.Join(dir, hex[2:])
	if _, err := os.Stat(final); err == nil {
		return h, nil
	}
	if r.st.HasEncodedObject(h) == nil { // packed
		return h, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	defer os.Remove(f.Name())
	zw, _ := zlib.NewWriterLevel(f, zlib.BestSpeed)
	_, err = fmt.Fprintf(zw, "blob %d\x00", len(data))
	if err == nil {
		_, err = zw.Write(data)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Chmod(0o444)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob: %w", err)
	}
	return h, nil
}

// blobHash is git's object id of a blob holding data.
func blobHash(data []byte) plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, data)
}

// branchFiles lists every file of branch's head commit as path → entry;
// a branch without commits has none.
func (r *repo) branchFiles(branch string) (map[string]object.TreeEntry, error) {
	head, err := r.head(branch)
	if err != nil {
		return nil, err
	}
	tree, err := r.commitTree(head)
	if err != nil {
		return nil, err
	}
	return r.treeFiles(tree)
}

// treeFiles lists every file under tree as path → entry.
func (r *repo) treeFiles(tree plumbing.Hash) (map[string]object.TreeEntry, error) {
	out := map[string]object.TreeEntry{}
	if tree.IsZero() {
		return out, nil
	}
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		t, err := object.GetTree(r.st, h)
		if err != nil {
			return fmt.Errorf("read tree %s: %w", h, err)
		}
		for _, e := range t.Entries {
			if e.Mode == filemode.Dir {
				if err := walk(e.Hash, prefix+e.Name+"/"); err != nil {
					return err
				}
				continue
			}
			e.Name = prefix + e.Name
			out[e.Name] = e
		}
		return nil
	}
	return out, walk(tree, "")
}

// edit is one path's change: a new blob, or a deletion when del is set.
type edit struct {
	hash plumbing.Hash
	del  bool
}

// editTree applies edits (paths relative to base) to the tree base (zero for
// an empty tree) and returns the new tree's hash. Only the trees on changed
// paths are rewritten; a directory left empty disappears.
func (r *repo) editTree(base plumbing.Hash, edits map[string]edit) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := object.GetTree(r.st, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	subs := map[string]map[string]edit{}
	for p, ed := range edits {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if subs[dir] == nil {
				subs[dir] = map[string]edit{}
			}
			subs[dir][rest] = ed
			continue
		}
		if ed.del {
			delete(entries, p)
		} else {
			entries[p] = object.TreeEntry{Name: p, Mode: filemode.Regular, Hash: ed.hash}
		}
	}
	for dir, sub := range subs {
		var b plumbing.Hash
		if e, ok := entries[dir]; ok && e.Mode == filemode.Dir {
			b = e.Hash
		}
		h, err := r.editTree(b, sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h == emptyTree {
			delete(entries, dir)
		} else {
			entries[dir] = object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h}
		}
	}
	t := &object.Tree{}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	sort.Sort(object.TreeEntrySorter(t.Entries))
	o := r.st.NewEncodedObject()
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	if r.st.HasEncodedObject(o.Hash()) == nil {
		return o.Hash(), nil
	}
	h, err := r.st.SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write tree: %w", err)
	}
	return h, nil
}

// emptyTree is the id of git's empty tree.
var emptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// writeCommit stores a commit object.
func (r *repo) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, msg string, sig object.Signature) (plumbing.Hash, error) {
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	o := r.st.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	h, err := r.st.SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write commit: %w", err)
	}
	return h, nil
}

// ErrRefMoved reports that a branch changed under a compare-and-swap update.
var ErrRefMoved = errors.New("branch moved while planq was writing")

// setBranch points branch at newHash if it still points at old (zero: the
// branch must not exist). It follows git's protocol — create
// refs/heads/<branch>.lock exclusively, write, rename — so it is atomic for
// readers and never races a git process updating the same ref.
func (r *repo) setBranch(ctx context.Context, branch string, newHash, old plumbing.Hash) error {
	name := branchRef(branch)
	path := filepath.Join(r.path, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock := path + ".lock"
	var f *os.File
	for i := 0; ; i++ {
		var err error
		f, err = os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			break
		}
		if !os.IsExist(err) || i >= 200 {
			return fmt.Errorf("update branch %s: %w (if no git process is running, remove %s)", branch, err, lock)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	cur, err := r.head(branch)
	if err != nil {
		return err
	}
	if cur != old {
		return fmt.Errorf("%w: %s is at %s, expected %s", ErrRefMoved, branch, short(cur), short(old))
	}
	if _, err := f.WriteString(newHash.String() + "\n"); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(lock, path); err != nil {
		return err
	}
	done = true
	return nil
}

// deleteBranch removes a branch (loose and packed).
func (r *repo) deleteBranch(branch string) error {
	if err := r.st.RemoveReference(branchRef(branch)); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	return nil
}

// short abbreviates a hash for messages.
func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:10]
}
