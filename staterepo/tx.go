package staterepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo/internal/crash"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// MaxFileSize is the largest state file planq writes (64 MiB). A write that
// would make a file larger is refused before anything is written.
const MaxFileSize = gitstore.MaxFileSize

// ErrTooLarge reports content over a size limit.
var ErrTooLarge = gitstore.ErrTooLarge

// ErrDirtyConflict reports a file that has uncommitted hand edits in the
// worktree while its branch also moved, so planq cannot tell which to keep.
var ErrDirtyConflict = errors.New("uncommitted edits conflict with the branch")

// Tx is one write to a branch: reads see the branch head (or a worktree's
// uncommitted hand edits to that file), writes are staged and become one
// commit when the function passed to update returns nil.
type Tx struct {
	s      *Store
	r      *gitstore.Repo
	branch string
	head   plumbing.Hash
	tree   plumbing.Hash
	wts    []gitstore.Worktree
	idx    map[string]*index.Index   // per worktree admin dir, loaded lazily
	roots  map[string]*gitstore.Root // per worktree admin dir, opened lazily
	// clean records the paths whose worktree copy (in the first worktree)
	// matched the head and its index entry when read, with that content's
	// size: an append to them may be mirrored by appending on disk.
	clean  map[string]int64
	bases  map[string]base // what Read returned for paths not staged yet
	staged map[string]*gitstore.FileChange
	order  []string
	msg    string // overrides the commit message when set
}

// SetMessage replaces the commit message, for writes that only know what
// they did at the end.
func (t *Tx) SetMessage(msg string) { t.msg = msg }

// Branch returns the branch the transaction writes to.
func (t *Tx) Branch() string { return t.branch }

// Head returns the branch's commit when the transaction started (zero for a
// new branch).
func (t *Tx) Head() plumbing.Hash { return t.head }

// Read returns the content of p as this write should build on it: the staged
// content if p was written in this transaction, else the file in a worktree
// that has the branch checked out when it holds hand edits, else the file at
// the branch head. ok is false when the file does not exist.
func (t *Tx) Read(p string) (data []byte, ok bool, err error) {
	if err := validPath(p); err != nil {
		return nil, false, err
	}
	if c, staged := t.staged[p]; staged {
		if c.Del {
			return nil, false, nil
		}
		return c.Data, true, nil
	}
	if b, ok := t.bases[p]; ok {
		return b.data, b.ok, nil
	}
	data, ok, err = t.readBase(p)
	if err == nil {
		t.bases[p] = base{data, ok}
	}
	return data, ok, err
}

// base is a file's content as a transaction first read it.
type base struct {
	data []byte
	ok   bool
}

// readBase reads p's content as the transaction builds on it (see Read).
func (t *Tx) readBase(p string) (data []byte, ok bool, err error) {
	te, inHead, err := t.r.FileEntry(t.tree, p)
	if err != nil {
		return nil, false, err
	}
	if len(t.wts) > 0 {
		data, ok, used, err := t.readWorktree(&t.wts[0], p, te, inHead)
		if err != nil || used {
			return data, ok, err
		}
	}
	if !inHead {
		return nil, false, nil
	}
	data, err = t.r.Blob(te.Hash)
	return data, err == nil, err
}

