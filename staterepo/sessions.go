package staterepo

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// Shared session lineages. A project's agent sessions travel with its state
// remote under refs of their own, never on the agent branches: one ref per
// session lineage, refs/planq/sessions/<root change id>. Its commits hold,
// per machine (origin) that worked in the lineage, a directory:
//
//	<origin>/record.json                   the lineage's record as that machine shares it
//	<origin>/t/<first>-<n>.jsonl           its transcript lines first … first+n-1 (redacted)
//
// <first> is the line number (from 1, in the origin's own numbering), ten
// digits, so the names sort in order. A machine only ever adds segments to
// its own directory, never rewrites one: appending a session costs its new
// lines, and a push or pull moves only the objects of the lineages that
// grew. Two machines that worked in one lineage (a teammate resumed it)
// write disjoint directories, so two versions of a lineage merge by taking,
// per origin, the version with more lines. Maintenance and `planq state
// gc` keep these refs like every other: they are reachable.

// SessionsRefPrefix is where the lineages' refs live.
const SessionsRefPrefix = "refs/planq/sessions/"

// LineageRecordFile and LineageSegmentDir name the files of an origin's
// directory in a lineage.
const (
	LineageRecordFile = "record.json"
	LineageSegmentDir = "t"
)

// LineageRef returns the ref of the lineage rooted at root.
func LineageRef(root string) string { return SessionsRefPrefix + root }

// validLineageName reports whether name (a ref's last part) can be a
// lineage root: a jj change id's letters, k to z.
func validLineageName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 'k' || name[i] > 'z' {
			return false
		}
	}
	return true
}

// validOriginName reports whether name can be an origin directory:
// lowercase letters, digits and '-', not first.
func validOriginName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Segment is one file of an origin's transcript in a lineage.
type Segment struct {
	Path  string // its path in the lineage's tree
	First int64  // the number of its first line
	Lines int64  // how many lines it holds
}

// End is the number of the segment's last line.
func (g Segment) End() int64 { return g.First + g.Lines - 1 }

// SegmentPath is the path of origin's segment holding lines first …
// first+n-1.
func SegmentPath(origin string, first, n int64) string {
	return fmt.Sprintf("%s/%s/%010d-%d.jsonl", origin, LineageSegmentDir, first, n)
}

