package gate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planq-dev/planq/gate/dirs"
)

// Where says where a tool call runs: the project it belongs to and the
// working directory of the tool. The gate resolves every path a call names
// against it before deciding whether the path is inside the project.
type Where struct {
	// Root is the project boundary: the jj workspace holding the session's
	// project, else the project directory. Empty means unknown, and then
	// every path counts as inside.
	Root string
	// Cwd is the tool's working directory (absolute). Empty means unknown:
	// relative paths count as inside and tools that load configuration from
	// their working directory are not trusted.
	Cwd string
	// Getenv reads the hook's environment (HOME, TMPDIR, PATH, GOPATH, …),
	// which the tool inherits. Nil means os.Getenv.
	Getenv func(string) string
}

func (w Where) getenv(k string) string {
	if w.Getenv != nil {
		return w.Getenv(k)
	}
	return os.Getenv(k)
}

// maxSymlinks bounds the symbolic links followed resolving one path, as
// the kernel's ELOOP limit does.
const maxSymlinks = 40

// resolvePath makes p absolute against cwd and resolves it the way the
// kernel will when the tool opens it: /proc/self/cwd is cwd, /proc/self/root
// is /, symbolic links are followed on the longest existing prefix, and ".."
// applies to the resolved parent. ok is false when the path cannot be known
// before the call runs (another process's /proc entry, a relative path with
// no working directory); such a path counts as inside the project.
func resolvePath(p, cwd string) (string, bool) {
	forms, ok := pathReadings(p, cwd)
	if !ok {
		return "", false
	}
	return resolveAbs(forms[0], cwd)
}

// pathReadings returns p made absolute against cwd, read the two ways a
// program may use it: as written, for the kernel, which applies ".." to
// the directory a symbolic link leads to; and cleaned as text first, as
// hosts and runtimes that normalise paths before opening them do (Codex's
// apply_patch, Node's path.resolve, Go's filepath.Join). For
// <project>/outlink/../notes.txt, with outlink a link to a directory
// outside, the first is outside and the second the project's notes.txt.
// Each is then resolved with resolveAbs. The two are one when p has no
// "..".
func pathReadings(p, cwd string) ([]string, bool) {
	if p == "" {
		return nil, false
	}
	if !filepath.IsAbs(p) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return nil, false
		}
		p = strings.TrimSuffix(cwd, string(filepath.Separator)) + string(filepath.Separator) + p
	}
	clean := filepath.Clean(p)
	if !hasDotDot(p) {
		return []string{clean}, true
	}
	return []string{p, clean}, true
}

// hasDotDot reports whether p has a ".." element.
func hasDotDot(p string) bool {
	return slices.Contains(splitPath(p), "..")
}

func resolveAbs(p, cwd string) (string, bool) {
	comps := splitPath(p)
	cur := rootOf(p)
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if cur == rootOf(p) && isProcDir(next) && len(comps) > 0 {
			// /proc/<who>/<what>: only our own cwd and root are knowable.
			who, what := comps[0], ""
			if len(comps) > 1 {
				what = comps[1]
			}
			if (who == "self" || who == "thread-self") && what == "cwd" {
				if cwd == "" || !filepath.IsAbs(cwd) {
					return "", false
				}
				rest := comps[2:]
				r, ok := resolveAbs(cwd, "")
				if !ok {
					return "", false
				}
				cur, comps = r, rest
				continue
			}
			if (who == "self" || who == "thread-self") && what == "root" {
				cur, comps = rootOf(p), comps[2:]
				continue
			}
			return "", false
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// It does not exist (yet): the rest is taken as written.
			cur = next
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", false
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(target) {
			cur = rootOf(target)
		}
		comps = append(splitPath(target), comps...)
	}
	return filepath.Clean(cur), true
}

func isProcDir(p string) bool { return filepath.ToSlash(p) == "/proc" }

func splitPath(p string) []string {
	p = filepath.ToSlash(p)
	if v := filepath.VolumeName(p); v != "" {
		p = p[len(v):]
	}
	return strings.Split(p, "/")
}