// readWorktree decides whether the worktree's copy of p is the right base
// (used) and returns it. The worktree copy is used when it is the same as the
// head's (a cheap read), or when it holds hand edits on top of the head. A
// copy that matches an index entry older than the head — a writer died
// between its commit and its worktree update — or that is such a copy with
// an append cut short, is ignored in favour of the head.
func (t *Tx) readWorktree(w *gitstore.Worktree, p string, te object.TreeEntry, inHead bool) (data []byte, ok, used bool, err error) {
	root, err := t.root(w)
	if err != nil {
		return nil, false, false, err
	}
	st, err := root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, false, nil // deleted by hand or never written: build on the head
	}
	if err != nil {
		return nil, false, false, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, false, false, gitstore.LinkError(root.Full(p))
	}
	if !st.Mode().IsRegular() {
		return nil, false, false, fmt.Errorf("%s in %s is not a regular file; move it away", p, w.Path)
	}
	idx, err := t.index(w)
	if err != nil {
		return nil, false, false, err
	}
	if st.Size() > MaxFileSize {
		return nil, false, false, fmt.Errorf("%w: %s in %s is %d bytes (limit %d)", ErrTooLarge, p, w.Path, st.Size(), MaxFileSize)
	}
	ie, _ := idx.Entry(p)
	data, err = root.ReadFile(p)
	if err != nil {
		return nil, false, false, err
	}
	if ie != nil && inHead && ie.Hash == te.Hash && gitstore.StatMatches(ie, st) && int64(len(data)) == st.Size() {
		t.clean[p] = st.Size()
		return data, true, true, nil
	}
	h := gitstore.BlobHash(data)
	switch {
	case inHead && h == te.Hash:
		return data, true, true, nil // unchanged, only stat data moved
	case ie != nil && h == ie.Hash:
		return nil, false, false, nil // stale copy: build on the head
	case ie == nil && !inHead:
		return data, true, true, nil // created by hand: keep it
	case ie != nil && inHead && ie.Hash == te.Hash:
		// Hand edits on top of the head: keep them, unless they drop
		// entries of an append-only file (emptied or rewritten by hand).
		if familyOf(p) != "" {
			head, err := t.r.Blob(te.Hash)
			if err != nil {
				return nil, false, false, err
			}
			if lost := handDropped(head, data); len(lost) > 0 {
				return nil, false, false, dropError(w, p, lost)
			}
		}
		return data, true, true, nil
	case ie != nil && inHead && t.s.cutShort(t.r, data, ie.Hash, te.Hash):
		return nil, false, false, nil // an append cut short: build on the head
	}
	return nil, false, false, conflictError(w, p)
}

// conflictError explains a file whose uncommitted edits are not based on
// the branch's version, with advice that loses neither.
func conflictError(w *gitstore.Worktree, p string) error {
	full := filepath.Join(w.Path, filepath.FromSlash(p))
	return fmt.Errorf("%w: %s has uncommitted edits made on an older version of it, and the branch has a newer one they lack; "+
		"planq will not pick one. Keep both: copy yours aside (cp %s %s.mine), take the branch's (git -C %s checkout HEAD -- %s), then add your edits back",
		ErrDirtyConflict, full, full, full, w.Path, p)
}

// ErrDropsEntries reports a hand-edited log file that lacks entries its
// branch has: committing it would drop them.
var ErrDropsEntries = errors.New("the worktree's copy drops entries")

// handDropped returns the ids of the entries in head that edited lacks,
// in head's order: what committing edited would drop from an append-only
// file. Ids are found as the "id: pq-…" lines planq writes, so an entry a
// hand edit left malformed still counts as kept.
func handDropped(head, edited []byte) []string {
	kept := map[string]bool{}
	for _, id := range entryIDs(edited) {
		kept[id] = true
	}
	var lost []string
	for _, id := range entryIDs(head) {
		if !kept[id] {
			lost = append(lost, id)
		}
	}
	return lost
}

// entryIDs lists the ids of the "id: pq-xxxxxxxx" lines of data.
func entryIDs(data []byte) []string {
	var out []string
	for rest := data; ; {
		i := bytes.Index(rest, []byte("id: pq-"))
		if i < 0 {
			return out
		}
		if (i == 0 && len(rest) == len(data)) || (i > 0 && rest[i-1] == '\n') {
			if end := i + len("id: ") + 11; end <= len(rest) && changelog.ValidID(string(rest[i+4:end])) {
				out = append(out, string(rest[i+4:end]))
			}
		}
		rest = rest[i+1:]
	}
}

