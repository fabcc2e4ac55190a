package staterepo

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/planq-dev/planq/internal/flock"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// Maintenance keeps the repo small. Every write adds a few loose objects (the
// changed segment, the trees above it, the commit); packed with deltas they
// cost a few hundred bytes per entry instead of kilobytes. planq has git do
// the packing, not go-git: git (which jj needs anyway; ≥ 2.37) writes a new
// pack and its index to temporary files, fsyncs them and renames them into
// place before it deletes a single loose object or old pack, so a crash at
// any instant loses nothing; it packs 100,000 entries in seconds with
// little memory (go-git's RepackObjects deleted loose objects before its
// pack was in place, and at 100,000 entries ran past 11 minutes and 23 GB);
// and it never needs planq's write lock, because packing is safe alongside
// processes that add objects: objects written meanwhile stay loose, and
// gitstore's writes freshen objects they reuse.
//
// What planq adds is the order. Every version of a log's live file is
// named changelog.md, so git, which lines blobs up by name and then by size,
// interleaves the versions of many segments and, within its delta window,
// rarely sees a version's predecessor: 3,000 entries packed in one go took
// 12 MB with git's window of 10, 4 MB with 50. planq lists the loose objects
// for `git pack-objects` itself, naming each version of a segment after the
// segment's first entry (which all its versions start with), so that git
// lines up exactly the versions of one segment, whatever the batch size:
// 1.3 MB, in 2.9 s.
//
//   - Automatic, after a write: when the repo holds about PLANQ_GC_AUTO
//     loose objects (default 2048, about 700 writes; estimated from one
//     fan-out directory, as `git gc --auto` does; 0 turns it off), the write
//     starts `planq state gc --auto` in the background (its own session)
//     and returns. That packs the loose objects into one new pack, deletes
//     their loose copies, and combines packs (`git repack --geometric=2`)
//     only when the next is less than twice as big, so each object is
//     rewritten O(log n) times in all. Without a planq binary to start
//     (Options.Maintainer), or on Windows, the write runs it itself, after
//     releasing the store's lock.
//   - Full, `planq state gc`: every reachable object in one pack (`git
//     repack -a -d --cruft`, reusing the deltas), unreachable ones (killed
//     writers' work, deleted branches) in a cruft pack until they are two
//     weeks old, then dropped.
//   - Both remove tmp_obj_* / tmp_pack_* files older than an hour, which
//     killed writers and repacks leave behind.
//
// Readers that meet a pack replaced under them look again (gitstore.Repo).
const (
	defaultGCAuto   = 2048
	unreachableLife = 14 * 24 * time.Hour
	tmpLife         = time.Hour
	maintenanceLock = "planq-maintenance.lock"
	maintenanceLog  = "planq-maintenance.log"
	deltaWindow     = "--window=50"
)

// minGit is the oldest git whose repack planq uses (--cruft came in 2.37).
const minGit = "2.37"

// gcAuto is the loose-object count that starts automatic maintenance.
func (s *Store) gcAuto() int {
	v := strings.TrimSpace(s.getenv("PLANQ_GC_AUTO"))
	if v == "" {
		return defaultGCAuto
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return defaultGCAuto
	}
	return n
}

// looseEstimate estimates the loose objects from a sample of the 256
// fan-out directories, as `git gc --auto` does from one: a directory read
// or two per write at the default limit, more for small limits, where one
// directory says little.
func looseEstimate(bare string, limit int) int {
	k := min(256, max(1, 4096/max(limit, 1)))
	n := 0
	for i := range k {
		ents, err := os.ReadDir(filepath.Join(bare, "objects", fmt.Sprintf("%02x", (0x17+i*97)%256)))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if len(e.Name()) == 38 {
				n++
			}
		}
	}
	return n * 256 / k
}

