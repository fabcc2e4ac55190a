package staterepo

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/planq-dev/planq/internal/flock"
)

// Maintenance keeps the repo small. Every write adds a few loose objects (the
// changed segment, the trees above it, the commit); packed with deltas they
// cost a few hundred bytes per entry instead of kilobytes. planq runs git's
// own repack for this, not go-git's: git (which jj needs anyway; ≥ 2.37)
// writes the new pack and its index to temporary files, fsyncs them and
// renames them into place before it deletes a single loose object or old
// pack, so a crash at any instant loses nothing; it packs 100,000 entries in
// seconds with little memory (go-git's RepackObjects deleted loose objects
// before its pack was in place, and at 100,000 entries ran past 11 minutes
// and 23 GB); and it never needs planq's write lock, because git's repack is
// safe alongside processes that add objects: objects written after it
// listed the refs stay loose, and writeObject freshens objects it reuses.
//
//   - Automatic, after a write: when the repo holds about PLANQ_GC_AUTO
//     loose objects (default 2048, estimated from one fan-out directory as
//     `git gc --auto` does; 0 turns it off), the write starts
//     `git repack --geometric=2 -d` in the background (its own session,
//     holding planq-maintenance.lock) and returns: the loose objects become
//     one small pack, and packs are combined only when the next is at least
//     twice as big, so each object is rewritten O(log n) times in all.
//   - Full, `planq state gc`: every reachable object in one pack
//     (`git repack -a -d --cruft`), unreachable ones (killed writers' work,
//     deleted branches) in a cruft pack until they are two weeks old, then
//     dropped.
//   - Both remove tmp_obj_* / tmp_pack_* files older than an hour, which
//     killed writers and repacks leave behind.
//
// Readers that meet a pack replaced under them look again (repo.object).
const (
	defaultGCAuto   = 2048
	unreachableLife = 14 * 24 * time.Hour
	tmpLife         = time.Hour
	maintenanceLock = "planq-maintenance.lock"
	maintenanceLog  = "planq-maintenance.log"
)

// minGit is the oldest git whose repack planq uses (--cruft came in 2.37).
var minGit = [2]int{2, 37}

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

// looseEstimate estimates the loose objects from one of the 256 fan-out
// directories, as `git gc --auto` does: one directory read per write.
func looseEstimate(bare string) int {
	ents, err := os.ReadDir(filepath.Join(bare, "objects", "17"))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if len(e.Name()) == 38 {
			n++
		}
	}
	return n * 256
}

// AutoMaintain starts incremental maintenance in the background when the
// repo has gathered PLANQ_GC_AUTO loose objects and no maintenance is
// running. Writes call it after releasing the store's lock; it never
// blocks them. Problems are reported by `planq state status`.
func (s *Store) AutoMaintain() {
	limit := s.gcAuto()
	if limit <= 0 || looseEstimate(s.Bare) < limit {
		return
	}
	if err := s.startMaintenance(); err != nil {
		s.debugf("automatic maintenance not started: %v", err)
	}
}

// MaintainResult says what maintenance did.
type MaintainResult struct {
	Mode        string  `json:"mode"`              // full or incremental
	Skipped     string  `json:"skipped,omitempty"` // why nothing ran
	LooseBefore int     `json:"loose_before"`      // loose objects before
	LooseAfter  int     `json:"loose_after"`       // and after (objects written meanwhile)
	PacksAfter  int     `json:"packs_after"`
	TmpRemoved  int     `json:"tmp_removed"` // abandoned temporary files removed
	Bytes       int64   `json:"bytes"`       // the objects' size on disk after
	Seconds     float64 `json:"seconds"`
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
	lockPath := filepath.Join(s.Bare, maintenanceLock)
	var lk *flock.Lock
	if full {
		l, err := flock.Acquire(ctx, lockPath, 30*time.Minute)
		if err != nil {
			return res, fmt.Errorf("wait for the maintenance already running: %w", err)
		}
		lk = l
	} else {
		l, ok, err := flock.TryAcquire(lockPath)
		if err != nil {
			return res, err
		}
		if !ok {
			res.Skipped = "maintenance is already running"
			return res, nil
		}
		lk = l
	}
	defer lk.Release()
	git, err := findGit(ctx)
	if err != nil {
		return res, err
	}
	res.LooseBefore = countLoose(s.Bare)
	res.TmpRemoved = removeStaleTemps(s.Bare, tmpLife)
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, git, args...)
		cmd.Dir = s.Bare
		cmd.Env = gitEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s in %s: %v: %s", args[len(gitConfig)], s.Bare, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := run(repackArgs(full)...); err != nil {
		return res, err
	}
	// The cruft repack leaves unreachable loose objects past their expiry
	// loose; prune deletes them (and nothing younger).
	if full && countLoose(s.Bare) > 0 {
		if err := run(append(gitConfig, "prune", "--expire="+expiry(unreachableLife))...); err != nil {
			return res, err
		}
	}
	_ = os.Remove(filepath.Join(s.Bare, maintenanceLog)) // a later success clears an old failure
	res.LooseAfter = countLoose(s.Bare)
	res.PacksAfter, res.Bytes = objectSizes(s.Bare)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// repackArgs are git's arguments for one maintenance run (run in the bare
