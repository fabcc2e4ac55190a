package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planq-dev/planq/config"
)

// world is a PLANQ_HOME and a place for code repos.
type world struct {
	t    *testing.T
	home string
	base string
}

func newWorld(t *testing.T) *world {
	t.Parallel()
	base := t.TempDir()
	return &world{t: t, home: filepath.Join(base, "planq-home"), base: base}
}

// repo makes a git repo at rel under the world.
func (w *world) repo(rel string) string {
	w.t.Helper()
	dir := filepath.Join(w.base, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		w.t.Fatalf("git init: %v %s", err, out)
	}
	return dir
}

// stateRepo makes a bare state repo named name with the worktree of the
// repo at root linked into it, as planq lays them out (and as planq did
// before names were unique, when withOwners is false).
func (w *world) stateRepo(name, root string, withOwners bool) string {
	w.t.Helper()
	bare := StateRepo(w.home, name)
	admin := filepath.Join(bare, "worktrees", "agent-1")
	wt := filepath.Join(root, ".planq", "agent")
	for _, d := range []string{admin, wt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			w.t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(bare, "HEAD"):    "ref: refs/heads/global\n",
		filepath.Join(admin, "gitdir"): filepath.Join(wt, ".git") + "\n",
		filepath.Join(admin, "HEAD"):   "ref: refs/heads/agent-main\n",
		filepath.Join(wt, ".git"):      "gitdir: " + admin + "\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
	if withOwners {
		if err := RecordOwner(bare, MainRoot(root)); err != nil {
			w.t.Fatal(err)
		}
	}
	return bare
}

func (w *world) name(root string, c config.Config) (string, Source) {
	w.t.Helper()
	n, src, err := Name(root, c, w.home)
	if err != nil {
		w.t.Fatal(err)
	}
	return n, src
}

var derivedName = regexp.MustCompile(`^api-[0-9a-f]{8}$`)

func TestTwoReposWithTheSameFolderNameAreTwoProjects(t *testing.T) {
	w := newWorld(t)
	a, b := w.repo("work/api"), w.repo("forks/api")
	na, srcA := w.name(a, config.Config{})
	nb, srcB := w.name(b, config.Config{})
	if na == nb || !derivedName.MatchString(na) || !derivedName.MatchString(nb) || srcA != FromDerived || srcB != FromDerived {
		t.Fatalf("names %q (%s) and %q (%s); want two different api-<hash> names", na, srcA, nb, srcB)
	}
	if again, _ := w.name(a, config.Config{}); again != na {
		t.Errorf("the name is not stable: %q then %q", na, again)
	}
	// A link of the same path through a symlink is the same project.
	link := filepath.Join(w.base, "link-to-api")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if n, _ := w.name(link, config.Config{}); n != na {
		t.Errorf("through a symlink the name is %q, want %q", n, na)
	}
}

func TestTheConfiguredNameWins(t *testing.T) {
	w := newWorld(t)
	a := w.repo("api")
	w.stateRepo("other", a, true)
	if n, src := w.name(a, config.Config{Project: "shop"}); n != "shop" || src != FromConfig {
		t.Errorf("configured: %q (%s)", n, src)
	}
	if _, _, err := Name(a, config.Config{Project: "../x"}, w.home); err == nil {
		t.Error("an invalid configured name was accepted")
	}
}

func TestTheWorktreeLinkKeepsAProjectItsStateRepo(t *testing.T) {
	w := newWorld(t)
	a := w.repo("api")
	w.stateRepo("api-legacyname", a, false)
	if n, src := w.name(a, config.Config{}); n != "api-legacyname" || src != FromLink {
		t.Errorf("linked: %q (%s)", n, src)
	}
	// Moved elsewhere, the repo still finds it through its worktree.
	moved := filepath.Join(w.base, "moved", "api")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.Rename(a, moved); err != nil {
		t.Fatal(err)
	}
	if n, src := w.name(moved, config.Config{}); n != "api-legacyname" || src != FromLink {
		t.Errorf("after a move: %q (%s)", n, src)
	}
	// A link into another PLANQ_HOME does not count.
	if n, _, _ := Name(moved, config.Config{}, filepath.Join(w.base, "other-home")); !derivedName.MatchString(n) {
		t.Errorf("with another PLANQ_HOME: %q", n)
	}
}

func TestStateReposNamedAfterTheFolderKeepWorking(t *testing.T) {
	w := newWorld(t)
	a := w.repo("one/api")
	bare := w.stateRepo("api", a, false) // made before names were unique
	if n, src := w.name(a, config.Config{}); n != "api" || src != FromLink {
		t.Errorf("the repo that made api.git: %q (%s)", n, src)
	}
	// Its worktree gone (planq remove), its registration remains: still its.
	os.RemoveAll(filepath.Join(a, ".planq"))
	if n, src := w.name(a, config.Config{}); n != "api" || src != FromLegacy {
		t.Errorf("with the worktree removed: %q (%s)", n, src)
	}
	// Another repo named api is not that project.
	b := w.repo("two/api")
	if n, _ := w.name(b, config.Config{}); !derivedName.MatchString(n) {
		t.Errorf("a second repo named api got %q", n)
	}
	// The registration gone too, only the owners file ties it to a.
	os.RemoveAll(filepath.Join(bare, "worktrees"))
	if n, _ := w.name(a, config.Config{}); !derivedName.MatchString(n) {
		t.Errorf("nothing ties api.git to the repo any more, yet it got %q", n)
	}
	RecordOwner(bare, MainRoot(a))
	if n, src := w.name(a, config.Config{}); n != "api" || src != FromLegacy {
		t.Errorf("recorded in the owners file: %q (%s)", n, src)
	}
}

func TestSessionsOfAnOlderProjectKeepItsName(t *testing.T) {
	w := newWorld(t)
	a := w.repo("api")
	if err := os.MkdirAll(filepath.Join(w.home, "sessions", "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	if n, src := w.name(a, config.Config{}); n != "api" || src != FromLegacy {
		t.Errorf("with sessions named api and no state repo: %q (%s)", n, src)
	}
}

func TestACollisionIsRefusedWithTheFix(t *testing.T) {
	w := newWorld(t)
	a := w.repo("api")
	main := MainRoot(a)
	name := Derived(main)
	w.stateRepo(name, a, true)
	// The repo moves away; another appears at its old path.
	moved := filepath.Join(w.base, "elsewhere", "api")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.Rename(a, moved); err != nil {
		t.Fatal(err)
	}
	// (planq points the registration at the new place on its next write.)
	os.WriteFile(filepath.Join(StateRepo(w.home, name), "worktrees", "agent-1", "gitdir"), []byte(filepath.Join(moved, ".planq", "agent", ".git")+"\n"), 0o644)
	b := w.repo("api")
	n, src := w.name(b, config.Config{})
	if n != name || src != FromDerived {
		t.Fatalf("the new repo at the old path: %q (%s)", n, src)
	}
	err := Collision(n, src, w.home, MainRoot(b))
	if err == nil || !strings.Contains(err.Error(), moved) || !strings.Contains(err.Error(), "planq state init --project") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Collision = %v", err)
	}
	if err := Collision(name, FromLink, w.home, MainRoot(moved)); err != nil {
		t.Errorf("the moved repo itself: %v", err)
	}
}

// Locate reads the repo's configuration and PLANQ_HOME as its caller's
// environment gives them, and names the project as Name does; a broken
// configuration is an error, never a silently derived name.
func TestLocate(t *testing.T) {
	w := newWorld(t)
	root := w.repo("api")
	getenv := func(k string) string {
		if k == "PLANQ_HOME" {
			return w.home
		}
		return ""
	}
	loc, err := Locate(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Root != root || loc.Home != w.home || !derivedName.MatchString(loc.Name) || loc.Source != FromDerived {
		t.Errorf("Locate = %+v", loc)
	}
	if err := os.MkdirAll(filepath.Join(root, ".planq"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.Path(root), []byte("project: shop\nagent: ann\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if loc, err = Locate(root, getenv); err != nil || loc.Name != "shop" || loc.Source != FromConfig || loc.Config.Agent != "ann" {
		t.Errorf("with a configured name: %+v, %v", loc, err)
	}
	// A name the caller gives (--project) wins, and is checked by Usable.
	if loc, err = LocateIn(root, w.home, "web"); err != nil || loc.Name != "web" || loc.Source != FromConfig || loc.Config.Agent != "ann" {
		t.Errorf("with a given name: %+v, %v", loc, err)
	}
	if loc, err = LocateIn(root, w.home, "../evil"); err != nil || loc.Usable() == nil || !strings.Contains(loc.Usable().Error(), "project name") {
		t.Errorf("an invalid given name is usable: %+v, %v", loc, err)
	}
	if err := os.WriteFile(config.Path(root), []byte("project: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Locate(root, getenv); err == nil {
		t.Error("a configuration that does not parse gave a location")
	}
}