// rootOf returns the file system root p is under: "/" or a volume.
func rootOf(p string) string {
	return filepath.VolumeName(p) + string(filepath.Separator)
}

// resolvedRoot resolves the project boundary the same way paths are.
func resolvedRoot(root string) string {
	if root == "" {
		return ""
	}
	if r, ok := resolvePath(root, ""); ok {
		return r
	}
	return filepath.Clean(root)
}

// within reports whether p is root or below it; both must be resolved.
// The comparison follows the platform's file name case rules.
func within(root, p string) bool {
	root = foldPath(filepath.Clean(root))
	p = foldPath(filepath.Clean(p))
	if p == root {
		return true
	}
	prefix := strings.TrimSuffix(root, string(filepath.Separator)) + string(filepath.Separator)
	return strings.HasPrefix(p, prefix)
}

// pathKind is what a resolved path is to the project.
type pathKind int

const (
	pathInside    pathKind = iota // in the project, or unknown
	pathOutside                   // outside the project, and writing there cannot reach it
	pathSensitive                 // outside, but programs the gate lets run load code or settings from there
)

// places are where programs load code or settings from, resolved once,
// and the project root's identity, read once when needed.
type places struct {
	home        string   // the resolved home directory
	gopathUnset bool     // GOPATH is not set: ~/go is the module cache
	dirs        []string // PATH directories and tool homes and caches

	rootSeen string      // the root whose identity rootID holds
	rootID   os.FileInfo // nil when the root cannot be read
}

// judge says where a write to the file a tool names as p lands, for editor
// tools, patches and shell writes alike. root is the resolved project
// boundary and cwd the (resolved) directory relative paths start from;
// resolve resolves an absolute path (resolveAbs, or the analysis's memo of
// it), ok false when it cannot be known.
//
// p is outside only when it is outside under both readings (pathReadings),
// when no directory above it is the project root under another name (a
// second mount of the project, or another path to it: compared by
// identity, device and inode), and when it is not an existing file with
// another name (a hard link) that may be inside. Anything unknowable is
// inside.
func (pl *places) judge(root, p, cwd string, resolve func(abs, cwd string) (string, bool)) pathKind {
	if root == "" {
		return pathInside
	}
	forms, ok := pathReadings(p, cwd)
	if !ok {
		return pathInside
	}
	kind := pathOutside
	for _, f := range forms {
		r, ok := resolve(f, cwd)
		if !ok {
			return pathInside
		}
		switch pl.classify(root, r) {
		case pathInside:
			return pathInside
		case pathSensitive:
			kind = pathSensitive
		default:
			if pl.rootAbove(root, r) || hardLinked(r) {
				return pathInside
			}
		}
	}
	return kind
}

// rootAbove reports whether p, or a directory above it, is the project
// root by identity: the same directory reached under another name.
func (pl *places) rootAbove(root, p string) bool {
	if pl.rootSeen != root {
		pl.rootSeen, pl.rootID = root, nil
		if fi, err := os.Stat(root); err == nil && fi.IsDir() {
			pl.rootID = fi
		}
	}
	if pl.rootID == nil {
		return false
	}
	for a := p; ; a = filepath.Dir(a) {
		if fi, err := os.Stat(a); err == nil && os.SameFile(fi, pl.rootID) {
			return true
		}
		if filepath.Dir(a) == a {
			return false
		}
	}
}

func (w Where) places() *places {
	pl := &places{home: w.resolvedEnvDir("HOME"), gopathUnset: w.getenv("GOPATH") == ""}
	add := func(list string) {
		for _, d := range filepath.SplitList(list) {
			if d != "" && filepath.IsAbs(d) {
				pl.dirs = append(pl.dirs, resolvedRoot(d))
			}
		}
	}
	add(w.getenv("PATH"))
	for _, k := range toolDirEnv {
		add(w.getenv(k))
	}
	return pl
}

