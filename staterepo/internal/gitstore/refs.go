package gitstore

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
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/staterepo/internal/crash"
)

// Refs are read and written the way git's files backend does: a loose ref
// file refs/…/<name> holding a commit id, else a line of packed-refs; an
// update takes <ref>.lock exclusively, writes and fsyncs it, appends the
// reflog entries and renames it over the ref. Lock files are never read as
// refs (go-git's reference iterator does, failing with "ref file is empty"
// when a killed process left one behind).

// BranchRef returns the full ref name of a branch.
func BranchRef(branch string) string { return "refs/heads/" + branch }

// refPath returns the loose file of ref name.
func (r *Repo) refPath(name string) string { return filepath.Join(r.path, filepath.FromSlash(name)) }

// ReadRef returns the commit ref name points to; ok is false when the ref
// does not exist. A ref file that holds no commit id is ErrDamaged, naming
// the file.
func (r *Repo) ReadRef(name string) (h plumbing.Hash, ok bool, err error) {
	path := r.refPath(name)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		s := cleanBytes(data)
		if !plumbing.IsHash(s) || plumbing.NewHash(s).IsZero() {
			what := fmt.Sprintf("holds %.50q, not a commit id", s)
			if s == "" {
				what = "is empty"
			}
			return h, false, fmt.Errorf("ref %s is %w: %s %s", name, ErrDamaged, path, what)
		}
		return plumbing.NewHash(s), true, nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
	default:
		if st, serr := os.Stat(path); serr == nil && st.IsDir() {
			return h, false, nil // a directory of refs below this name: no such ref
		}
		return h, false, fmt.Errorf("read ref %s: %w", name, err)
	}
	packed, err := r.packedRefs()
	if err != nil {
		return h, false, err
	}
	h, ok = packed[name]
	return h, ok, nil
}

// Head returns the commit a branch points to, or the zero hash when the
// branch does not exist.
func (r *Repo) Head(branch string) (plumbing.Hash, error) {
	h, _, err := r.ReadRef(BranchRef(branch))
	return h, err
}

// HeadTree returns the commit a branch points to and that commit's tree,
// both zero when the branch does not exist.
func (r *Repo) HeadTree(branch string) (head, tree plumbing.Hash, err error) {
	if head, err = r.Head(branch); err != nil {
		return head, tree, err
	}
	tree, err = r.CommitTree(head)
	return head, tree, err
}

// packedRefs parses packed-refs (missing: none).
func (r *Repo) packedRefs() (map[string]plumbing.Hash, error) {
	path := filepath.Join(r.path, "packed-refs")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	out := map[string]plumbing.Hash{}
	for n, line := range strings.Split(string(data), "\n") {
		ok, name, h := packedLine(line)
		if !ok {
			return nil, fmt.Errorf("%s line %d is %w: %.60q; the next planq write (or `planq state gc`) saves the file beside it and keeps its valid lines", path, n+1, ErrDamaged, line)
		}
		if name != "" {
			out[name] = h
		}
	}
	return out, nil
}

// RefsUnder lists the refs whose names start with prefix (e.g.
// "refs/heads/"), loose and packed, as name → commit.
func (r *Repo) RefsUnder(prefix string) (map[string]plumbing.Hash, error) {
	out := map[string]plumbing.Hash{}
	packed, err := r.packedRefs()
	if err != nil {
		return nil, err
	}
	for name, h := range packed {
		if strings.HasPrefix(name, prefix) {
			out[name] = h
		}
	}
	loose, err := r.looseRefs(prefix)
	if err != nil {
		return nil, err
	}
	for _, name := range loose {
		h, ok, err := r.ReadRef(name)
		if err != nil {
			return nil, err
		}
		if ok {
			out[name] = h
		}
	}
	return out, nil
}

