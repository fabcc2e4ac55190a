// Package gitstore is the state repo's git plumbing: a bare repository's
// objects, refs and linked worktrees, read and written by planq itself in
// git's formats and with git's locking protocol, so that git's own commands
// (fsck, log, worktree list, a hand commit in the worktree) keep working
// beside it. It knows nothing of log entries, checkpoints or the context
// summary; package staterepo builds those on it, as go-git's porcelain
// builds on its plumbing.
//
//   - objects.go: loose objects (written by hand, fsynced before a ref
//     names them), trees and commits, and the object store go-git decodes
//     through;
//   - pack.go: packs, searched in place;
//   - refs.go: loose and packed refs and reflogs, updated under git's ref
//     lock;
//   - lockfile.go: git's lock-file protocol and the rule for stale lock
//     files;
//   - worktree.go: linked worktrees — their registration, index and
//     checkout;
//   - root.go: a worktree's files, read and written without following
//     links.
package gitstore

import (
	"bufio"
	"compress/zlib"
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

	"github.com/planq-dev/planq/staterepo/internal/crash"
)

// Repo is a bare repository opened for plumbing work: objects and refs,
// without a worktree. It reads and writes them itself, in git's formats and
// with git's locking protocol — loose objects (fsynced before any ref names
// them), packs (see packSet), loose and packed refs, reflogs — and gives
// go-git an object store (objStore) for decoding commits and trees and for
// history walks. Every object read that misses looks at the object
// directory afresh once, because maintenance in another process may have
// moved loose objects into a new pack or replaced packs meanwhile. A Repo is
// safe for concurrent use: readers in parallel goroutines share its packs.
type Repo struct {
	path  string       // the bare repository's directory
	packs *packSet     // has its own lock
	warn  func(string) // receives what a person should know (a stale lock removed)

	// mu guards dirs only: WriteObject adds to it from any goroutine and
	// syncObjects takes it whole. Everything else above is set by Open and
	// never changes.
	mu   sync.Mutex
	dirs map[string]bool // object directories written since the last syncObjects
}

// Open opens the bare repository at path; warn (nil: none) receives what a
// person should know about an operation that succeeded, such as a stale
// lock file removed. It fails when path has no HEAD.
func Open(path string, warn func(string)) (*Repo, error) {
	if _, err := os.Stat(filepath.Join(path, "HEAD")); err != nil {
		return nil, fmt.Errorf("open the git repository %s: %w", path, err)
	}
	if warn == nil {
		warn = func(string) {}
	}
	return &Repo{path: path, packs: &packSet{dir: filepath.Join(path, "objects", "pack")}, warn: warn, dirs: map[string]bool{}}, nil
}

// Path returns the bare repository's directory.
func (r *Repo) Path() string { return r.path }

// Storage returns a go-git storage of the repo, for the transports (fetch
// and push), which need all of go-git's storer interfaces.
func (r *Repo) Storage() *filesystem.Storage {
	return filesystem.NewStorage(osfs.New(r.path), cache.NewObjectLRUDefault())
}

// objects returns the object store go-git decodes and walks through.
func (r *Repo) objects() objStore { return objStore{r} }

// ErrDamaged reports a damaged object or ref file; the message names it.
var ErrDamaged = errors.New("damaged")

// looseName returns the path of h's loose object file.
func (r *Repo) looseName(h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(r.path, "objects", hex[:2], hex[2:])
}

