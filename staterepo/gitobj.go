package staterepo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// repo is a bare repository opened for plumbing work: objects and refs,
// without a worktree. It reads and writes them itself, in git's formats and
// with git's locking protocol — loose objects (fsynced before any ref names
// them), packs (see packSet), loose and packed refs, reflogs — and gives
// go-git an object store (objStore) for decoding commits and trees and for
// history walks. Every object read that misses looks at the object
// directory afresh once, because maintenance in another process may have
// moved loose objects into a new pack or replaced packs meanwhile.
type repo struct {
	path  string
	packs *packSet
	warn  func(string)

	mu   sync.Mutex
	dirs map[string]bool // object directories written since the last syncObjects
}

// openRepo opens the bare repository at path.
func openRepo(path string) (*repo, error) {
	if _, err := os.Stat(filepath.Join(path, "HEAD")); err != nil {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNotInitialized, path)
	}
	return &repo{path: path, packs: &packSet{dir: filepath.Join(path, "objects", "pack")}, warn: func(string) {}, dirs: map[string]bool{}}, nil
}

// openRepo opens the store's bare repo, reporting warnings through the store.
func (s *Store) openRepo() (*repo, error) {
	r, err := openRepo(s.Bare)
	if err != nil {
		return nil, err
	}
	r.warn = s.warn
	return r, nil
}

// storage returns a go-git storage of the repo, for the transports (fetch
// and push), which need all of go-git's storer interfaces.
func (r *repo) storage() *filesystem.Storage {
	return filesystem.NewStorage(osfs.New(r.path), cache.NewObjectLRUDefault())
}

// objects returns the object store go-git decodes and walks through.
func (r *repo) objects() objStore { return objStore{r} }

// ErrDamaged reports a damaged object or ref file; the message names it.
var ErrDamaged = errors.New("damaged")

// looseName returns the path of h's loose object file.
func (r *repo) looseName(h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(r.path, "objects", hex[:2], hex[2:])
}

// object reads any object: its loose file, else its copy in a pack; when
// neither has it, the pack list is read again and both are tried once more.
func (r *repo) object(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	for attempt := 0; ; attempt++ {
		typ, data, ok, err := r.readLoose(h)
		if ok || err != nil {
			return typ, data, err
		}
		p, off, err := r.packs.find(h)
		if err == nil && p != nil {
			typ, data, err = r.packs.read(p, off, r.object)
			if err == nil {
				return typ, data, nil
			}
		}
		if attempt > 0 {
			if err != nil {
				return 0, nil, fmt.Errorf("object %s: %w", h, err)
			}
			return 0, nil, fmt.Errorf("object %s is missing from %s (no file %s, and no pack holds it): %w; `git -C %s fsck` lists what is missing",
				h, r.path, r.looseName(h), plumbing.ErrObjectNotFound, r.path)
		}
		if err := r.packs.scan(); err != nil {
			return 0, nil, err
		}
	}
}

// readLoose reads h's loose object file; ok is false when there is none.
func (r *repo) readLoose(h plumbing.Hash) (typ plumbing.ObjectType, data []byte, ok bool, err error) {
	path := r.looseName(h)
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, false, nil
	}
	defer f.Close()
	damaged := func(err error) error {
		return fmt.Errorf("object %s: %w file %s: %v; move it away, then `git -C %s fsck` says what is missing", h, ErrDamaged, path, err, r.path)
	}
	zr, err := zlib.NewReader(bufio.NewReaderSize(f, 32<<10))
	if err != nil {
		return 0, nil, true, damaged(err)
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 64)
	header, err := br.ReadString(0)
	if err != nil {
		return 0, nil, true, damaged(err)
	}
	kind, sizeStr, _ := strings.Cut(strings.TrimSuffix(header, "\x00"), " ")
	size, err := strconv.ParseInt(sizeStr, 10, 64)
	if err != nil || size < 0 || size > packMaxObj {
		return 0, nil, true, damaged(fmt.Errorf("bad header %q", header))
	}
	if typ, err = plumbing.ParseObjectType(kind); err != nil || typ.IsDelta() {
		return 0, nil, true, damaged(fmt.Errorf("bad header %q", header))
	}
	data = make([]byte, size)
	if _, err := io.ReadFull(br, data); err != nil {
		return 0, nil, true, damaged(err)
	}
	return typ, data, true, nil
}

// typed reads h and checks that it is an object of type want.
func (r *repo) typed(h plumbing.Hash, want plumbing.ObjectType) ([]byte, error) {
	typ, data, err := r.object(h)
	if err != nil {
		return nil, err
	}
	if typ != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, typ, want)
	}
	return data, nil
}

// has reports whether h is in the repo, loose or packed.
func (r *repo) has(h plumbing.Hash) bool {
	_, _, err := r.object(h)
	return err == nil
}

// blob reads a blob's content.
func (r *repo) blob(h plumbing.Hash) ([]byte, error) { return r.typed(h, plumbing.BlobObject) }

// memObject wraps data for go-git's decoders.
func memObject(typ plumbing.ObjectType, data []byte) *plumbing.MemoryObject {
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.SetSize(int64(len(data)))
	_, _ = o.Write(data)
	return o
}