// repo): packs fsynced, no bitmaps or server info (nobody fetches over
// dumb HTTP from a state repo), nothing else of git gc.
//
// The delta window is 50, not git's 10: every version of a log's live file
// is named changelog.md, so git sorts the versions of several segments by
// size, interleaved, and with a window of 10 it rarely sees a version's
// predecessor; measured on 3,000 entries packed in batches as automatic
// maintenance does, 4.3 MB with a window of 10, 1.7 MB with 50, for 20% more
// time.
func repackArgs(full bool) []string {
	args := append(append([]string(nil), gitConfig...), "repack", "-d", "-l", "-q", "-n", "--no-write-bitmap-index", "--window=50", "--depth=50")
	if full {
		return append(args, "-a", "--cruft", "--cruft-expiration="+expiry(unreachableLife))
	}
	return append(args, "--geometric=2")
}

// gitConfig starts every maintenance git command line.
var gitConfig = []string{"-c", "core.fsync=committed", "-c", "core.fsyncMethod=fsync", "-c", "gc.auto=0"}

// expiry is git's date for "age ago".
func expiry(age time.Duration) string { return fmt.Sprintf("%d.seconds.ago", int(age.Seconds())) }

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

var gitVersion = regexp.MustCompile(`git version (\d+)\.(\d+)`)

// findGit returns the git binary, checking that it is new enough.
func findGit(ctx context.Context) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("maintenance needs git %d.%d or newer on PATH (jj needs it too): %w", minGit[0], minGit[1], err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, git, "version").Output()
	if err != nil {
		return "", fmt.Errorf("run %s version: %w", git, err)
	}
	m := gitVersion.FindStringSubmatch(string(out))
	if m == nil {
		return "", fmt.Errorf("cannot read the version of %s (%q)", git, strings.TrimSpace(string(out)))
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < minGit[0] || (major == minGit[0] && minor < minGit[1]) {
		return "", fmt.Errorf("maintenance needs git %d.%d or newer; %s is %d.%d", minGit[0], minGit[1], git, major, minor)
	}
	return git, nil
}

// removeStaleTemps deletes temporary object and pack files older than age:
// what killed writers and repacks left (a live one is seconds old).
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
			p := filepath.Join(objects, d.Name(), name)
			if st, err := os.Lstat(p); err == nil && time.Since(st.ModTime()) > age && os.Remove(p) == nil {
				n++
			}
		}
	}
	return n
}

// countLoose counts the loose object files of a repo.
func countLoose(bare string) int {
	n := 0
	dirs, _ := os.ReadDir(filepath.Join(bare, "objects"))
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		ents, _ := os.ReadDir(filepath.Join(bare, "objects", d.Name()))
		for _, e := range ents {
			if len(e.Name()) == 38 {
				n++
			}
		}
	}
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

// maintenanceProblem returns what the last background maintenance wrote
// to its log (it writes nothing when it succeeds), or "".
func maintenanceProblem(bare string) string {
	data, err := os.ReadFile(filepath.Join(bare, maintenanceLog))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(oneLine(strings.TrimSpace(string(data))))
}
