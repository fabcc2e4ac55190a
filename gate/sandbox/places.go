package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planq-dev/planq/gate/dirs"
	"github.com/planq-dev/planq/internal/jjrepo"
)

// Spec is what a sandbox is made for: the project it keeps read-only and
// the environment the command runs with.
type Spec struct {
	// Root is the project: the jj workspace (or directory) the gate guards,
	// the whole tree (working copy, .jj, .git).
	Root string
	// Exe is the planq binary that runs the sandbox: its directory stays
	// read-only, so no command can replace the hook binary.
	Exe string
	// Getenv is the command's environment before TempDir is set (HOME,
	// PATH, TMPDIR, the tool homes and caches).
	Getenv func(string) string
}

func (s Spec) getenv(k string) string {
	if s.Getenv == nil {
		return os.Getenv(k)
	}
	return s.Getenv(k)
}

// Plan is what a sandbox made for a Spec allows and forbids. Writes are
// allowed only below Dirs and to Files; the rest is read-only, the project
// (Guarded) above all, and the places programs load code from (Code, and
// Home's dot files), which are never among Dirs.
type Plan struct {
	Guarded []string // the project and, when elsewhere, its jj repository
	Code    []string // PATH directories, tool homes (dirs.CodeEnv), the planq binary's directory
	Home    string   // the home directory: its dot files are read-only, the caches of dirs.HomeCaches aside
	Dirs    []string // writable trees: the system temp dirs, the build caches, a private TMPDIR (Run)
	Files   []string // writable device files: /dev/null, /dev/tty, …, the pseudo-terminals under /dev/pts
}

// deviceFiles are the device files programs open for writing: the bit
// bucket, the terminal, random sources. /dev/stdout and /dev/fd/N resolve
// to the descriptor's own file (a pipe is always writable, a file is
// judged by its path).
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// NewPlan derives the sandbox for s, in one place for every OS. The
// writable trees are the system's temporary directories (dirs.Temp, and
// the TMPDIR the command inherits) and the build caches (dirs.CacheEnv,
// ~/.cache and ~/.npm); Run may grant a private TMPDIR too. A candidate is
// kept (grant) only when
// it exists, neither is nor holds nor lies in the project (or its jj
// repository, when the workspace's repository is elsewhere), and holds no
// place code is loaded from (a PATH directory, a tool home, the planq
// binary's directory, the home directory and so its dot files): Landlock
// can only grant whole trees, so a tree holding one of those is not
// granted at all.
func NewPlan(s Spec) Plan {
	var pl Plan
	rs := &resolver{}
	resolve := rs.resolve
	root := resolve(s.Root)
	pl.Guarded = []string{root}
	if repo, err := jjrepo.Dir(root); err == nil && !within(root, resolve(repo)) {
		pl.Guarded = append(pl.Guarded, resolve(repo))
	}
	seen := map[string]bool{}
	addList := func(list string) {
		for _, d := range filepath.SplitList(list) {
			if !filepath.IsAbs(d) || seen[d] {
				continue
			}
			seen[d] = true
			if r := resolve(d); !slices.Contains(pl.Code, r) {
				pl.Code = append(pl.Code, r)
			}
		}
	}
	addList(s.getenv("PATH"))
	for _, k := range dirs.CodeEnv {
		addList(s.getenv(k))
	}
	if s.Exe != "" {
		addList(filepath.Dir(s.Exe))
	}
	cands := append([]string{}, dirs.Temp...)
	cands = append(cands, s.getenv("TMPDIR"))
	for _, k := range dirs.CacheEnv {
		cands = append(cands, s.getenv(k))
	}
	if home := s.getenv("HOME"); home != "" && filepath.IsAbs(home) {
		pl.Home = resolve(home)
		for _, c := range dirs.HomeCaches {
			cands = append(cands, filepath.Join(home, c))
		}
	}
	for _, c := range cands {
		if c != "" && filepath.IsAbs(c) {
			pl.grant(resolve(c))
		}
	}
	for _, f := range deviceFiles {
		if _, err := os.Stat(f); err == nil {
			pl.Files = append(pl.Files, f)
		}
	}
	return pl
}

// grant adds the directory r (resolved) to the writable trees, unless it
// is, holds or lies in the project, or holds a place code is loaded from
// or the home directory with its dot files (a HOME under /tmp: the caches
// inside it are granted on their own). It reports whether r is writable.
func (pl *Plan) grant(r string) bool {
	if slices.Contains(pl.Dirs, r) {
		return true
	}
	if st, err := os.Stat(r); err != nil || !st.IsDir() {
		return false
	}
	if overlaps(r, pl.Guarded) || holds(r, pl.Code) || pl.Home != "" && within(r, pl.Home) {
		return false
	}
	pl.Dirs = append(pl.Dirs, r)
	return true
}

// overlaps reports whether d is, holds or lies in any of list.
func overlaps(d string, list []string) bool {
	for _, g := range list {
		if within(g, d) || within(d, g) {
			return true
		}
	}
	return false
}

// holds reports whether d is or holds any of list.
func holds(d string, list []string) bool {
	for _, g := range list {
		if within(d, g) {
			return true
		}
	}
	return false
}

// resolve makes p (absolute) clean with its symbolic links followed, as far
// as it exists; the rest is taken as written.
func resolve(p string) string { return (&resolver{}).resolve(p) }

// resolver resolves paths, remembering the prefixes it has resolved: the
// paths a plan is made of share most of them (/home/u, /usr/local), and
// each one costs an lstat.
type resolver struct{ done map[string]string }

// maxLinks bounds the symbolic links followed for one path, as the
// kernel's ELOOP does.
const maxLinks = 40

func (rs *resolver) resolve(p string) string {
	if rs.done == nil {
		rs.done = map[string]string{}
	}
	p = filepath.Clean(p)
	if r, ok := rs.done[p]; ok {
		return r
	}
	r := rs.walk(p, 0)
	rs.done[p] = r
	return r
}

func (rs *resolver) walk(p string, links int) string {
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if base == "" || dir == p {
		return p // the root
	}
	parent, ok := rs.done[dir]
	if !ok {
		parent = rs.walk(dir, links)
		rs.done[dir] = parent
	}
	cur := filepath.Join(parent, base)
	fi, err := os.Lstat(cur)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return cur
	}
	target, err := os.Readlink(cur)
	if err != nil || links >= maxLinks {
		return cur
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(parent, target)
	}
	return rs.walk(filepath.Clean(target), links+1)
}

// within reports whether p is root or below it (both clean and resolved).
func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}