// object reads any object: its loose file, else its copy in a pack; when
// neither has it, the pack list is read again and both are tried once more.
func (r *Repo) object(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
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
func (r *Repo) readLoose(h plumbing.Hash) (typ plumbing.ObjectType, data []byte, ok bool, err error) {
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
func (r *Repo) typed(h plumbing.Hash, want plumbing.ObjectType) ([]byte, error) {
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
func (r *Repo) has(h plumbing.Hash) bool {
	_, _, err := r.object(h)
	return err == nil
}

// Blob reads a blob's content.
func (r *Repo) Blob(h plumbing.Hash) ([]byte, error) { return r.typed(h, plumbing.BlobObject) }

// memObject wraps data for go-git's decoders.
func memObject(typ plumbing.ObjectType, data []byte) *plumbing.MemoryObject {
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.SetSize(int64(len(data)))
	_, _ = o.Write(data)
	return o
}

// Commit reads a commit object.
func (r *Repo) Commit(h plumbing.Hash) (*object.Commit, error) {
	return decodeObject(r, h, plumbing.CommitObject, object.DecodeCommit)
}

// Relation is how a branch's commit stands to another of the same branch
// (its remote's, say).
type Relation int

// The relations Compare tells apart.
const (
	Same     Relation = iota // the same commit
	Ahead                    // the other is an ancestor: ours has more
	Behind                   // ours is an ancestor of the other
	Diverged                 // neither is an ancestor of the other
)

// Compare says how ours stands to theirs; it is the one ahead/behind rule
// of push, pull and status.
func (r *Repo) Compare(ours, theirs plumbing.Hash) (Relation, error) {
	if ours == theirs {
		return Same, nil
	}
	oc, err := r.Commit(ours)
	if err != nil {
		return 0, err
	}
	tc, err := r.Commit(theirs)
	if err != nil {
		return 0, err
	}
	if ok, err := tc.IsAncestor(oc); err != nil || ok {
		return Ahead, err
	}
	if ok, err := oc.IsAncestor(tc); err != nil || ok {
		return Behind, err
	}
	return Diverged, nil
}

// Tree reads a tree object.
func (r *Repo) Tree(h plumbing.Hash) (*object.Tree, error) {
	return decodeObject(r, h, plumbing.TreeObject, object.DecodeTree)
}

// decodeObject reads h, which must be of type typ, and decodes it with
// go-git's decoder for that type, on the repo's object store (so a decoded
// commit can walk its history).
func decodeObject[T any](r *Repo, h plumbing.Hash, typ plumbing.ObjectType, decode func(storer.EncodedObjectStorer, plumbing.EncodedObject) (T, error)) (T, error) {
	var zero T
	data, err := r.typed(h, typ)
	if err != nil {
		return zero, fmt.Errorf("read %s %s: %w", typ, Short(h), err)
	}
	v, err := decode(r.objects(), memObject(typ, data))
	if err != nil {
		return zero, fmt.Errorf("decode %s %s: %w", typ, h, err)
	}
	return v, nil
}

// Complete reports whether commit h can be checked out: the commit and
// its trees read, and every blob they name is stored.
func (r *Repo) Complete(h plumbing.Hash) error {
	tree, err := r.CommitTree(h)
	if err != nil {
		return err
	}
	files, err := r.TreeFiles(tree)
	if err != nil {
		return err
	}
	for p, e := range files {
		if !r.present(e.Hash) {
			return fmt.Errorf("blob %s (%s) of commit %s is missing: %w", Short(e.Hash), p, Short(h), plumbing.ErrObjectNotFound)
		}
	}
	return nil
}

// CommitTree returns the tree hash of a commit, or the zero hash for the
// zero commit.
func (r *Repo) CommitTree(h plumbing.Hash) (plumbing.Hash, error) {
	if h.IsZero() {
		return plumbing.ZeroHash, nil
	}
	c, err := r.Commit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// FileEntry finds path in tree; ok is false when it is missing.
func (r *Repo) FileEntry(tree plumbing.Hash, path string) (e object.TreeEntry, ok bool, err error) {
	if tree.IsZero() {
		return e, false, nil
	}
	for {
		t, err := r.Tree(tree)
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

// ReadFile returns the content of path in tree; ok is false when missing.
func (r *Repo) ReadFile(tree plumbing.Hash, path string) (data []byte, ok bool, err error) {
	e, ok, err := r.FileEntry(tree, path)
	if err != nil || !ok || e.Mode == filemode.Dir {
		return nil, false, err
	}
	data, err = r.Blob(e.Hash)
	return data, err == nil, err
}

// writeObject stores an object as a loose file: compressed with zlib's
// fastest level (state files are appended to constantly, and maintenance
// packs them with deltas anyway), written to a temporary file, fsynced and
// renamed into place. An object already stored loose is freshened instead
// (its time set to now), as git does, so that maintenance's expiry of
// unreachable objects cannot remove it before the ref that will name it is
// written; one only in a pack is written loose again for the same reason.
func (r *Repo) writeObject(typ plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
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
	crash.Point("object-tmp")
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
func (r *Repo) syncObjects() error {
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

// WriteBlob stores data as a loose blob (see writeObject) and returns its
// hash.
func (r *Repo) WriteBlob(data []byte) (plumbing.Hash, error) {
	return r.writeObject(plumbing.BlobObject, data)
}

// BlobHash is git's object id of a blob holding data.
func BlobHash(data []byte) plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, data)
}

// BranchFiles lists every file of branch's head commit as path → entry;
// a branch without commits has none.
func (r *Repo) BranchFiles(branch string) (map[string]object.TreeEntry, error) {
	_, tree, err := r.HeadTree(branch)
	if err != nil {
		return nil, err
	}
	return r.TreeFiles(tree)
}

// TreeFiles lists every file under tree as path → entry.
func (r *Repo) TreeFiles(tree plumbing.Hash) (map[string]object.TreeEntry, error) {
	out := map[string]object.TreeEntry{}
	if tree.IsZero() {
		return out, nil
	}
	var walk func(h plumbing.Hash, prefix string) error
	walk = func(h plumbing.Hash, prefix string) error {
		t, err := r.Tree(h)
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

// Edit is one path's change: a new blob, or a deletion when Del is set.
type Edit struct {
	Hash plumbing.Hash // the new content's blob
	Del  bool          // delete the path instead
}

// EditTree applies edits (paths relative to base) to the tree base (zero for
// an empty tree) and returns the new tree's hash. Only the trees on changed
// paths are rewritten; a directory left empty disappears.
func (r *Repo) EditTree(base plumbing.Hash, edits map[string]Edit) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := r.Tree(base)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	subs := map[string]map[string]Edit{}
	for p, ed := range edits {
		if dir, rest, ok := strings.Cut(p, "/"); ok {
			if subs[dir] == nil {
				subs[dir] = map[string]Edit{}
			}
			subs[dir][rest] = ed
			continue
		}
		if ed.Del {
			delete(entries, p)
		} else {
			entries[p] = object.TreeEntry{Name: p, Mode: filemode.Regular, Hash: ed.Hash}
		}
	}
	for dir, sub := range subs {
		var b plumbing.Hash
		if e, ok := entries[dir]; ok && e.Mode == filemode.Dir {
			b = e.Hash
		}
		h, err := r.EditTree(b, sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h == EmptyTree {
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
	if o.Hash() == EmptyTree {
		return EmptyTree, nil
	}
	return r.writeObject(plumbing.TreeObject, objectBytes(o))
}

// EmptyTree is the id of git's empty tree.
var EmptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// WriteCommit stores a commit object with sig as author and committer.
func (r *Repo) WriteCommit(tree plumbing.Hash, parents []plumbing.Hash, msg string, sig object.Signature) (plumbing.Hash, error) {
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

// Short abbreviates a hash for messages.
func Short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:10]
}

// objStore is the repo as a go-git object storer: reads go through
// Repo.object (loose files, packs, a fresh look on a miss), writes through
// Repo.writeObject. Listing every object is not supported.
type objStore struct{ r *Repo }

var _ storer.EncodedObjectStorer = objStore{}

// NewEncodedObject returns an empty in-memory object.
func (o objStore) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

// SetEncodedObject writes obj as a loose object.
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

// EncodedObject reads object h, which must be of type t unless t is AnyObject.
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

// IterEncodedObjects is not supported: planq never lists every object.
func (o objStore) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errors.New("gitstore: listing every object is not supported")
}

// HasEncodedObject reports plumbing.ErrObjectNotFound unless h is stored.
func (o objStore) HasEncodedObject(h plumbing.Hash) error {
	if o.r.has(h) {
		return nil
	}
	return plumbing.ErrObjectNotFound
}

// EncodedObjectSize returns the size of object h's content.
func (o objStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	_, data, err := o.r.object(h)
	return int64(len(data)), err
}

// AddAlternate is not supported.
func (o objStore) AddAlternate(string) error {
	return errors.New("gitstore: alternates are not supported")
}