// AutoMaintain runs incremental maintenance when the repo has gathered
// PLANQ_GC_AUTO loose objects and no maintenance is running: in the
// background when it can start one, else itself. Writes call it after
// releasing the store's lock, so it never blocks another writer. Problems
// are reported by `planq state status`.
func (s *Store) AutoMaintain() {
	limit := s.gcAuto()
	if limit <= 0 || looseEstimate(s.Bare, limit) < limit {
		return
	}
	if s.maintainer != "" {
		err := s.startMaintenance()
		if err == nil {
			return
		}
		s.debugf("background maintenance not started: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, err := s.Maintain(ctx, false)
	s.recordMaintenance(err)
}

// heldEnv, set to 1, tells `planq state gc --auto` that it inherited the
// maintenance lock from the write that started it (see startMaintenance).
const heldEnv = "PLANQ_MAINTENANCE_HELD"

// recordMaintenance keeps a failure of automatic maintenance for
// `planq state status`, or clears an old one.
func (s *Store) recordMaintenance(err error) {
	path := filepath.Join(s.Bare, maintenanceLog)
	if err == nil {
		_ = os.Remove(path)
		return
	}
	_ = os.WriteFile(path, []byte("planq: "+err.Error()+"\n"), 0o644)
}

// MaintainResult says what maintenance did.
type MaintainResult struct {
	Mode        string `json:"mode"`              // full or incremental
	Skipped     string `json:"skipped,omitempty"` // why nothing ran
	LooseBefore int    `json:"loose_before"`      // loose objects before
	LooseAfter  int    `json:"loose_after"`       // and after (objects written meanwhile)
	PacksAfter  int    `json:"packs_after"`       // packs after
	TmpRemoved  int    `json:"tmp_removed"`       // abandoned temporary files removed
	// Quarantined are the damaged loose objects moved aside (a pack holds
	// a good copy of each).
	Quarantined []string `json:"quarantined,omitempty"`
	Bytes       int64    `json:"bytes"`   // the objects' size on disk after
	Seconds     float64  `json:"seconds"` // how long it took
}

// Maintain runs maintenance in the foreground: full packs everything
// (`planq state gc`), otherwise it is the automatic, incremental kind
// (`planq state gc --auto`). It waits for a maintenance already running
// (full) or skips (incremental). It never takes the store's write lock.
func (s *Store) Maintain(ctx context.Context, full bool) (MaintainResult, error) {
	res := MaintainResult{Mode: "incremental"}
	if full {
		res.Mode = "full"
	}
	if !s.Initialized() {
		return res, fmt.Errorf("%w for project %s; nothing to pack", ErrNotInitialized, s.Project)
	}
	start := time.Now()
	lk, busy, err := s.maintenanceLock(ctx, full)
	if err != nil || busy {
		if busy {
			res.Skipped = "maintenance is already running"
		}
		return res, err
	}
	defer releaseMaintenance(lk)
	git, err := findGit(ctx)
	if err != nil {
		return res, err
	}
	res.LooseBefore = countLoose(s.Bare)
	res.TmpRemoved = removeStaleTemps(s.Bare, tmpLife)
	// git's repack stops at a damaged loose object: move aside those a
	// pack holds a good copy of, refuse with the fix for the others.
	if r, err := s.openRepo(); err == nil {
		moved, err := s.quarantineDamaged(r)
		res.Quarantined = moved
		if err != nil {
			return res, err
		}
	}
	run := func(stdin io.Reader, args ...string) error {
		cmd := exec.CommandContext(ctx, git, append(append([]string(nil), gitConfig...), args...)...)
		cmd.Dir = s.Bare
		cmd.Env = gitEnv()
		cmd.Stdin = stdin
		// Every git process of the run holds the maintenance lock (its
		// children inherit it too), and they run in a process group of
		// their own that a cancelled run kills whole: so the lock is free
		// only once no process of this run is left, and no other
		// maintenance can delete a pack (or a repack's temporary pack)
		// this one is still using.
		holdLock(cmd, lk)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s in %s: %v: %s", args[0], s.Bare, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	// Incremental: the loose objects, all of them, into one pack in planq's
	// order, then packs combined. Full: git decides what is reachable, and
	// unreachable loose objects keep their own age for the expiry (the
	// loose objects are few: automatic maintenance keeps up with writes).
	if list, n := looseList(s.Bare); n > 0 && !full {
		if err := run(list, "pack-objects", "-q", "--non-empty", deltaWindow, "--depth=50", filepath.Join("objects", "pack", "pack")); err != nil {
			return res, err
		}
		if err := run(nil, "prune-packed", "-q"); err != nil {
			return res, err
		}
	}
	repack := []string{"repack", "-d", "-l", "-q", "-n", "--no-write-bitmap-index", deltaWindow, "--depth=50"}
	if full {
		repack = append(repack, "-a", "--cruft", "--cruft-expiration="+expiry(unreachableLife))
	} else {
		repack = append(repack, "--geometric=2")
	}
	if err := run(nil, repack...); err != nil {
		return res, err
	}
	// The cruft repack leaves unreachable loose objects past their expiry
	// loose; prune deletes them (and nothing younger).
	if full && countLoose(s.Bare) > 0 {
		if err := run(nil, "prune", "--expire="+expiry(unreachableLife)); err != nil {
			return res, err
		}
	}
	// The archive segments written since the last run, parsed for search
	// now rather than by the first search of the next fresh server.
	_ = s.refreshSearchCache(ctx)                        // only a cache: a failure costs the next search time
	_ = os.Remove(filepath.Join(s.Bare, maintenanceLog)) // an old failure is over
	res.LooseAfter = countLoose(s.Bare)
	res.PacksAfter, res.Bytes = objectSizes(s.Bare)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// maintenanceLock takes the lock that lets one maintenance run at a time:
// full waits for a run in progress (up to half an hour), incremental skips
// (busy) when one runs. A `planq state gc --auto` started by a write
// inherited the lock from it (heldEnv, see startMaintenance) and uses that
// file. A lock that cannot be taken at all — PLANQ_HOME is read-only, say
// — is an error saying so, never mistaken for a run in progress.
func (s *Store) maintenanceLock(ctx context.Context, full bool) (lk *flock.Lock, busy bool, err error) {
	path := filepath.Join(s.Bare, maintenanceLock)
	if !full && s.getenv(heldEnv) == "1" {
		if lk := inheritedLock(path); lk != nil {
			return lk, false, nil
		}
	}
	if !full {
		lk, ok, err := flock.TryAcquire(path)
		if err != nil {
			return nil, false, lockError(path, err)
		}
		return lk, !ok, nil
	}
	lk, err = flock.Acquire(ctx, path, 30*time.Minute)
	switch {
	case errors.Is(err, flock.ErrTimeout):
		return nil, false, fmt.Errorf("another maintenance of %s has been running for half an hour (%s is held); wait for it, or find the hung planq or git process", s.Bare, path)
	case err != nil && ctx.Err() != nil:
		return nil, false, fmt.Errorf("waiting for the maintenance already running: %w", ctx.Err())
	case err != nil:
		return nil, false, lockError(path, err)
	}
	return lk, false, nil
}

// lockError explains a maintenance lock that could not be taken for a
// reason other than another run holding it.
func lockError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("cannot take the maintenance lock %s (%v): maintenance writes to the state repo; make %s writable and run it again", path, err, filepath.Dir(path))
	}
	return fmt.Errorf("cannot take the maintenance lock %s: %w", path, err)
}

// gitConfig starts every maintenance git command line: packs fsynced, no
// automatic gc of git's own, no bitmaps (nobody clones a state repo over a
// smart server), and no delta search for objects over bigObject.
var gitConfig = []string{"-c", "core.fsync=committed", "-c", "core.fsyncMethod=fsync", "-c", "gc.auto=0",
	"-c", "repack.writeBitmaps=false", "-c", "core.bigFileThreshold=" + bigObject}

// bigObject is the size past which git stores an object deflated without
// searching for a delta. Nothing of a log comes near it (segments roll over
// at SegmentSize, 32 KiB); the session lineages' transcript segments (see
// sessions.go) mostly pass it. A delta search over them, in a window of
// 50, made maintenance take 30-35 s per 100 MB of generated transcripts,
// against 6-8 s without (measured in turn), and minutes at 2 GB, for a
// pack a third the size (9 MB rather than 30: sessions read the same
// files); time that grows with every session matters more here than disk.
const bigObject = "512k"

// expiry is git's date for "age ago".
func expiry(age time.Duration) string { return fmt.Sprintf("%d.seconds.ago", int(age.Seconds())) }

// looseList lists the loose objects for `git pack-objects`, newest first,
// each blob that is a version of a log segment named after the segment's
// first entry (see above), and returns how many it listed.
func looseList(bare string) (io.Reader, int) {
	type obj struct {
		line string
		mod  time.Time
	}
	var objs []obj
	gitstore.EachLoose(bare, func(id, path string, e fs.DirEntry) bool {
		hint, ok := segmentHint(path)
		if !ok {
			return true // unreadable: left loose, for git fsck to report
		}
		st, err := e.Info()
		if err != nil {
			return true
		}
		line := id
		if hint != "" {
			line += " " + hint
		}
		objs = append(objs, obj{line, st.ModTime()})
		return true
	})
	sort.Slice(objs, func(i, j int) bool { return objs[i].mod.After(objs[j].mod) })
	var b strings.Builder
	for _, o := range objs {
		b.WriteString(o.line)
		b.WriteByte('\n')
	}
	return strings.NewReader(b.String()), len(objs)
}

// segmentHint reads the start of a loose object: for a blob that begins
// with an entry it returns a name made of that entry's id, else ""; ok is
// false when the file cannot be read.
func segmentHint(path string) (hint string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return "", false
	}
	defer zr.Close()
	var buf [96]byte
	n, _ := io.ReadFull(zr, buf[:])
	kind, rest, found := bytes.Cut(buf[:n], []byte{0})
	if !found {
		return "", false
	}
	if !bytes.HasPrefix(kind, []byte("blob ")) {
		return "", true
	}
	rest = bytes.TrimLeft(rest, "\n")
	if id, ok := bytes.CutPrefix(rest, []byte("---\nid: pq-")); ok && len(id) >= 8 {
		return "segment-pq-" + string(id[:8]) + ".md", true
	}
	return "", true
}

// gitEnv is the environment for maintenance's git: without the variables
// that would point it at another repository (planq may run inside a git
// hook).
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
			"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_QUARANTINE_PATH":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// findGit returns the git binary, checking that it is new enough.
func findGit(ctx context.Context) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("maintenance needs git %s or newer on PATH (jj needs it too): %w", minGit, err)
	}
	v, err := jj.GitVersion(ctx, git)
	if err != nil {
		return "", err
	}
	if !jj.VersionAtLeast(v, minGit) {
		return "", fmt.Errorf("maintenance needs git %s or newer; %s is %s", minGit, git, v)
	}
	return git, nil
}