// dropError explains a hand edit that would drop entries, with advice
// that keeps both versions.
func dropError(w *gitstore.Worktree, p string, lost []string) error {
	full := filepath.Join(w.Path, filepath.FromSlash(p))
	ids := strings.Join(lost, ", ")
	if len(lost) > 3 {
		ids = fmt.Sprintf("%s and %d more", strings.Join(lost[:3], ", "), len(lost)-3)
	}
	return fmt.Errorf("%w: %s lacks %d entries its branch has (%s): it was emptied or rewritten by hand, and planq will not commit that and drop them. "+
		"Keep both: copy yours aside (cp %s %s.mine), take the branch's back (git -C %s checkout HEAD -- %s), then add what you need from %s.mine; "+
		"to drop those entries on purpose, commit the file yourself (git -C %s commit -m \"drop entries\" -- %s)",
		ErrDropsEntries, full, len(lost), ids, full, full, w.Path, p, full, w.Path, p)
}

// editsInTheWay lists, in path order, the files with uncommitted edits in
// w (made on tree) that a change replacing the paths touches reports would
// overwrite, and which of them were edited on a copy older than tree
// (stale: conflictError explains those).
func editsInTheWay(r *gitstore.Repo, w *gitstore.Worktree, tree plumbing.Hash, touches func(string) bool) (clash, stale []string, err error) {
	dirty, stale, err := r.DirtyPaths(w, tree)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range dirty {
		if touches(p) {
			clash = append(clash, p)
		}
	}
	return clash, stale, nil
}

// index returns w's index, read once per transaction.
func (t *Tx) index(w *gitstore.Worktree) (*index.Index, error) {
	if idx, ok := t.idx[w.Admin]; ok {
		return idx, nil
	}
	idx, err := w.ReadIndex()
	if err != nil {
		return nil, err
	}
	t.idx[w.Admin] = idx
	return idx, nil
}

// root returns w opened for link-safe file access.
func (t *Tx) root(w *gitstore.Worktree) (*gitstore.Root, error) {
	if root, ok := t.roots[w.Admin]; ok {
		return root, nil
	}
	root, err := gitstore.OpenRoot(w.Path)
	if err != nil {
		return nil, err
	}
	t.roots[w.Admin] = root
	return root, nil
}

// close releases the worktree handles.
func (t *Tx) close() {
	for _, root := range t.roots {
		root.Close()
	}
	t.roots = map[string]*gitstore.Root{}
}

// Write stages p's new content.
func (t *Tx) Write(p string, data []byte) error {
	if err := validPath(p); err != nil {
		return err
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("%w: %s would be %d bytes, the limit is %d; move old content to notes/ or artifacts/", ErrTooLarge, p, len(data), MaxFileSize)
	}
	t.stage(&gitstore.FileChange{Path: p, Data: data})
	return nil
}

// Append stages p's content plus extra.
func (t *Tx) Append(p string, extra []byte) error {
	old, _, err := t.Read(p)
	if err != nil {
		return err
	}
	if len(old)+len(extra) > MaxFileSize {
		return fmt.Errorf("%w: %s would be %d bytes, the limit is %d; promote and archive old entries", ErrTooLarge, p, len(old)+len(extra), MaxFileSize)
	}
	data := make([]byte, 0, len(old)+len(extra))
	data = append(append(data, old...), extra...)
	c := &gitstore.FileChange{Path: p, Data: data}
	if size, ok := t.clean[p]; ok && size == int64(len(old)) {
		if _, staged := t.staged[p]; !staged {
			if te, ok, err := t.r.FileEntry(t.tree, p); err == nil && ok {
				c.Base, c.BaseSize = te.Hash, size
			}
		}
	}
	t.stage(c)
	return nil
}

// Delete stages p's removal.
func (t *Tx) Delete(p string) error {
	if err := validPath(p); err != nil {
		return err
	}
	t.stage(&gitstore.FileChange{Path: p, Del: true})
	return nil
}