// parseSegment reads a segment's numbers from its name.
func parseSegment(name string) (first, n int64, ok bool) {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(base, "-")
	if !ok {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	n, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || first < 1 || n < 1 {
		return 0, 0, false
	}
	return first, n, true
}

// LineageTree is one commit of a lineage, read.
type LineageTree struct {
	Root   string // the lineage's root change id
	Commit string // the commit, hex
	files  map[string]object.TreeEntry
	r      *gitstore.Repo
}

// Origins lists the machines with a directory in the lineage, sorted.
func (t *LineageTree) Origins() []string {
	seen := map[string]bool{}
	for p := range t.files {
		if o, _, ok := strings.Cut(p, "/"); ok && validOriginName(o) {
			seen[o] = true
		}
	}
	return sortedKeys(seen)
}

// Segments lists origin's transcript segments, in order. Files whose names
// are not a segment's are left out.
func (t *LineageTree) Segments(origin string) []Segment {
	var out []Segment
	prefix := origin + "/" + LineageSegmentDir + "/"
	for p := range t.files {
		name, ok := strings.CutPrefix(p, prefix)
		if !ok || strings.Contains(name, "/") {
			continue
		}
		if first, n, ok := parseSegment(name); ok {
			out = append(out, Segment{Path: p, First: first, Lines: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].First < out[j].First })
	return out
}

// SharedLines is how many of origin's transcript lines the lineage holds:
// the end of its last segment.
func (t *LineageTree) SharedLines(origin string) int64 {
	segs := t.Segments(origin)
	if len(segs) == 0 {
		return 0
	}
	return segs[len(segs)-1].End()
}

// Read returns the content of the file at p; ok is false when missing.
func (t *LineageTree) Read(p string) (data []byte, ok bool, err error) {
	e, ok := t.files[p]
	if !ok {
		return nil, false, nil
	}
	data, err = t.r.Blob(e.Hash)
	return data, err == nil, err
}

// LineageRefs returns every lineage ref of the state repo: root → commit
// (hex). Refs whose names are not change ids are left out.
func (s *Store) LineageRefs() (map[string]string, error) {
	if !s.Initialized() {
		return map[string]string{}, nil
	}
	r, err := s.openRepo()
	if err != nil {
		return nil, err
	}
	return lineageRefs(r)
}

func lineageRefs(r *gitstore.Repo) (map[string]string, error) {
	refs, err := r.RefsUnder(SessionsRefPrefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(refs))
	for name, h := range refs {
		root := strings.TrimPrefix(name, SessionsRefPrefix)
		if validLineageName(root) {
			out[root] = h.String()
		}
	}
	return out, nil
}

// ReadLineage reads the lineage rooted at root as its ref has it; ok is
// false when there is no such ref.
func (s *Store) ReadLineage(root string) (t *LineageTree, ok bool, err error) {
	if !validLineageName(root) {
		return nil, false, fmt.Errorf("%q is not a lineage root (a jj change id)", root)
	}
	if !s.Initialized() {
		return nil, false, nil
	}
	r, err := s.openRepo()
	if err != nil {
		return nil, false, err
	}
	h, ok, err := r.ReadRef(LineageRef(root))
	if err != nil || !ok {
		return nil, false, err
	}
	t, err = readLineage(r, root, h)
	return t, err == nil, err
}

// ReadLineageAt reads commit (hex) of the lineage rooted at root.
func (s *Store) ReadLineageAt(root, commit string) (*LineageTree, error) {
	r, err := s.openRepo()
	if err != nil {
		return nil, err
	}
	if !plumbing.IsHash(commit) {
		return nil, fmt.Errorf("%q is not a commit id", commit)
	}
	return readLineage(r, root, plumbing.NewHash(commit))
}

func readLineage(r *gitstore.Repo, root string, h plumbing.Hash) (*LineageTree, error) {
	tree, err := r.CommitTree(h)
	if err != nil {
		return nil, fmt.Errorf("session lineage %s: %w", root, err)
	}
	files, err := r.TreeFiles(tree)
	if err != nil {
		return nil, fmt.Errorf("session lineage %s: %w", root, err)
	}
	return &LineageTree{Root: root, Commit: h.String(), files: files, r: r}, nil
}

// ErrLineageMoved reports a lineage ref that moved while planq wrote to it.
var ErrLineageMoved = errors.New("session lineage moved while planq was writing")

// CommitLineage writes files (paths inside the lineage's tree) as a new
// commit on the lineage rooted at root, whose ref must be at parent (hex;
// "" for a lineage not shared yet), and returns the commit. The objects are
// written first; the ref moves under the store's lock, with git's lock-file
// protocol, so a process killed at any instant leaves the ref at parent or
// at the new commit, never between. A ref that moved meanwhile is
// ErrLineageMoved, and nothing changes.
func (s *Store) CommitLineage(ctx context.Context, root, parent string, files map[string][]byte, msg string) (string, error) {
	if !validLineageName(root) {
		return "", fmt.Errorf("%q is not a lineage root (a jj change id)", root)
	}
	for p := range files {
		o, rest, ok := strings.Cut(p, "/")
		if !ok || !validOriginName(o) || rest == "" || path.Clean(p) != p {
			return "", fmt.Errorf("session lineage %s: %q is not a path in an origin's directory", root, p)
		}
	}
	if !s.Initialized() {
		return "", fmt.Errorf("%w for project %s; run `planq state init`", ErrNotInitialized, s.Project)
	}
	r, err := s.openRepo()
	if err != nil {
		return "", err
	}
	var old, base plumbing.Hash
	var parents []plumbing.Hash
	if parent != "" {
		if !plumbing.IsHash(parent) {
			return "", fmt.Errorf("%q is not a commit id", parent)
		}
		old = plumbing.NewHash(parent)
		if base, err = r.CommitTree(old); err != nil {
			return "", err
		}
		parents = []plumbing.Hash{old}
	}
	edits := make(map[string]gitstore.Edit, len(files))
	for _, p := range sortedKeys(files) {
		h, err := r.WriteBlob(files[p])
		if err != nil {
			return "", err
		}
		edits[p] = gitstore.Edit{Hash: h}
	}
	tree, err := r.EditTree(base, edits)
	if err != nil {
		return "", err
	}
	if tree == base && !old.IsZero() {
		return parent, nil
	}
	c, err := r.WriteCommit(tree, parents, msg, s.signature())
	if err != nil {
		return "", err
	}
	if err := s.moveLineage(ctx, r, root, old, c, "planq: "+firstLine(msg)); err != nil {
		return "", err
	}
	return c.String(), nil
}

// moveLineage points root's ref from old to next under the store's lock.
func (s *Store) moveLineage(ctx context.Context, r *gitstore.Repo, root string, old, next plumbing.Hash, msg string) error {
	lk, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer lk.Release()
	err = r.UpdateRef(ctx, gitstore.RefUpdate{Name: LineageRef(root), New: next, Old: old, Msg: msg, Sig: s.signature()})
	if errors.Is(err, gitstore.ErrRefMoved) {
		return fmt.Errorf("%w: %s; run the command again", ErrLineageMoved, root)
	}
	return err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// mergeLineages merges two commits of the lineage rooted at root that
// diverged: each origin's directory as the side that holds more of its
// lines has it (ours on a tie). Origins write only their own directory and
// only add to it, so the side with more lines has everything the other
// has. It returns the merge commit, or one side when it has all.
func (s *Store) mergeLineages(r *gitstore.Repo, root string, ours, theirs plumbing.Hash) (plumbing.Hash, error) {
	o, err := readLineage(r, root, ours)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	t, err := readLineage(r, root, theirs)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	origins := slices.Compact(slices.Sorted(slices.Values(append(o.Origins(), t.Origins()...))))
	edits := map[string]gitstore.Edit{}
	var took []string
	for _, origin := range origins {
		if t.SharedLines(origin) <= o.SharedLines(origin) && o.hasOrigin(origin) {
			continue
		}
		took = append(took, origin)
		prefix := origin + "/"
		for p := range o.files {
			if strings.HasPrefix(p, prefix) {
				edits[p] = gitstore.Edit{Del: true}
			}
		}
		for p, e := range t.files {
			if strings.HasPrefix(p, prefix) {
				edits[p] = gitstore.Edit{Hash: e.Hash}
			}
		}
	}
	if len(took) == 0 {
		return ours, nil
	}
	base, err := r.CommitTree(ours)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree, err := r.EditTree(base, edits)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if ttree, err := r.CommitTree(theirs); err == nil && ttree == tree {
		return theirs, nil // theirs has everything: fast-forward
	}
	return r.WriteCommit(tree, []plumbing.Hash{ours, theirs}, fmt.Sprintf("merge session lineage %s from the remote: %s", root, strings.Join(took, ", ")), s.signature())
}

func (t *LineageTree) hasOrigin(origin string) bool {
	prefix := origin + "/"
	for p := range t.files {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
