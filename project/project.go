// Package project names the project a code repository belongs to, so that
// two repositories that are not the same project never share a state repo
// (nor sessions or metrics, which live under the same name), and where that
// project's state repo is.
//
// A project's name is, in order:
//
//  1. the configuration's "project:" (.planq/config.yaml): the user's word,
//     so clones that commit the same name share one state repo;
//  2. the state repo that the repo's state worktree (.planq/agent) links to
//     under PLANQ_HOME — what the repo has been using, wherever it moved;
//  3. the repo directory's name alone, for projects that planq named so
//     before names were unique: when a state repo of that name records this
//     repo (a worktree registered at its path, or its path in the owners
//     file), or, with no state repo of that name nor of the name below,
//     when sessions or metrics of that name exist;
//  4. otherwise the directory's name, as a readable prefix, plus 8 hex
//     digits of a hash of the repo's path (its main workspace's, links
//     resolved): "api-3f9c2a1b".
//
// The name comes from files only (no jj or git process), so hooks can
// afford it. Every jj workspace of a repo is the same project: the main
// workspace's path names it.
//
// A state repo records the repos that use it in OwnersFile, one path a
// line. A derived name (4) whose state repo is in use by another repo —
// one whose worktree is there and links back — is a collision, refused by
// Collision with the fix.
package project

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/internal/gitlink"
	"github.com/planq-dev/planq/jj"
)

// Where things are, relative to PLANQ_HOME and a state repo.
const (
	ReposDir    = "state-repos"  // <home>/state-repos/<name>.git
	WorktreeDir = ".planq/agent" // the state worktree, relative to the code repo
	OwnersFile  = "planq-owners" // <bare>/planq-owners: the repos using it
	sessionsDir = "sessions"     // <home>/sessions/<name> (transcript.Store)
	metricsDir  = "metrics"      // <home>/metrics/<name> (metrics.Dir)
)

// Source says how a project's name was found.
type Source string

// The sources of a name, in the order they are tried.
const (
	FromConfig  Source = "config"   // .planq/config.yaml "project:"
	FromLink    Source = "worktree" // the state worktree's link
	FromLegacy  Source = "legacy"   // the directory's name, recorded before names were unique
	FromDerived Source = "derived"  // the directory's name plus a hash of the repo's path
)

// StateRepo returns the path of project name's bare state repo under home.
func StateRepo(home, name string) string {
	return filepath.Join(home, ReposDir, name+".git")
}

// Location is where the project of a code repo is: what every part of
// planq that keeps records under PLANQ_HOME (state repo, transcripts,
// metrics) resolves first.
type Location struct {
	Root   string        // the code repo's root
	Config config.Config // its .planq/config.yaml
	Home   string        // PLANQ_HOME, absolute (config.StateHome)
	Name   string        // the project's name (Name)
	Source Source        // where Name came from
}

// Locate resolves the project of the code repo whose root is root: its
// configuration, PLANQ_HOME as getenv gives it, and its name. It reads
// files only, so hooks can afford it.
func Locate(root string, getenv func(string) string) (Location, error) {
	home, err := config.StateHome(getenv)
	if err != nil {
		return Location{}, err
	}
	return LocateIn(root, home, "")
}

// LocateIn is Locate with PLANQ_HOME given (home, made absolute), for a
// caller that resolved it already, and the project's name given when name
// is not "" (a --project flag: the user's word, Source FromConfig); else
// Name finds it.
func LocateIn(root, home, name string) (Location, error) {
	cfg, err := config.Load(root)
	if err != nil {
		return Location{}, err
	}
	if home, err = filepath.Abs(home); err != nil {
		return Location{}, err
	}
	src := FromConfig
	if name == "" {
		if name, src, err = Name(root, cfg, home); err != nil {
			return Location{}, err
		}
	}
	return Location{Root: root, Config: cfg, Home: home, Name: name, Source: src}, nil
}

// Usable refuses a location whose state repo planq must not use: a name
// that is not a valid project name, or a derived name whose state repo
// another code repo is using (Collision), with the fix.
func (l Location) Usable() error {
	if err := config.ValidName(l.Name); err != nil {
		return fmt.Errorf("project name: %w", err)
	}
	return Collision(l.Name, l.Source, l.Home, MainRoot(l.Root))
}

// Name returns the project of the code repo at root (see the package doc)
// and where the name came from. home is PLANQ_HOME.
func Name(root string, c config.Config, home string) (string, Source, error) {
	if c.Project != "" {
		if err := config.ValidName(c.Project); err != nil {
			return "", "", fmt.Errorf("project: %w", err)
		}
		return c.Project, FromConfig, nil
	}
	main := MainRoot(root)
	for _, r := range uniq(main, root) {
		if name, ok := Linked(r, home); ok {
			return name, FromLink, nil
		}
	}
	legacy := config.SanitizeName(filepath.Base(main))
	derived := Derived(main)
	if ownsLegacy(home, legacy, derived, main, root) {
		return legacy, FromLegacy, nil
	}
	return derived, FromDerived, nil
}

// MainRoot returns the path that names the project of the code repo at
// root: its main jj workspace's root (root itself outside jj), links
// resolved where they can be.
func MainRoot(root string) string {
	main := root
	if m, err := jj.MainRoot(root); err == nil {
		main = m
	}
	if abs, err := filepath.Abs(main); err == nil {
		main = abs
	}
	if real, err := filepath.EvalSymlinks(main); err == nil {
		main = real
	}
	return filepath.Clean(main)
}