// removeStaleTemps deletes temporary object and pack files older than age:
// what killed writers and repacks left (a live one is seconds old). A
// repack's .tmp-<pid>-pack-* files are left alone while that process
// lives, however old.
func removeStaleTemps(bare string, age time.Duration) int {
	n := 0
	objects := filepath.Join(bare, "objects")
	dirs, _ := os.ReadDir(objects)
	for _, d := range dirs {
		if !d.IsDir() || (len(d.Name()) != 2 && d.Name() != "pack") {
			continue
		}
		ents, _ := os.ReadDir(filepath.Join(objects, d.Name()))
		for _, e := range ents {
			name := e.Name()
			if !strings.HasPrefix(name, "tmp_") && !strings.HasPrefix(name, ".tmp-") {
				continue
			}
			if pid, ok := repackPID(name); ok && processAlive(pid) {
				continue
			}
			p := filepath.Join(objects, d.Name(), name)
			if st, err := os.Lstat(p); err == nil && time.Since(st.ModTime()) > age && os.Remove(p) == nil {
				n++
			}
		}
	}
	return n
}

// repackPID returns the process id in the name of a temporary file of
// `git repack` (.tmp-<pid>-pack-…).
func repackPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, ".tmp-")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(num)
	return pid, ok && err == nil && pid > 0
}

// countLoose counts the loose object files of a repo.
func countLoose(bare string) int {
	n := 0
	gitstore.EachLoose(bare, func(string, string, fs.DirEntry) bool { n++; return true })
	return n
}

// objectSizes returns the number of packs and the bytes under objects/.
func objectSizes(bare string) (packs int, bytes int64) {
	_ = filepath.WalkDir(filepath.Join(bare, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if strings.HasSuffix(p, ".pack") {
			packs++
		}
		if st, err := d.Info(); err == nil {
			bytes += st.Size()
		}
		return nil
	})
	return packs, bytes
}

// maintenanceProblem returns the error the last automatic maintenance
// left in its log, or "" (a run that succeeds removes the log).
func maintenanceProblem(bare string) string {
	data, err := os.ReadFile(filepath.Join(bare, maintenanceLog))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if msg, ok := strings.CutPrefix(l, "planq: "); ok {
			return strings.TrimSpace(msg)
		}
	}
	return ""
}