func (t *Tx) stage(c *gitstore.FileChange) {
	if _, ok := t.staged[c.Path]; !ok {
		t.order = append(t.order, c.Path)
	}
	t.staged[c.Path] = c
}

// Files lists the paths under dir (slash-separated, "" for all) at the
// branch head, with staged writes applied.
func (t *Tx) Files(dir string) ([]string, error) {
	all, err := t.r.TreeFiles(t.tree)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for p := range all {
		set[p] = true
	}
	for p, c := range t.staged {
		set[p] = !c.Del
	}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	var out []string
	for p, ok := range set {
		if ok && (dir == "" || strings.HasPrefix(p, prefix)) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// validPath refuses paths that could escape the state tree.
func validPath(p string) error {
	switch {
	case p == "":
		return errors.New("state path is empty")
	case len(p) > 255:
		return fmt.Errorf("state path %.40q… is %d bytes; use at most 255", p, len(p))
	case strings.HasPrefix(p, "/") || strings.Contains(p, "\\"):
		return fmt.Errorf("state path %q must be relative and use '/'", p)
	case path.Clean(p) != p:
		return fmt.Errorf("state path %q is not clean", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == "." || part == ".." || part == "" || strings.EqualFold(part, ".git") {
			return fmt.Errorf("state path %q has a forbidden component %q", p, part)
		}
		for _, r := range part {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("state path %q contains a control character", p)
			}
		}
	}
	return nil
}

// updateLocked runs fn in a transaction on branch and commits what it
// staged with message msg; the caller holds the store's lock. It returns the
// new commit, or the old head when nothing changed.
func (s *Store) updateLocked(ctx context.Context, branch, msg string, fn func(*Tx) error) (plumbing.Hash, error) {
	r, err := s.openRepo()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	head, tree, err := r.HeadTree(branch)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if head.IsZero() {
		return plumbing.ZeroHash, fmt.Errorf("%w: branch %s does not exist", ErrNoAgent, branch)
	}
	wts, err := gitstore.WorktreesOn(s.Bare, branch)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	t := s.newTx(r, branch, head, tree)
	defer t.close()
	t.wts = wts
	if err := fn(t); err != nil {
		return plumbing.ZeroHash, err
	}
	return t.commit(ctx, msg)
}

// commit writes the staged changes as one commit and mirrors them into the
// worktrees that have the branch checked out. Once the branch has moved the
// write is acknowledged: a worktree that cannot be updated (a stale
// index.lock, a full disk) is left marked for the next write to finish,
// with a warning, and the commit is still returned — failing then would
// make a natural retry record the entry twice.
func (t *Tx) commit(ctx context.Context, msg string) (plumbing.Hash, error) {
	if len(t.staged) == 0 {
		return t.head, nil
	}
	marks := readSyncMarks(t.wts)
	// A link in the way is refused before anything is written.
	for i := range t.wts {
		root, err := t.root(&t.wts[i])
		if err != nil {
			return plumbing.ZeroHash, err
		}
		for _, p := range t.order {
			if err := root.Check(p); err != nil {
				return plumbing.ZeroHash, err
			}
		}
	}
	tree, changes, err := t.buildTree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if tree == t.tree {
		// Nothing changed; still refresh the worktree's stat data.
		if err := t.syncAll(ctx, changes, marks); err != nil {
			t.s.warn(err.Error())
		}
		return t.head, nil
	}
	var parents []plumbing.Hash
	if !t.head.IsZero() {
		parents = []plumbing.Hash{t.head}
	}
	if t.msg != "" {
		msg = t.msg
	}
	h, err := t.r.WriteCommit(tree, parents, msg, t.s.signature())
	if err != nil {
		return plumbing.ZeroHash, err
	}
	crash.Point("objects-written")
	if err := marks.markPending(h); err != nil {
		return plumbing.ZeroHash, err
	}
	crash.Point("marked")
	if err := t.r.UpdateRef(ctx, gitstore.RefUpdate{Name: gitstore.BranchRef(t.branch), New: h, Old: t.head, Msg: "planq: " + msg, Sig: t.s.signature()}); err != nil {
		marks.clearAll()
		return plumbing.ZeroHash, err
	}
	crash.Point("ref-updated")
	if err := t.syncAll(ctx, changes, marks); err != nil {
		t.s.warn(fmt.Sprintf("committed %s on %s, but %v; the next planq write finishes it", gitstore.Short(h), t.branch, err))
	}
	return h, nil
}

// buildTree writes the staged blobs and the trees above them and returns
// the new root tree with the changes to mirror into worktrees.
func (t *Tx) buildTree() (plumbing.Hash, []gitstore.FileChange, error) {
	edits := map[string]gitstore.Edit{}
	var changes []gitstore.FileChange
	for _, p := range t.order {
		c := t.staged[p]
		if c.Del {
			edits[p] = gitstore.Edit{Del: true}
		} else {
			h, err := t.r.WriteBlob(c.Data)
			if err != nil {
				return plumbing.ZeroHash, nil, err
			}
			c.Hash = h
			edits[p] = gitstore.Edit{Hash: h}
		}
		changes = append(changes, *c)
	}
	tree, err := t.r.EditTree(t.tree, edits)
	return tree, changes, err
}

// newTx starts a transaction on a tree without worktrees, for building
// trees (merges, restores) rather than committing to a checked-out branch.
func (s *Store) newTx(r *gitstore.Repo, branch string, head, tree plumbing.Hash) *Tx {
	return &Tx{s: s, r: r, branch: branch, head: head, tree: tree,
		idx: map[string]*index.Index{}, roots: map[string]*gitstore.Root{}, clean: map[string]int64{}, bases: map[string]base{}, staged: map[string]*gitstore.FileChange{}}
}

// syncAll mirrors changes into every worktree that has the branch checked
// out, clearing each one's sync marker once its files and index match.
func (t *Tx) syncAll(ctx context.Context, changes []gitstore.FileChange, marks syncMarks) error {
	var errs []error
	for i := range t.wts {
		w := &t.wts[i]
		cs := changes
		if i > 0 { // the append shortcut is only known for the first worktree
			cs = append([]gitstore.FileChange(nil), changes...)
			for j := range cs {
				cs[j].Base = plumbing.ZeroHash
			}
		}
		root, err := t.root(w)
		if err == nil {
			idx := t.idx[w.Admin]
			if idx == nil {
				idx, err = w.ReadIndex()
			}
			if err == nil {
				err = t.r.WriteWorktree(ctx, w, root, cs, idx)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("updating the worktree %s failed: %w", w.Path, err))
			continue
		}
		marks.clear(i)
	}
	return errors.Join(errs...)
}

// signature is the author and committer of state commits: GIT_AUTHOR_NAME /
// GIT_AUTHOR_EMAIL when set, else "planq agent <name>".
func (s *Store) signature() object.Signature {
	name := s.getenv("GIT_AUTHOR_NAME")
	if name == "" {
		name = "planq agent " + s.Agent
	}
	email := s.getenv("GIT_AUTHOR_EMAIL")
	if email == "" {
		email = s.Agent + "@planq.invalid"
	}
	return object.Signature{Name: name, Email: email, When: s.now()}
}

// Update runs fn as one commit, with message msg, on the current agent's
// branch, creating the state repo, the branch and this code repo's worktree
// first when they do not exist. It holds the store's lock throughout.
func (s *Store) Update(ctx context.Context, msg string, fn func(*Tx) error) (plumbing.Hash, error) {
	h, err := s.update(ctx, msg, fn)
	if err == nil {
		s.AutoMaintain()
	}
	return h, err
}

func (s *Store) update(ctx context.Context, msg string, fn func(*Tx) error) (plumbing.Hash, error) {
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer lk.Release()
	if err := s.ensureAgentLocked(ctx, s.Agent); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.updateLocked(ctx, s.Branch(), msg, fn)
}