// Derived is the name a repo at main (its MainRoot) gets when nothing else
// names it: its directory's name, cleaned and cut to leave room, a '-',
// and 8 hex digits of the path's SHA-256.
func Derived(main string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(main)))
	prefix := config.SanitizeName(filepath.Base(main))
	if len(prefix) > 55 {
		prefix = strings.TrimRight(prefix[:55], "-.")
	}
	return prefix + "-" + hex.EncodeToString(sum[:4])
}

// Linked returns the project whose state repo, under home, the state
// worktree of the code repo at root links to (its .git file), if any.
func Linked(root, home string) (string, bool) {
	admin, ok := worktreeLink(root)
	if !ok {
		return "", false
	}
	bare := filepath.Dir(filepath.Dir(admin)) // <home>/state-repos/<name>.git/worktrees/<id>
	name, ok := strings.CutSuffix(filepath.Base(bare), ".git")
	if !ok || filepath.Base(filepath.Dir(admin)) != "worktrees" || config.ValidName(name) != nil {
		return "", false
	}
	if !samePath(filepath.Dir(bare), filepath.Join(home, ReposDir)) {
		return "", false // a state repo under another PLANQ_HOME
	}
	if _, err := os.Stat(filepath.Join(bare, "HEAD")); err != nil {
		return "", false
	}
	return name, true
}

// worktreeLink reads the admin directory named by root's state worktree's
// .git file, never following a link on the way.
func worktreeLink(root string) (string, bool) {
	dir := root
	for _, part := range strings.Split(WorktreeDir, "/") {
		dir = filepath.Join(dir, part)
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
			return "", false
		}
	}
	admin, found, err := gitlink.Read(dir)
	return admin, found && err == nil
}

// ownsLegacy reports whether the directory-named project legacy is the
// repo at roots: its state repo records one of them, or, with neither a
// state repo of that name nor one of the derived name, sessions or metrics
// of that name exist.
func ownsLegacy(home, legacy, derived string, roots ...string) bool {
	bare := StateRepo(home, legacy)
	if _, err := os.Stat(filepath.Join(bare, "HEAD")); err != nil {
		if _, err := os.Stat(filepath.Join(StateRepo(home, derived), "HEAD")); err == nil {
			return false // the project has its state repo under the derived name
		}
		for _, d := range []string{sessionsDir, metricsDir} {
			if st, err := os.Stat(filepath.Join(home, d, legacy)); err == nil && st.IsDir() {
				return true
			}
		}
		return false
	}
	for _, r := range roots {
		if Records(bare, r) {
			return true
		}
	}
	return false
}

// Records reports whether the state repo bare records the code repo at
// root: in its owners file, or by a worktree registered at root's state
// worktree.
func Records(bare, root string) bool {
	for _, o := range Owners(bare) {
		if samePath(o, root) {
			return true
		}
	}
	want := filepath.Join(root, filepath.FromSlash(WorktreeDir), ".git")
	ents, _ := os.ReadDir(filepath.Join(bare, "worktrees"))
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(bare, "worktrees", e.Name(), "gitdir"))
		if err == nil && samePath(strings.TrimSpace(string(data)), want) {
			return true
		}
	}
	return false
}

// Owners lists the code repos the state repo bare records as using it.
func Owners(bare string) []string {
	f, err := os.Open(filepath.Join(bare, OwnersFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); filepath.IsAbs(l) {
			out = append(out, l)
		}
	}
	return out
}

// RecordOwner adds root (a MainRoot) to bare's owners file unless it is
// there. The caller holds the state repo's write lock.
func RecordOwner(bare, root string) error {
	for _, o := range Owners(bare) {
		if o == root {
			return nil
		}
	}
	f, err := os.OpenFile(filepath.Join(bare, OwnersFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("record the repo using %s: %w", bare, err)
	}
	_, err = f.WriteString(root + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// InUseBy lists the code repos, other than the one at main, whose state
// worktree is registered in bare and links back to it: the repos using the
// state repo now.
func InUseBy(bare, main string) []string {
	var out []string
	ents, _ := os.ReadDir(filepath.Join(bare, "worktrees"))
	for _, e := range ents {
		admin := filepath.Join(bare, "worktrees", e.Name())
		data, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		wt := filepath.Dir(strings.TrimSpace(string(data)))
		if link, ok := worktreeLink(filepath.Dir(filepath.Dir(wt))); !ok || !samePath(link, admin) {
			continue // gone, or moved on
		}
		repo := filepath.Dir(filepath.Dir(wt)) // <repo>/.planq/agent
		if !samePath(MainRoot(repo), main) {
			out = append(out, repo)
		}
	}
	return out
}

// Collision refuses a derived name whose state repo another code repo is
// using (InUseBy) while this one has no link to it: the repo at main took
// a path a moved repo had, or the hashes collide. The error says how to
// name this project instead.
func Collision(name string, src Source, home, main string) error {
	if src != FromDerived {
		return nil
	}
	bare := StateRepo(home, name)
	if _, err := os.Stat(filepath.Join(bare, "HEAD")); err != nil {
		return nil
	}
	others := InUseBy(bare, main)
	if len(others) == 0 {
		return nil
	}
	return fmt.Errorf("the state repo %s that %s would use belongs to the repo at %s (its worktree links to it); "+
		"give this project a name of its own: `planq state init --project %s-2` (it records project: in %s), "+
		"or, if it is the same project, `planq state init --project %s` to share it",
		bare, main, others[0], config.SanitizeName(filepath.Base(main)), config.File, name)
}

// samePath reports whether two paths name the same file, comparing them
// cleaned when either cannot be read.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func uniq(a, b string) []string {
	if samePath(a, b) {
		return []string{a}
	}
	return []string{a, b}
}
