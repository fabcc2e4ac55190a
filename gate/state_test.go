package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/jj"
)

// jjEnv isolates jj from the user's configuration.
func jjEnv(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("jj"); err != nil {
		t.Skip("jj is not installed (scripts/install-jj.sh)")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PLANQ_HOME", filepath.Join(home, ".planq"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("JJ_CONFIG", filepath.Join(home, "jjconfig.toml"))
	t.Setenv("JJ_USER", "Gate Test")
	t.Setenv("JJ_EMAIL", "gate@example.com")
}

func runJJ(t testing.TB, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "jj", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("jj %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func newRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	runJJ(t, filepath.Dir(dir), "git", "init", "--no-colocate", dir)
	return dir
}

func TestStateLockedUntilDescribed(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	st, err := State(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsJJRepo || !st.Locked || st.FromCache || st.Root != repo || st.ChangeID == "" {
		t.Fatalf("fresh repo: %+v, want a locked jj repo rooted at %s, read from jj", st, repo)
	}
	// Nothing happened in jj: the second read comes from the cache.
	st2, err := State(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if !st2.FromCache || !st2.Locked || st2.ChangeID != st.ChangeID {
		t.Fatalf("second read: %+v, want the cached locked state", st2)
	}

	runJJ(t, repo, "describe", "-m", "Add the pager")
	st3, err := State(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if st3.FromCache || st3.Locked || st3.Description != "Add the pager" {
		t.Fatalf("after jj describe: %+v, want unlocked with the new description, read from jj", st3)
	}
	if st4, _ := State(ctx, repo); !st4.FromCache || st4.Locked {
		t.Fatalf("after jj describe, second read: %+v, want cached and unlocked", st4)
	}

	// Editing files does not invalidate the cache (no jj operation runs)...
	if err := os.WriteFile(filepath.Join(repo, "f.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st5, _ := State(ctx, repo); !st5.FromCache || st5.Locked {
		t.Fatalf("after a file edit: %+v, want cached and unlocked", st5)
	}
	// ...and jj new without a message locks the gate again.
	runJJ(t, repo, "new")
	if st6, _ := State(ctx, repo); st6.Locked != true || st6.FromCache {
		t.Fatalf("after jj new: %+v, want locked, read from jj", st6)
	}
	runJJ(t, repo, "new", "-m", "Second change")
	if st7, _ := State(ctx, repo); st7.Locked || st7.Description != "Second change" {
		t.Fatalf("after jj new -m: %+v, want unlocked", st7)
	}
}

func TestStateNotARepo(t *testing.T) {
	t.Parallel()
	st, err := State(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if st.IsJJRepo || !st.Locked {
		t.Fatalf("plain directory: %+v, want locked and not a jj repo", st)
	}
}

func TestStateCacheIgnoresForeignOrStaleFiles(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	cache := filepath.Join(repo, ".jj", CacheFile)
	for _, content := range []string{"", "{", `{"version":1,"key":"nope","description":"forged"}`, `{"version":99}`} {
		if err := os.WriteFile(cache, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := State(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if st.FromCache || !st.Locked {
			t.Errorf("cache %q: %+v, want it ignored and the locked state read from jj", content, st)
		}
	}
}

// TestStateCacheCannotBeForged: the cache is in the project, where a
// command the gate let through by mistake could write it. A cache written
// by anything but planq, naming the right operation heads and a
// description, must not unlock the gate.
func TestStateCacheCannotBeForged(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	cache := filepath.Join(repo, ".jj", CacheFile)
	st, err := State(ctx, repo) // a genuine cache: locked
	if err != nil || !st.Locked {
		t.Fatalf("fresh repo: %+v, %v", st, err)
	}
	key, err := jj.OpHeadsKey(repo)
	if err != nil {
		t.Fatal(err)
	}
	genuine := readEntry(t, cache)
	otherKey := bytes.Repeat([]byte{7}, keySize)

	forged := func(mod func(e *cacheEntry)) cacheEntry {
		e := cacheEntry{Version: cacheVersion, Key: key, ChangeID: st.ChangeID, Description: "Forged description"}
		mod(&e)
		return e
	}
	for name, e := range map[string]cacheEntry{
		"no signature":         forged(func(e *cacheEntry) {}),
		"garbage signature":    forged(func(e *cacheEntry) { e.Sig = "zz" + genuine.Sig[2:] }),
		"genuine's signature":  forged(func(e *cacheEntry) { e.Sig = genuine.Sig }),
		"signed with own key":  forged(func(e *cacheEntry) { e.Sig = sign(otherKey, CacheFile, e.signed(repo)...) }),
		"signed for elsewhere": forged(func(e *cacheEntry) { e.Sig = sign(testKey(t), CacheFile, e.signed(repo+"2")...) }),
	} {
		t.Run(name, func(t *testing.T) {
			writeEntry(t, cache, e)
			got, err := State(ctx, repo)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Locked || got.FromCache || got.Description != "" {
				t.Fatalf("forged cache: %+v, want it ignored and the gate locked, read from jj", got)
			}
		})
	}
	// The control: signed with the key, the same entry is believed. The
	// key is what keeps a forged one out.
	e := forged(func(e *cacheEntry) { e.Sig = sign(testKey(t), CacheFile, e.signed(repo)...) })
	writeEntry(t, cache, e)
	if got, _ := State(ctx, repo); got.Locked || !got.FromCache {
		t.Fatalf("an entry signed with the key: %+v, want it read from the cache", got)
	}
	// The key is the user's only, and a new key voids every cache.
	keyPath := filepath.Join(os.Getenv("PLANQ_HOME"), KeyFile)
	if fi, err := os.Stat(keyPath); err != nil || fi.Mode().Perm()&0o077 != 0 && runtime.GOOS != "windows" {
		t.Fatalf("key file %s: %v, %v; want it readable by the user only", keyPath, fi.Mode(), err)
	}
	if err := os.Remove(keyPath); err != nil {
		t.Fatal(err)
	}
	if got, _ := State(ctx, repo); !got.Locked || got.FromCache {
		t.Fatalf("after the key changed: %+v, want the cache ignored", got)
	}
}

func testKey(t *testing.T) []byte {
	t.Helper()
	k, err := stateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func readEntry(t *testing.T, path string) cacheEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func writeEntry(t *testing.T, path string, e cacheEntry) {
	t.Helper()
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStateKeyCreatedOnce: processes starting at once agree on one key.
func TestStateKeyCreatedOnce(t *testing.T) {
	t.Setenv("PLANQ_HOME", filepath.Join(t.TempDir(), "home"))
	keys := make(chan string, 8)
	for range cap(keys) {
		go func() {
			k, err := stateKey()
			if err != nil {
				keys <- "error: " + err.Error()
				return
			}
			keys <- string(k)
		}()
	}
	first := <-keys
	for range cap(keys) - 1 {
		if k := <-keys; k != first || strings.HasPrefix(k, "error") {
			t.Fatalf("keys differ: %q vs %q", k, first)
		}
	}
	if len(first) != keySize {
		t.Fatalf("key of %d bytes", len(first))
	}
}

func TestStateSecondaryWorkspace(t *testing.T) {
	jjEnv(t)
	ctx := context.Background()
	repo := newRepo(t)
	ws := filepath.Join(filepath.Dir(repo), "ws2")
	runJJ(t, repo, "workspace", "add", ws)
	if fi, err := os.Stat(filepath.Join(ws, ".jj", "repo")); err != nil || fi.IsDir() {
		t.Skipf("this jj keeps no repo pointer file in secondary workspaces (%v)", err)
	}
	if _, err := jj.OpHeadsKey(ws); err != nil {
		t.Fatalf("op heads through the workspace's repo pointer: %v", err)
	}
	runJJ(t, ws, "describe", "-m", "Work in the second workspace")
	st, err := State(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	if st.Locked || st.Root != ws {
		t.Fatalf("secondary workspace: %+v, want unlocked at %s", st, ws)
	}
	if st2, _ := State(ctx, ws); !st2.FromCache {
		t.Fatalf("secondary workspace, second read: %+v, want cached", st2)
	}
	// The main workspace has its own @, still undescribed.
	if st3, _ := State(ctx, repo); !st3.Locked {
		t.Fatalf("main workspace: %+v, want locked", st3)
	}
}

func TestStateJJFailure(t *testing.T) {
	jjEnv(t)
	repo := newRepo(t)
	t.Setenv("PATH", t.TempDir()) // no jj
	_, err := State(context.Background(), repo)
	if err == nil {
		t.Fatal("State without jj: no error")
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	mod := Verdict{Modifies: true, Part: "rm -rf build", Reason: "rm deletes files"}
	ro := Verdict{Reason: "read-only: ls", Rule: RuleShell}
	gitV := Verdict{Modifies: true, Part: "git commit -m x", Reason: "git commit records a commit",
		Git: &GitRewrite{Part: "git commit -m x", Command: "git commit", JJ: "jj commit -m"}}
	locked := Status{IsJJRepo: true, Locked: true, ChangeID: "qpvuntsmwlqtxyz"}
	unlocked := Status{IsJJRepo: true, ChangeID: "qpvuntsmwlqt", Description: "Fix"}
	noRepo := Status{Locked: true}
	strict := DefaultPolicy()
	warn := DefaultPolicy()
	warn.Mode = config.ModeWarn
	off := DefaultPolicy()
	off.Mode = config.ModeOff
	gitOK := DefaultPolicy()
	gitOK.AllowGit = true

	tests := []struct {
		name  string
		v     Verdict
		st    Status
		err   error
		pol   Policy
		allow bool
		warn  bool
		rule  string
		want  []string
	}{
		{name: "read-only", v: ro, st: locked, pol: strict, allow: true, rule: RuleShell},
		{name: "modifying, locked", v: mod, st: locked, pol: strict, rule: RuleLocked,
			want: []string{"Bash", "rm -rf build", "rm deletes files", "mcp__planq__jj_init", "one-line description", "qpvuntsmwlqt", "retry"}},
		{name: "modifying, not a jj repo", v: mod, st: noRepo, pol: strict, rule: RuleNotJJ,
			want: []string{"not a jj repository", "mcp__planq__jj_git_init", "then mcp__planq__jj_init"}},
		{name: "modifying, unlocked", v: mod, st: unlocked, pol: strict, allow: true, rule: RuleDeclared},
		{name: "git rewrite, unlocked jj repo", v: gitV, st: unlocked, pol: strict, rule: RuleGit,
			want: []string{"git commit", "jj commit -m", "gate.git: allow"}},
		{name: "git rewrite allowed by config", v: gitV, st: unlocked, pol: gitOK, allow: true, rule: RuleDeclared},
		{name: "git rewrite outside jj, locked", v: gitV, st: noRepo, pol: strict, rule: RuleNotJJ, want: []string{"mcp__planq__jj_git_init"}},
		{name: "warn mode", v: mod, st: locked, pol: warn, allow: true, warn: true, rule: RuleLocked, want: []string{"warn mode", "mcp__planq__jj_init"}},
		{name: "off", v: mod, st: locked, pol: off, allow: true, rule: RuleOff},
		{name: "state error", v: mod, err: errors.New("jj exploded\nbadly"), pol: strict, rule: RuleStateError, want: []string{"jj exploded badly", "jj status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide("Bash", tt.v, tt.st, tt.err, tt.pol, nil)
			if d.Allow != tt.allow || d.Warn != tt.warn || d.Rule != tt.rule {
				t.Fatalf("decision %+v, want allow=%v warn=%v rule=%s", d, tt.allow, tt.warn, tt.rule)
			}
			for _, w := range tt.want {
				if !strings.Contains(d.Message, w) {
					t.Errorf("message %q lacks %q", d.Message, w)
				}
			}
			if strings.Contains(d.Message, "\n") {
				t.Errorf("message has a newline: %q", d.Message)
			}
		})
	}
}

// TestStateNeverCachesAnOperationItRacedWith: a jj read that an operation
// overtakes (here a jj new, landing after jj printed the old @ and before it
// exited, as a concurrent jj_init or jj new of another process does) must
// not be cached under the operation's heads, or the gate would show the
// old change, declared or not, until the next operation. A jj on PATH runs
// the real one and, once, lands the operation before it returns.
func TestStateNeverCachesAnOperationItRacedWith(t *testing.T) {
	jjEnv(t)
	realJJ, err := exec.LookPath("jj")
	if err != nil {
		t.Skip("jj is not installed")
	}
	ctx := context.Background()
	repo := newRepo(t)
	runJJ(t, repo, "describe", "-m", "Declared change")

	bin := t.TempDir()
	once := filepath.Join(t.TempDir(), "race-once")
	script := "#!/bin/sh\n" +
		"\"$PLANQ_TEST_REAL_JJ\" \"$@\"; rc=$?\n" +
		"if [ -e \"$PLANQ_TEST_RACE_ONCE\" ]; then rm -f \"$PLANQ_TEST_RACE_ONCE\"; \"$PLANQ_TEST_REAL_JJ\" -R \"$PLANQ_TEST_REPO\" new >/dev/null 2>&1; fi\n" +
		"exit $rc\n"
	if err := os.WriteFile(filepath.Join(bin, "jj"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(once, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PLANQ_TEST_REAL_JJ", realJJ)
	t.Setenv("PLANQ_TEST_RACE_ONCE", once)
	t.Setenv("PLANQ_TEST_REPO", repo)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	raced, err := State(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if raced.Locked || raced.Description != "Declared change" {
		t.Fatalf("the raced read: %+v, want the declared change jj printed", raced)
	}
	if _, err := os.Stat(once); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the operation did not race the read (%v): the test proves nothing", err)
	}
	// jj new landed during that read: @ is a new, undescribed change.
	after, err := State(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if !after.Locked || after.ChangeID == raced.ChangeID {
		t.Fatalf("after jj new overtook a read: %+v, want the new change, locked (the raced read was %s)", after, raced.ChangeID)
	}
}