// looseRefs lists the names of the loose ref files under prefix (e.g.
// "refs/heads/"), without reading them; lock files are not refs.
func (r *Repo) looseRefs(prefix string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(r.refPath(strings.TrimSuffix(prefix, "/")), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(r.path, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

// DamagedRefs lists the loose refs under prefix whose files hold no
// commit id.
func (r *Repo) DamagedRefs(prefix string) []string {
	names, _ := r.looseRefs(prefix)
	var out []string
	for _, name := range names {
		if _, _, err := r.ReadRef(name); errors.Is(err, ErrDamaged) {
			out = append(out, name)
		}
	}
	return out
}

// Branches lists the repo's branch names. A damaged branch ref is listed
// (reading its head names the file).
func (r *Repo) Branches() ([]string, error) {
	seen := map[string]bool{}
	packed, err := r.packedRefs()
	if err != nil {
		return nil, err
	}
	for name := range packed {
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			seen[b] = true
		}
	}
	loose, err := r.looseRefs("refs/heads/")
	for _, name := range loose {
		seen[strings.TrimPrefix(name, "refs/heads/")] = true
	}
	out := make([]string, 0, len(seen))
	for b := range seen {
		out = append(out, b)
	}
	sort.Strings(out)
	return out, err
}

// ErrRefMoved reports that a branch changed under a compare-and-swap update.
var ErrRefMoved = errors.New("branch moved while planq was writing")

// RefUpdate is one change of a ref.
type RefUpdate struct {
	Name   string           // full name: refs/heads/… or refs/remotes/…
	New    plumbing.Hash    // zero deletes the ref (and its reflog)
	Old    plumbing.Hash    // what the ref must point at now (zero: must not exist), unless AnyOld
	AnyOld bool             // skip the check; a damaged ref file is replaced
	Msg    string           // reflog message; "" writes no reflog entry
	Sig    object.Signature // the reflog entry's committer
}

// UpdateRef applies u with git's protocol, so it is atomic for readers and
// never races a git process updating the same ref. The objects written
// through r are fsynced first, and the ref file and its directory after, so
// a ref never names an object a machine crash could lose.
func (r *Repo) UpdateRef(ctx context.Context, u RefUpdate) error {
	path := r.refPath(u.Name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("update %s: %w", u.Name, err)
	}
	if err := r.syncObjects(); err != nil {
		return err
	}
	f, err := takeLock(ctx, path+".lock", r.warn)
	if err != nil {
		return fmt.Errorf("update %s: %w", u.Name, err)
	}
	lock := f.Name()
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	cur, _, err := r.ReadRef(u.Name)
	if err != nil && !(u.AnyOld && errors.Is(err, ErrDamaged)) {
		return err
	}
	if !u.AnyOld && cur != u.Old {
		return fmt.Errorf("%w: %s is at %s, expected %s", ErrRefMoved, u.Name, Short(cur), Short(u.Old))
	}
	if u.New.IsZero() {
		if err := r.removePacked(ctx, u.Name); err != nil {
			return err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", path, err)
		}
		_ = os.Remove(filepath.Join(r.path, "logs", filepath.FromSlash(u.Name)))
		return nil
	}
	if _, err := f.WriteString(u.New.String() + "\n"); err != nil {
		return fmt.Errorf("write %s: %w", lock, err)
	}
	if err := syncFile(f); err != nil {
		return fmt.Errorf("sync %s: %w", lock, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", lock, err)
	}
	if u.Msg != "" {
		logOld := cur
		if u.AnyOld && !cur.IsZero() && !r.present(cur) {
			logOld = plumbing.ZeroHash // a damaged ref's value names no object; git fsck refuses such a reflog line
		}
		// The ref's own reflog (the first) is fsynced: recovery restores
		// the branch from it. HEAD's copies are for git's commands.
		for i, log := range r.ReflogsOf(u.Name) {
			if err := appendReflog(log, logOld, u.New, u.Sig, u.Msg, i == 0); err != nil {
				return err
			}
		}
	}
	crash.Point("ref-locked")
	if err := os.Rename(lock, path); err != nil {
		return fmt.Errorf("update %s: %w", u.Name, err)
	}
	done = true
	// The ref has moved: failing now would make a retry write twice.
	if err := syncDir(filepath.Dir(path)); err != nil {
		r.warn(fmt.Sprintf("%s moved, but flushing %s to the disk failed: %v", u.Name, filepath.Dir(path), err))
	}
	return nil
}

// removePacked drops name from packed-refs, under packed-refs.lock.
func (r *Repo) removePacked(ctx context.Context, name string) error {
	packed, err := r.packedRefs()
	if err != nil || packed == nil {
		return err
	}
	if _, ok := packed[name]; !ok {
		return nil
	}
	path := filepath.Join(r.path, "packed-refs")
	f, err := takeLock(ctx, path+".lock", r.warn)
	if err != nil {
		return fmt.Errorf("update packed-refs: %w", err)
	}
	lock := f.Name()
	data, err := os.ReadFile(path)
	if err != nil {
		f.Close()
		os.Remove(lock)
		return fmt.Errorf("read %s: %w", path, err)
	}
	var out bytes.Buffer
	skipPeeled := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(line, "^") && skipPeeled {
			continue
		}
		_, n, _ := strings.Cut(strings.TrimSpace(line), " ")
		skipPeeled = n == name && !strings.HasPrefix(line, "#")
		if !skipPeeled {
			out.WriteString(line)
		}
	}
	if err := commitLockFile(f, path, out.Bytes(), true); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	return nil
}

// ReflogsOf lists the reflogs an update of ref name appends to, as git
// does: the ref's own, and HEAD's wherever HEAD names it — the bare repo's
// (global) and each linked worktree's (its agent branch).
func (r *Repo) ReflogsOf(name string) []string {
	out := []string{filepath.Join(r.path, "logs", filepath.FromSlash(name))}
	if !strings.HasPrefix(name, "refs/heads/") {
		return out
	}
	want := "ref: " + name
	if head, err := os.ReadFile(filepath.Join(r.path, "HEAD")); err == nil && cleanBytes(head) == want {
		out = append(out, filepath.Join(r.path, "logs", "HEAD"))
	}
	wts, _ := ListWorktrees(r.path)
	for _, w := range wts {
		if "refs/heads/"+w.Branch == name {
			out = append(out, filepath.Join(w.Admin, "logs", "HEAD"))
		}
	}
	return out
}

// Reflogs are bounded: once one grows past ReflogMax bytes, the append
// that took it there rewrites it with its newest ReflogKeep bytes of lines
// (about a thousand updates, far more than recovery looks at), so 100,000
// writes do not leave tens of megabytes of reflog behind. The caller holds
// the ref's lock, as git's own reflog writers do, so no other writer
// appends meanwhile.
const (
	ReflogMax  = 512 << 10
	ReflogKeep = 256 << 10
)

// appendReflog adds one line to a reflog, and with durable fsyncs it, so
// the record recovery restores a branch from survives a crash of the
// machine with the ref; a failed write is cut off again, so the file never
// ends in half a line. A reflog past ReflogMax is then trimmed
// (trimReflog).
func appendReflog(path string, old, new plumbing.Hash, sig object.Signature, msg string, durable bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("reflog: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("reflog: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reflog %s: %w", path, err)
	}
	line := fmt.Sprintf("%s %s %s <%s> %d %s\t%s\n", old, new, text.FirstLine(sig.Name), text.FirstLine(sig.Email),
		sig.When.Unix(), sig.When.Format("-0700"), text.FirstLine(msg))
	if _, err := f.WriteString(line); err != nil {
		_ = f.Truncate(st.Size())
		return fmt.Errorf("append to reflog %s: %w", path, err)
	}
	if durable {
		if err := syncFile(f); err != nil {
			return fmt.Errorf("sync reflog %s: %w", path, err)
		}
	}
	if st.Size()+int64(len(line)) > ReflogMax {
		_ = trimReflog(path, ReflogKeep) // the entry is in; the next append trims again
	}
	return nil
}

// trimReflog rewrites the reflog at path with its newest whole lines that
// fit in keep bytes, through path.lock (as `git reflog expire` does; git
// skips lock files when it lists reflogs), fsynced and renamed over it. The
// caller holds the ref's lock, so a reflog lock left there is a killed
// trim's.
func trimReflog(path string, keep int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("trim reflog: %w", err)
	}
	if len(data) <= keep {
		return nil
	}
	cut := len(data) - keep
	if i := bytes.IndexByte(data[cut:], '\n'); i >= 0 {
		cut += i + 1
	} else {
		cut = len(data)
	}
	_ = os.Remove(path + ".lock")
	f, err := os.OpenFile(path+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		err = commitLockFile(f, path, data[cut:], true)
	}
	if err != nil {
		return fmt.Errorf("trim reflog %s: %w", path, err)
	}
	_ = syncDir(filepath.Dir(path))
	return nil
}

// ReflogEntry is one line of a reflog.
type ReflogEntry struct {
	Old, New plumbing.Hash // the ref before and after
	Msg      string        // what moved it
}

// ReadReflog parses a reflog, oldest first; malformed lines are skipped.
func ReadReflog(path string) ([]ReflogEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []ReflogEntry
	for _, line := range strings.Split(string(data), "\n") {
		if len(line) < 82 || line[40] != ' ' {
			continue
		}
		o, n := line[:40], line[41:81]
		if !plumbing.IsHash(o) || !plumbing.IsHash(n) {
			continue
		}
		_, msg, _ := strings.Cut(line, "\t")
		out = append(out, ReflogEntry{plumbing.NewHash(o), plumbing.NewHash(n), msg})
	}
	return out, nil
}

// cleanBytes is bytes.TrimSpace as a string.
func cleanBytes(b []byte) string { return string(bytes.TrimSpace(b)) }

// RepairPackedRefs rewrites packed-refs without the lines git cannot read,
// under packed-refs.lock, after saving the file as it was beside it
// (packed-refs.damaged-<time>). It returns the saved copy's path and the
// lines dropped, or "" when there was nothing to repair. A ref whose line
// was dropped is gone from packed-refs; its reflog restores it.
func (r *Repo) RepairPackedRefs(ctx context.Context, now time.Time) (saved string, dropped []string, err error) {
	path := filepath.Join(r.path, "packed-refs")
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return "", nil, err
	}
	var keep bytes.Buffer
	prevRef := false // a peeled "^" line belongs to a kept ref line before it
	for _, line := range strings.SplitAfter(string(data), "\n") {
		body := strings.TrimSuffix(line, "\n")
		ok, name, _ := packedLine(body)
		if ok && strings.HasPrefix(body, "^") && !prevRef {
			ok = false
		}
		if !ok {
			dropped = append(dropped, body)
			prevRef = false
			continue
		}
		prevRef = name != "" || (strings.HasPrefix(body, "^") && prevRef)
		if body != "" {
			keep.WriteString(body + "\n")
		}
	}
	if len(dropped) == 0 {
		return "", nil, nil
	}
	f, err := takeLock(ctx, path+".lock", r.warn)
	if err != nil {
		return "", nil, fmt.Errorf("repair packed-refs: %w", err)
	}
	saved = fmt.Sprintf("%s.damaged-%s", path, now.UTC().Format("20060102T150405.000000000Z"))
	if err := os.WriteFile(saved, data, 0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("repair packed-refs: save a copy: %w", err)
	}
	if err := commitLockFile(f, path, keep.Bytes(), true); err != nil {
		return "", nil, fmt.Errorf("repair packed-refs: %w", err)
	}
	return saved, dropped, nil
}