// commit reads a commit object.
func (r *repo) commit(h plumbing.Hash) (*object.Commit, error) {
	data, err := r.typed(h, plumbing.CommitObject)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", short(h), err)
	}
	c, err := object.DecodeCommit(r.objects(), memObject(plumbing.CommitObject, data))
	if err != nil {
		return nil, fmt.Errorf("decode commit %s: %w", h, err)
	}
	return c, nil
}

// tree reads a tree object.
func (r *repo) tree(h plumbing.Hash) (*object.Tree, error) {
	data, err := r.typed(h, plumbing.TreeObject)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", short(h), err)
	}
	t, err := object.DecodeTree(r.objects(), memObject(plumbing.TreeObject, data))
	if err != nil {
		return nil, fmt.Errorf("decode tree %s: %w", h, err)
	}
	return t, nil
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
		t, err := r.tree(tree)
		if err != nil {
			return e, false, err
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

// writeObject stores an object as a loose file: compressed with zlib's
// fastest level (state files are appended to constantly, and maintenance
// packs them with deltas anyway), written to a temporary file, fsynced and
// renamed into place. An object already stored loose is freshened instead
// (its time set to now), as git does, so that maintenance's expiry of
// unreachable objects cannot remove it before the ref that will name it is
// written; one only in a pack is written loose again for the same reason.
func (r *repo) writeObject(typ plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(typ, data)
	final := r.looseName(h)
	dir := filepath.Dir(final)
	if st, err := os.Stat(final); err == nil && st.Size() > 0 {
		now := time.Now()
		_ = os.Chtimes(final, now, now)
		return h, nil
	}
	// Maintenance removes fan-out directories it emptied; create it again
	// when it vanishes in between, as git does.
	var f *os.File
	var err error
	for range 5 {
		if err = os.MkdirAll(dir, 0o755); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("write object: %w", err)
		}
		if f, err = os.CreateTemp(dir, "tmp_obj_"); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write object: %w", err)
	}
	defer os.Remove(f.Name())
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	zw.Reset(f)
	_, err = fmt.Fprintf(zw, "%s %d\x00", typ, len(data))
	if err == nil {
		_, err = zw.Write(data)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = f.Chmod(0o444)
	}
	crashPoint("object-tmp")
	if err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write object %s: %w", final, err)
	}
	r.mu.Lock()
	r.dirs[dir] = true
	r.mu.Unlock()
	return h, nil
}

// zlibWriters reuses compressors: setting one up costs more than
// compressing a segment.
var zlibWriters = sync.Pool{New: func() any {
	zw, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	return zw
}}

// syncObjects fsyncs the directories of the objects written so far, so the
// names of those objects survive a crash of the machine before a ref that
// points at them is written.
func (r *repo) syncObjects() error {
	r.mu.Lock()
	dirs := r.dirs
	r.dirs = map[string]bool{}
	r.mu.Unlock()
	for d := range dirs {
		// A directory maintenance removed held only objects it had packed
		// (and fsynced) already.
		if err := syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("sync %s: %w", d, err)
		}
	}
	return nil
}

// writeBlob stores data as a blob and returns its hash.
func (r *repo) writeBlob(data []byte) (plumbing.Hash, error) {
	return r.writeObject(plumbing.BlobObject, data)
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
		t, err := r.tree(h)
		if err != nil {
			return err
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
		t, err := r.tree(base)
		if err != nil {
			return plumbing.ZeroHash, err
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
	o := &plumbing.MemoryObject{}
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	if o.Hash() == emptyTree {
		return emptyTree, nil
	}
	return r.writeObject(plumbing.TreeObject, objectBytes(o))
}

// emptyTree is the id of git's empty tree.
var emptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// writeCommit stores a commit object.
func (r *repo) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, msg string, sig object.Signature) (plumbing.Hash, error) {
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	o := &plumbing.MemoryObject{}
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	return r.writeObject(plumbing.CommitObject, objectBytes(o))
}

// objectBytes returns an encoded in-memory object's content.
func objectBytes(o *plumbing.MemoryObject) []byte {
	rd, _ := o.Reader()
	data, _ := io.ReadAll(rd)
	return data
}

// short abbreviates a hash for messages.
func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:10]
}

// objStore is the repo as a go-git object storer: reads go through
// repo.object (loose files, packs, a fresh look on a miss), writes through
// repo.writeObject. Listing every object is not supported.
type objStore struct{ r *repo }

var _ storer.EncodedObjectStorer = objStore{}

func (o objStore) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (o objStore) SetEncodedObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	rd, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer rd.Close()
	data, err := io.ReadAll(rd)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return o.r.writeObject(obj.Type(), data)
}

func (o objStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, err := o.r.object(h)
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && typ != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return memObject(typ, data), nil
}

func (o objStore) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errors.New("staterepo: listing every object is not supported")
}

func (o objStore) HasEncodedObject(h plumbing.Hash) error {
	if o.r.has(h) {
		return nil
	}
	return plumbing.ErrObjectNotFound
}

func (o objStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	_, data, err := o.r.object(h)
	return int64(len(data)), err
}

func (o objStore) AddAlternate(string) error {
	return errors.New("staterepo: alternates are not supported")
}

// errorIs is errors.Is for fs errors that os may wrap differently.
func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// ctxSleep waits d or until ctx is done.
func ctxSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// cleanBytes is bytes.TrimSpace as a string.
func cleanBytes(b []byte) string { return string(bytes.TrimSpace(b)) }