func (pl *places) classify(root, p string) pathKind {
	if root == "" || within(root, p) || within(p, root) {
		return pathInside // an ancestor of the project holds it
	}
	if pl.sensitive(root, p) {
		return pathSensitive
	}
	return pathOutside
}

// sensitive reports whether p (outside the project) is a place programs
// load code or configuration from: the user's dot files, PATH directories,
// system directories, tool caches and module stores, and configuration file
// names in a directory above the project that tools find by walking up.
func (pl *places) sensitive(root, p string) bool {
	if home := pl.home; home != "" {
		if within(p, home) {
			return true // home itself, or an ancestor of it
		}
		if within(home, p) {
			rel, _ := filepath.Rel(home, p)
			first := strings.Split(filepath.ToSlash(rel), "/")
			if strings.HasPrefix(first[0], ".") {
				// Claude Code's own plan files are the one dot directory an
				// agent writes to (its editor tools do, in plan mode).
				return !(len(first) >= 3 && first[0] == ".claude" && first[1] == "plans")
			}
			if first[0] == "go" && pl.gopathUnset {
				return true // the default GOPATH: the module cache and installed tools
			}
		}
	}
	for _, d := range pl.dirs {
		if within(d, p) || within(p, d) {
			return true
		}
	}
	if isSystemPath(p) {
		return true
	}
	// The entry p makes in the deepest directory above the project.
	for a := filepath.Dir(root); ; a = filepath.Dir(a) {
		if within(a, p) {
			rel, err := filepath.Rel(a, p)
			if err == nil {
				entry := strings.Split(filepath.ToSlash(rel), "/")[0]
				if discoveredName(entry) {
					return true
				}
			}
			break
		}
		if filepath.Dir(a) == a {
			break
		}
	}
	return false
}

func (w Where) resolvedEnvDir(k string) string {
	d := w.getenv(k)
	if d == "" || !filepath.IsAbs(d) {
		return ""
	}
	return resolvedRoot(d)
}

// toolDirEnv names environment variables holding directories that tools
// load code, compiled objects or settings from: tool homes and caches
// (package dirs holds both lists).
var toolDirEnv = append(slices.Clone(dirs.CodeEnv), dirs.CacheEnv...)

// discoveredName reports whether a file or directory of this name, in a
// directory above the project, is found by tools that walk up from their
// working directory (git, jj, go, cargo, npm, pytest, eslint, …).
func discoveredName(name string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	if slices.Contains(discoveredNames, name) {
		return true
	}
	lower := strings.ToLower(name)
	for _, s := range []string{".config.", ".conf.", "rc.js", "rc.cjs", "rc.json", "rc.yaml", "rc.yml"} {
		if strings.Contains(lower, s) || strings.HasSuffix(lower, strings.TrimSuffix(s, ".")) {
			return true
		}
	}
	return strings.HasSuffix(lower, ".pth") || strings.HasSuffix(lower, ".conf")
}

var discoveredNames = []string{
	"go.work", "go.work.sum", "go.mod", "go.sum", "Cargo.toml", "Cargo.lock", "rust-toolchain", "rust-toolchain.toml",
	"package.json", "package-lock.json", "node_modules", "pnpm-workspace.yaml", "lerna.json", "nx.json", "tsconfig.json", "jsconfig.json",
	"deno.json", "deno.jsonc", "bunfig.toml", "pytest.ini", "conftest.py", "pyproject.toml", "setup.cfg", "setup.py", "tox.ini",
	"noxfile.py", "Pipfile", "sitecustomize.py", "usercustomize.py", "Gemfile", "Rakefile", "Makefile", "GNUmakefile", "makefile",
	"justfile", "Justfile", "Taskfile.yml", "Taskfile.yaml", "flake.nix", "shell.nix", "default.nix", "WORKSPACE", "WORKSPACE.bazel",
	"MODULE.bazel", "BUILD", "BUILD.bazel", "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
	"gradle.properties", "composer.json", "mise.toml", "compose.yaml", "compose.yml", "docker-compose.yml", "docker-compose.yaml",
	"karma.conf.js", "Dockerfile", "Vagrantfile",
}
