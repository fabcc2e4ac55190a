package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"container/heap"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// What Check finds wrong with a repository, by kind.
const (
	ProblemRef        = "ref"         // a loose ref file that holds no commit id
	ProblemPackedRefs = "packed-refs" // a line of packed-refs git cannot read
	ProblemPack       = "pack"        // a pack without its index or the other way round, or a damaged one
	ProblemObject     = "object"      // an object file that does not decompress or hash to its name
	ProblemMissing    = "missing"     // an object a ref reaches that the repo lacks
)

// Problem is one thing Check found wrong.
type Problem struct {
	Kind   string        // one of the Problem* kinds
	Ref    string        // the ref concerned (ProblemRef, and the ref an object was reached from)
	Object plumbing.Hash // the object concerned (ProblemObject, ProblemMissing)
	Type   string        // what the missing object was to be: commit, tree or blob
	File   string        // the file on disk concerned
	Line   int           // packed-refs: the line
	Detail string        // what is wrong, in one line
}

// CheckResult is what Check found, and how far it got.
type CheckResult struct {
	Problems []Problem
	Complete bool // false: the deadline passed before every object was checked
	Objects  int  // objects whose presence or content was checked
}

// Check looks for what `git fsck` would find, within ctx: damaged ref files
// and packed-refs lines, packs without their index (or indexes without
// their pack) and packs whose checksum does not match, loose objects that
// do not decompress or hash to their name, and objects that a ref reaches
// but the repo lacks or cannot read (commits and trees are read; blobs are
// looked up). It writes only VerifiedPacksFile, so that a pack is hashed
// whole once, not at every check, while it stays the same. The refs and
// their newest history are checked first, so the deadline of a big repo
// cuts off the oldest history.
func (r *Repo) Check(ctx context.Context) CheckResult {
	c := &checker{r: r, ctx: ctx, was: readCheckRecord(r.path), rec: newCheckRecord()}
	c.packedRefs()
	roots := c.looseRefs()
	c.packs()
	c.loose()
	c.walk(roots)
	c.res.Complete = ctx.Err() == nil
	if !c.rec.equal(c.was) {
		_ = c.rec.write(r.path) // a cache: without it, the next check hashes and walks again
	}
	return c.res
}

type checker struct {
	r   *Repo
	ctx context.Context
	res CheckResult
	n   int
	// was is the record of the last check (VerifiedPacksFile), rec this
	// one's; packDamage says a pack problem was found.
	was, rec   checkRecord
	packDamage bool
}

func (c *checker) add(p Problem) { c.res.Problems = append(c.res.Problems, p) }

// done reports, every so often, whether the deadline has passed.
func (c *checker) done() bool {
	c.n++
	return c.n%64 == 0 && c.ctx.Err() != nil
}

// packedRefs reports the lines of packed-refs that are not refs.
func (c *checker) packedRefs() {
	path := filepath.Join(c.r.path, "packed-refs")
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	for i, line := range strings.Split(string(data), "\n") {
		if ok, _, _ := packedLine(line); !ok {
			c.add(Problem{Kind: ProblemPackedRefs, File: path, Line: i + 1, Detail: fmt.Sprintf("line %d is not a ref: %.60q", i+1, line)})
		}
	}
}

// packedLine parses one line of packed-refs: ok is false for a line git
// would refuse; name is "" for lines that are not refs (the header, a
// peeled "^" line, the empty last line).
func packedLine(line string) (ok bool, name string, h plumbing.Hash) {
	line = strings.TrimSuffix(line, "\r")
	switch {
	case line == "", strings.HasPrefix(line, "# pack-refs"):
		return true, "", h
	case strings.HasPrefix(line, "^"):
		return plumbing.IsHash(line[1:]), "", h
	}
	hexID, name, found := strings.Cut(line, " ")
	if !found || !plumbing.IsHash(hexID) || !strings.HasPrefix(name, "refs/") || strings.ContainsAny(name, " \t\x00") {
		return false, "", h
	}
	return true, name, plumbing.NewHash(hexID)
}

// root is an object a ref names, to walk from.
type root struct {
	ref string
	h   plumbing.Hash
}

