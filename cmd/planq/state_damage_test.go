package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// damageWorld is a state repo with three entries, for breaking by hand.
type damageWorld struct {
	*stateWorld
	bareDir string
	wt      string
}

func newDamageWorld(t *testing.T) *damageWorld {
	w := newStateWorld(t)
	w.env["PLANQ_GC_AUTO"] = "0"
	for _, e := range []string{"entry one", "entry two", "entry three"} {
		w.ok("log", "add", e)
	}
	return &damageWorld{stateWorld: w, bareDir: w.bare(), wt: filepath.Join(w.repo, ".planq", "agent")}
}

// status runs `planq state status --json` and returns its exit code and
// damage reports.
func (w *damageWorld) status() (int, []map[string]string, string) {
	w.t.Helper()
	out, errs, code := w.planq("", "state", "status", "--json")
	var st struct {
		Health struct {
			Damage []map[string]string `json:"damage"`
		} `json:"health"`
		Dirty []string `json:"dirty"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		w.t.Fatalf("state status --json: %v\n%s%s", err, out, errs)
	}
	text, _, _ := w.planq("", "state", "status")
	if len(st.Dirty) > 0 {
		text += "\nDIRTY: " + strings.Join(st.Dirty, ",")
	}
	return code, st.Health.Damage, text
}

// gitOK reports whether git itself can read the repo's branches.
func (w *damageWorld) gitOK() error {
	cmd := exec.Command("git", "-C", w.bareDir, "log", "--oneline", "agent-main", "global")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &exec.ExitError{ProcessState: cmd.ProcessState, Stderr: out}
	}
	return nil
}

// wantLog fails unless planq log shows every body.
func (w *damageWorld) wantLog(bodies ...string) {
	w.t.Helper()
	out := w.ok("log", "-n", "0")
	for _, b := range bodies {
		if !strings.Contains(out, b) {
			w.t.Errorf("planq log lacks %q:\n%s", b, out)
		}
	}
}

// looseFile returns the loose object file of id.
func (w *damageWorld) looseFile(id string) string {
	return filepath.Join(w.bareDir, "objects", id[:2], id[2:])
}

// overwrite replaces a (read-only) file's content.
func overwrite(t *testing.T, p string, data []byte) {
	t.Helper()
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedStateRepos breaks the state repo in each way the fault runs
// found and checks that `planq state status` (and `planq doctor`) name the
// damage and its fix and exit 1, and that the next write repairs it as the
// README promises, or refuses with the commands that recover it — never
// losing an acknowledged entry.
func TestDamagedStateRepos(t *testing.T) {
	t.Parallel()
	t.Run("ref at a missing object, with a good reflog entry", func(t *testing.T) {
		w := newDamageWorld(t)
		good := w.git(w.bareDir, "rev-parse", "agent-main")
		overwrite(t, filepath.Join(w.bareDir, "refs", "heads", "agent-main"), []byte("0123456789abcdef0123456789abcdef01234567\n"))
		code, dmg, text := w.status()
		if code != 1 || len(dmg) == 0 || !strings.Contains(text, "0123456789") || !strings.Contains(text, "restores agent-main to "+good[:10]) {
			t.Fatalf("status: exit %d\n%s", code, text)
		}
		_, errs, code := w.planq("", "log", "add", "entry four")
		if code != 0 || !strings.Contains(errs, "restored it to "+good[:10]) {
			t.Fatalf("the next write: exit %d: %s", code, errs)
		}
		w.wantLog("entry one", "entry two", "entry three", "entry four")
		w.git(w.bareDir, "fsck", "--strict", "--no-progress")
		if code, dmg, text := w.status(); code != 0 || len(dmg) != 0 {
			t.Errorf("status after the repair: exit %d\n%s", code, text)
		}
	})

	t.Run("the head commit's object deleted", func(t *testing.T) {
		w := newDamageWorld(t)
		head := w.git(w.bareDir, "rev-parse", "agent-main")
		before := w.git(w.bareDir, "rev-parse", "agent-main~1")
		os.Remove(w.looseFile(head))
		code, _, text := w.status()
		if code != 1 || !strings.Contains(text, head[:10]) || !strings.Contains(text, "restores agent-main to "+before[:10]) || strings.Contains(text, "DIRTY") {
			t.Fatalf("status: exit %d\n%s", code, text)
		}
		// The restored branch lacks entry three, which the worktree still
		// holds: it is kept and committed with the next entry.
		_, errs, code := w.planq("", "log", "add", "entry four")
		if code != 0 || !strings.Contains(errs, "restored it to "+before[:10]) || !strings.Contains(errs, "uncommitted edits") {
			t.Fatalf("the next write: exit %d: %s", code, errs)
		}
		w.wantLog("entry one", "entry two", "entry three", "entry four")
		if got := w.git(w.bareDir, "show", "agent-main:changelog.md"); !strings.Contains(got, "entry three") {
			t.Errorf("entry three is not on the branch:\n%s", got)
		}
		w.git(w.bareDir, "fsck", "--no-progress", "--no-dangling", "agent-main", "global")
	})

	for _, how := range []string{"replaced", "appended to"} {
		t.Run("packed-refs "+how+" with garbage", func(t *testing.T) {
			w := newDamageWorld(t)
			w.git(w.bareDir, "pack-refs", "--all")
			packed := filepath.Join(w.bareDir, "packed-refs")
			data, _ := os.ReadFile(packed)
			if how == "replaced" {
				data = nil
			}
			overwrite(t, packed, append(data, "this is not a ref\n\x00\x01garbage\n"...))
			if w.gitOK() == nil {
				t.Fatal("git still reads the repo: the damage did not take")
			}
			code, _, text := w.status()
			if code != 1 || !strings.Contains(text, "packed-refs") || !strings.Contains(text, "keeps its valid lines") {
				t.Fatalf("status: exit %d\n%s", code, text)
			}
			_, errs, code := w.planq("", "log", "add", "entry four")
			if code != 0 || !strings.Contains(errs, "packed-refs had") {
				t.Fatalf("the next write: exit %d: %s", code, errs)
			}
			saved, _ := filepath.Glob(packed + ".damaged-*")
			if len(saved) != 1 {
				t.Errorf("the damaged packed-refs was not kept beside it: %v", saved)
			}
			if err := w.gitOK(); err != nil {
				t.Fatalf("git still cannot read the repo: %v", err)
			}
			w.wantLog("entry one", "entry two", "entry three", "entry four")
			if out, errs, code := w.planq("", "state", "gc"); code != 0 {
				t.Errorf("state gc after the repair: exit %d\n%s%s", code, out, errs)
			}
			w.git(w.bareDir, "fsck", "--strict", "--no-progress")
		})
	}

	t.Run("packed-refs damaged, then state gc first", func(t *testing.T) {
		w := newDamageWorld(t)
		w.git(w.bareDir, "pack-refs", "--all")
		overwrite(t, filepath.Join(w.bareDir, "packed-refs"), []byte("garbage\n"))
		if out, errs, code := w.planq("", "state", "gc"); code != 0 || !strings.Contains(errs, "packed-refs had") {
			t.Fatalf("state gc on a damaged packed-refs: exit %d\n%s%s", code, out, errs)
		}
		if err := w.gitOK(); err != nil {
			t.Fatal(err)
		}
		w.wantLog("entry one", "entry two", "entry three")
	})

	t.Run("corrupt loose object in history", func(t *testing.T) {
		w := newDamageWorld(t)
		old := w.git(w.bareDir, "rev-parse", "agent-main~1:changelog.md")
		file := w.looseFile(old)
		overwrite(t, file, []byte("not zlib at all"))
		code, _, text := w.status()
		if code != 1 || !strings.Contains(text, old[:10]) || !strings.Contains(text, file) || !strings.Contains(text, "mv "+file) {
			t.Fatalf("status: exit %d\n%s", code, text)
		}
		if out, _, code := w.planq("", "doctor"); code != 1 || !strings.Contains(out, "damaged: object "+old[:10]) {
			t.Errorf("doctor: exit %d\n%s", code, out)
		}
		// Writes go on (the head is whole); gc refuses with the fix
		// instead of failing inside git.
		w.ok("log", "add", "entry four")
		_, errs, code := w.planq("", "state", "gc")
		if code != 1 || !strings.Contains(errs, old[:10]) || !strings.Contains(errs, "no pack holds a copy") || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("state gc: exit %d: %s", code, errs)
		}
		w.wantLog("entry one", "entry two", "entry three", "entry four")
	})

	t.Run("corrupt loose copy of a packed object", func(t *testing.T) {
		w := newDamageWorld(t)
		w.ok("state", "gc")
		id := w.git(w.bareDir, "rev-parse", "agent-main~1:changelog.md")
		file := w.looseFile(id)
		os.MkdirAll(filepath.Dir(file), 0o755)
		overwrite(t, file, []byte("garbage"))
		code, _, text := w.status()
		if code != 1 || !strings.Contains(text, "planq state gc` moves the damaged file") {
			t.Fatalf("status: exit %d\n%s", code, text)
		}
		if out := w.ok("state", "gc"); !strings.Contains(out, "Moved the damaged object "+file) {
			t.Errorf("state gc: %s", out)
		}
		if code, dmg, text := w.status(); code != 0 || len(dmg) != 0 {
			t.Errorf("status after gc: exit %d\n%s", code, text)
		}
		if moved, _ := filepath.Glob(filepath.Join(w.bareDir, "planq-damaged", id+"-*")); len(moved) != 1 {
			t.Errorf("the damaged file was not kept: %v", moved)
		}
	})

	t.Run("pack deleted", func(t *testing.T) {
		w := newDamageWorld(t)
		w.ok("state", "gc")
		packs, _ := filepath.Glob(filepath.Join(w.bareDir, "objects", "pack", "pack-*.pack"))
		if len(packs) != 1 {
			t.Fatalf("packs after gc: %v", packs)
		}
		os.Remove(packs[0])
		code, _, text := w.status()
		if code != 1 || !strings.Contains(text, "has no "+filepath.Base(packs[0])) || !strings.Contains(text, "which refs/heads/agent-main reaches") ||
			strings.Contains(text, "DIRTY") || strings.Contains(text, "uncommitted") {
			t.Fatalf("status: exit %d\n%s", code, text)
		}
		_, errs, code := w.planq("", "log", "add", "entry four")
		if code != 1 || !strings.Contains(errs, "will not start it over") || !strings.Contains(errs, "Bring back the missing objects") {
			t.Errorf("a write with the branch's objects gone: exit %d: %s", code, errs)
		}
	})

	t.Run("worktree admin folder deleted", func(t *testing.T) {
		w := newDamageWorld(t)
		admins, _ := filepath.Glob(filepath.Join(w.bareDir, "worktrees", "*"))
		if len(admins) != 1 {
			t.Fatalf("worktree admin dirs: %v", admins)
		}
		os.RemoveAll(admins[0])
		code, _, text := w.status()
		if code != 1 || strings.Contains(text, "another state repo") || !strings.Contains(text, "registers it again with branch agent-main") {
			t.Fatalf("status: exit %d\n%s", code, text)
		}
		_, errs, code := w.planq("", "log", "add", "entry four")
		if code != 0 || !strings.Contains(errs, "registered it again with branch agent-main") {
			t.Fatalf("the next write: exit %d: %s", code, errs)
		}
		if st := w.git(w.wt, "status", "--porcelain"); st != "" {
			t.Errorf("worktree after registering it again:\n%s", st)
		}
		w.wantLog("entry one", "entry two", "entry three", "entry four")
		if code, dmg, text := w.status(); code != 0 || len(dmg) != 0 {
			t.Errorf("status after the repair: exit %d\n%s", code, text)
		}
	})

	t.Run("worktree admin folder deleted, worktree matching no branch", func(t *testing.T) {
		w := newDamageWorld(t)
		admins, _ := filepath.Glob(filepath.Join(w.bareDir, "worktrees", "*"))
		os.RemoveAll(admins[0])
		for _, f := range []string{"changelog.md", "scratch.md", "context.md", "learnings.md", "decisions.md"} {
			overwrite(t, filepath.Join(w.wt, f), []byte("someone else's "+f+"\n"))
		}
		_, errs, code := w.planq("", "log", "add", "entry four")
		if code != 1 || strings.Contains(errs, "another state repo") || !strings.Contains(errs, "mv "+w.wt+" "+w.wt+".old") {
			t.Fatalf("the next write: exit %d: %s", code, errs)
		}
		// Following the advice loses nothing.
		if err := os.Rename(w.wt, w.wt+".old"); err != nil {
			t.Fatal(err)
		}
		w.ok("log", "add", "entry four")
		w.wantLog("entry one", "entry two", "entry three", "entry four")
		if data, _ := os.ReadFile(filepath.Join(w.wt+".old", "scratch.md")); string(data) != "someone else's scratch.md\n" {
			t.Errorf("the moved-aside worktree lost its files")
		}
	})
}