// looseRefs reports damaged loose ref files and returns every ref as a
// root: branches first, then the others (archives, remote-tracking refs).
func (c *checker) looseRefs() []root {
	var roots []root
	packed, _ := c.r.packedRefs() // damage was reported above
	names := map[string]bool{}
	for n := range packed {
		names[n] = true
	}
	loose, _ := c.r.looseRefs("refs/")
	for _, n := range loose {
		names[n] = true
	}
	for _, n := range sortedNames(names) {
		h, ok, err := c.r.ReadRef(n)
		if err != nil {
			if errors.Is(err, ErrDamaged) && !strings.Contains(err.Error(), "packed-refs") {
				c.add(Problem{Kind: ProblemRef, Ref: n, File: c.r.refPath(n), Detail: err.Error()})
			}
			continue
		}
		if ok {
			roots = append(roots, root{n, h})
		}
	}
	sort.SliceStable(roots, func(i, j int) bool {
		return strings.HasPrefix(roots[i].ref, "refs/heads/") && !strings.HasPrefix(roots[j].ref, "refs/heads/")
	})
	return roots
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// packs reports packs without their index and indexes without their pack,
// and checks each pack's trailer against its index and, while time allows,
// its whole checksum.
func (c *checker) packs() {
	dir := filepath.Join(c.r.path, "objects", "pack")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	have := map[string]bool{}
	for _, e := range ents {
		have[e.Name()] = true
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "pack-") {
			continue // temporary files of a running or killed repack
		}
		if base, ok := strings.CutSuffix(name, ".idx"); ok && !have[base+".pack"] {
			c.add(Problem{Kind: ProblemPack, File: filepath.Join(dir, name), Detail: name + " has no " + base + ".pack: the pack was deleted or moved, and the objects only it held are gone"})
		}
		base, ok := strings.CutSuffix(name, ".pack")
		if !ok {
			continue
		}
		if !have[base+".idx"] {
			c.add(Problem{Kind: ProblemPack, File: filepath.Join(dir, name), Detail: name + " has no index (" + base + ".idx); git and planq cannot read it"})
			continue
		}
		stamp, hashed, err := c.verifyPack(filepath.Join(dir, base), c.was.packs[name])
		switch {
		case err != nil:
			c.add(Problem{Kind: ProblemPack, File: filepath.Join(dir, name), Detail: err.Error()})
		case hashed:
			c.rec.packs[name] = stamp
		}
	}
	for _, p := range c.res.Problems {
		c.packDamage = c.packDamage || p.Kind == ProblemPack
	}
}

// verifyPack compares a pack's trailer with the checksum its index
// records, then (time allowing) hashes the whole pack, unless it is the
// file last hashed (last, from VerifiedPacksFile). hashed says the whole
// content was hashed now or is that file; stamp is then what to remember.
func (c *checker) verifyPack(base string, last packStamp) (stamp packStamp, hashed bool, err error) {
	idx, err := os.ReadFile(base + ".idx")
	if err != nil {
		return stamp, false, err
	}
	if len(idx) < idxNames+40 || string(idx[:4]) != idxMagic {
		return stamp, false, fmt.Errorf("%s.idx is damaged (not a version 2 pack index)", filepath.Base(base))
	}
	if sum := sha1.Sum(idx[:len(idx)-20]); !bytes.Equal(sum[:], idx[len(idx)-20:]) {
		return stamp, false, fmt.Errorf("%s.idx is damaged (its checksum does not match)", filepath.Base(base))
	}
	want := idx[len(idx)-40 : len(idx)-20]
	f, err := os.Open(base + ".pack")
	if err != nil {
		return stamp, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return stamp, false, err
	}
	if st.Size() < 32 {
		return stamp, false, fmt.Errorf("%s.pack is damaged (%d bytes)", filepath.Base(base), st.Size())
	}
	trailer := make([]byte, 20)
	if _, err := f.ReadAt(trailer, st.Size()-20); err != nil || !bytes.Equal(trailer, want) {
		return stamp, false, fmt.Errorf("%s.pack does not match its index (cut short or replaced)", filepath.Base(base))
	}
	now := time.Now()
	if stamp = stampOf(st, now); last.same(stamp, now) {
		return last, true, nil
	}
	h := sha1.New()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < st.Size()-20; {
		if c.ctx.Err() != nil {
			return stamp, false, nil // out of time: the trailer matched
		}
		n, err := f.ReadAt(buf[:min(int64(len(buf)), st.Size()-20-off)], off)
		h.Write(buf[:n])
		off += int64(n)
		if err != nil && !errors.Is(err, io.EOF) {
			return stamp, false, err
		}
	}
	if !bytes.Equal(h.Sum(nil), want) {
		return stamp, false, fmt.Errorf("%s.pack is damaged (its content does not match its checksum)", filepath.Base(base))
	}
	return stamp, true, nil
}

// loose checks that every loose object decompresses and hashes to its
// name.
func (c *checker) loose() {
	EachLoose(c.r.path, func(id, path string, _ fs.DirEntry) bool {
		if c.done() {
			return false
		}
		h := plumbing.NewHash(id)
		if h.String() != id {
			return true // not hex: not an object
		}
		c.res.Objects++
		if err := verifyLoose(path, h); err != nil {
			c.add(Problem{Kind: ProblemObject, Object: h, File: path, Detail: err.Error()})
		}
		return true
	})
}

// EachLoose calls fn with the id, path and directory entry of each loose
// object file of the repository at bare (objects/xx/<38 characters>),
// until fn returns false.
func EachLoose(bare string, fn func(id, path string, e fs.DirEntry) bool) {
	objects := filepath.Join(bare, "objects")
	dirs, _ := os.ReadDir(objects)
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		ents, _ := os.ReadDir(filepath.Join(objects, d.Name()))
		for _, e := range ents {
			if len(e.Name()) == 38 && !fn(d.Name()+e.Name(), filepath.Join(objects, d.Name(), e.Name()), e) {
				return
			}
		}
	}
}

// verifyLoose decompresses a loose object file and checks its hash.
func verifyLoose(path string, want plumbing.Hash) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("does not decompress: %v", err)
	}
	h := sha1.New()
	if _, err := io.Copy(h, zr); err != nil {
		return fmt.Errorf("does not decompress: %v", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want.String() {
		return fmt.Errorf("its content hashes to %s, not to its name", got[:10])
	}
	return nil
}

// present reports whether h is stored, loose or packed, without reading it.
func (r *Repo) present(h plumbing.Hash) bool {
	if st, err := os.Stat(r.looseName(h)); err == nil && st.Size() > 0 {
		return true
	}
	return r.Packed(h)
}

// walk reads every commit and tree the roots reach and looks up every
// blob, newest history first. A root the last check found complete in
// packs that are all still here and sound (VerifiedPacksFile) is skipped;
// a root found complete in packs now is remembered, once every root is
// walked. An object reached from several roots is counted to the first.
func (c *checker) walk(roots []root) {
	seen := map[plumbing.Hash]bool{}
	dirty := map[string]bool{} // roots that reach a loose or missing object
	var walked []root
	for _, rt := range roots {
		if w, ok := c.was.refs[rt.ref]; ok && w.commit == rt.h && c.soundSet(c.was.sets[w.set]) {
			c.rec.refs[rt.ref], c.rec.sets[w.set] = w, c.was.sets[w.set]
			continue
		}
		walked = append(walked, rt)
	}
	roots = walked
	defer func() {
		if c.ctx.Err() != nil || c.packDamage {
			return
		}
		packs := slices.Sorted(maps.Keys(c.rec.packs))
		id := setID(packs)
		for _, rt := range roots {
			if !dirty[rt.ref] {
				c.rec.refs[rt.ref], c.rec.sets[id] = refWalked{commit: rt.h, set: id}, packs
			}
		}
	}()
	type item struct {
		ref  string
		h    plumbing.Hash
		typ  string
		when time.Time
	}
	commits := &byTime[item]{when: func(it item) time.Time { return it.when }} // newest first
	var trees []item
	push := func(it item) {
		if seen[it.h] {
			return
		}
		seen[it.h] = true
		if it.typ == "tree" {
			trees = append(trees, it)
			return
		}
		heap.Push(commits, it)
	}
	missing := func(it item, err error) {
		dirty[it.ref] = true
		p := Problem{Kind: ProblemMissing, Ref: it.ref, Object: it.h, Type: it.typ, Detail: fmt.Sprintf("%s %s, which %s reaches, is missing", it.typ, Short(it.h), it.ref)}
		if errors.Is(err, ErrDamaged) || (err != nil && !errors.Is(err, plumbing.ErrObjectNotFound)) {
			p.Kind, p.Detail = ProblemObject, fmt.Sprintf("%s %s, which %s reaches, cannot be read: %v", it.typ, Short(it.h), it.ref, err)
			p.File = c.r.looseName(it.h)
		}
		c.add(p)
	}
	future := time.Unix(1<<40, 0)
	for _, rt := range roots {
		push(item{ref: rt.ref, h: rt.h, typ: "commit", when: future})
	}
	for commits.Len() > 0 || len(trees) > 0 {
		if c.done() {
			return
		}
		if len(trees) > 0 { // a commit's trees before the next commit
			it := trees[len(trees)-1]
			trees = trees[:len(trees)-1]
			c.res.Objects++
			t, err := c.r.Tree(it.h)
			if err != nil {
				missing(it, unwrapRead(err))
				continue
			}
			dirty[it.ref] = dirty[it.ref] || !c.r.Packed(it.h)
			for _, e := range t.Entries {
				switch {
				case e.Mode == filemode.Dir:
					push(item{ref: it.ref, h: e.Hash, typ: "tree"})
				case e.Mode == filemode.Submodule:
				case !seen[e.Hash]:
					seen[e.Hash] = true
					c.res.Objects++
					if !c.r.Packed(e.Hash) {
						dirty[it.ref] = true
						if !c.r.present(e.Hash) {
							missing(item{ref: it.ref, h: e.Hash, typ: "blob"}, plumbing.ErrObjectNotFound)
						}
					}
				}
			}
			continue
		}
		it := heap.Pop(commits).(item)
		c.res.Objects++
		cm, err := c.r.Commit(it.h)
		if err != nil {
			missing(it, unwrapRead(err))
			continue
		}
		dirty[it.ref] = dirty[it.ref] || !c.r.Packed(it.h)
		push(item{ref: it.ref, h: cm.TreeHash, typ: "tree"})
		for _, p := range cm.ParentHashes {
			if !seen[p] {
				push(item{ref: it.ref, h: p, typ: "commit", when: cm.Committer.When})
			}
		}
	}
}

// soundSet reports whether every pack of a set (file names) is here and
// was found sound by this check.
func (c *checker) soundSet(packs []string) bool {
	for _, p := range packs {
		if _, ok := c.rec.packs[p]; !ok {
			return false
		}
	}
	return len(packs) > 0
}

// unwrapRead turns a read error into ErrObjectNotFound when the object is
// simply absent, keeping other errors (damage) as they are.
func unwrapRead(err error) error {
	if errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, fs.ErrNotExist) {
		return plumbing.ErrObjectNotFound
	}
	return err
}

// byTime is a heap that pops the item with the latest time first.
type byTime[T any] struct {
	items []T
	when  func(T) time.Time
}

func (b *byTime[T]) Len() int           { return len(b.items) }
func (b *byTime[T]) Less(i, j int) bool { return b.when(b.items[i]).After(b.when(b.items[j])) }
func (b *byTime[T]) Swap(i, j int)      { b.items[i], b.items[j] = b.items[j], b.items[i] }
func (b *byTime[T]) Push(x any)         { b.items = append(b.items, x.(T)) }
func (b *byTime[T]) Pop() any {
	it := b.items[len(b.items)-1]
	b.items = b.items[:len(b.items)-1]
	return it
}

// Packed reports whether a pack holds h.
func (r *Repo) Packed(h plumbing.Hash) bool {
	p, _, err := r.packs.find(h)
	if err == nil && p == nil && r.packs.scan() == nil {
		p, _, err = r.packs.find(h)
	}
	return err == nil && p != nil
}

// DamagedLoose returns the loose objects that do not decompress or hash to
// their name, as ProblemObject problems.
func (r *Repo) DamagedLoose() []Problem {
	c := &checker{r: r, ctx: context.Background()}
	c.loose()
	return c.res.Problems
}
