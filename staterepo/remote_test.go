package staterepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/changelog"
)

// twoClones returns two code repos, each with its own PLANQ_HOME, sharing
// one bare state remote given as remoteURL (a path or a file:// URL).
func twoClones(t *testing.T, fileURL bool) (a, b *env, remote string) {
	a, b = newEnv(t), newEnv(t)
	remote = filepath.Join(t.TempDir(), "shared-state.git")
	url := remote
	if fileURL {
		url = "file://" + remote
	}
	for _, e := range []*env{a, b} {
		s := e.open("")
		if _, err := s.SetRemote(url, e.repo); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, remote
}

func entryBodies(t *testing.T, s *Store, branch, file string) map[string]bool {
	t.Helper()
	rd, err := s.reader()
	if err != nil {
		t.Fatal(err)
	}
	es, probs, err := rd.allEntries(branch, file)
	if err != nil || len(probs) > 0 {
		t.Fatalf("%s:%s: %v %v", branch, file, err, probs)
	}
	out := map[string]bool{}
	for _, e := range es {
		if out[e.Body+e.Decision] {
			t.Errorf("%s:%s has %q twice", branch, file, e.Body)
		}
		out[e.Body+e.Decision] = true
	}
	return out
}

func TestPushPullBetweenTwoClonesBothWriting(t *testing.T) {
	t.Parallel()
	for _, fileURL := range []bool{false, true} {
		name := "path"
		if fileURL {
			name = "file-url"
		}
		t.Run(name, func(t *testing.T) {
			ea, eb, remote := twoClones(t, fileURL)
			c := ctx(t)
			alice, bob := ea.open("alice"), eb.open("bob")
			if _, err := alice.Log(c, "alice: parser work", "", ""); err != nil {
				t.Fatal(err)
			}
			if _, err := alice.Handoff(c, "bob, take the API", nil, "bob"); err != nil { // writes global too
				t.Fatal(err)
			}
			if _, err := bob.Log(c, "bob: ci setup", "", ""); err != nil {
				t.Fatal(err)
			}
			if _, err := bob.Learn(c, "CI needs the jj binary", ""); err != nil {
				t.Fatal(err)
			}
			// Bob also records something on global, so global diverges.
			if _, err := bob.updateGlobal(c, "test: bob on global", func(tx *Tx) error {
				return appendEntryBytes(tx, LearningsFile, changelog.Entry{ID: "", Agent: "bob", Type: changelog.TypeLearning, Timestamp: bob.now().UTC(), Body: "global learning from bob"})
			}); err != nil {
				t.Fatal(err)
			}
			if res, err := alice.Push(c); err != nil {
				t.Fatalf("alice push: %v %+v", err, res)
			}
			// Bob cannot push global before pulling it.
			if _, err := bob.Push(c); !errors.Is(err, ErrDiverged) {
				t.Fatalf("bob's push before pull: %v", err)
			}
			res, err := bob.Pull(c, "")
			if err != nil {
				t.Fatalf("bob pull: %v %+v", err, res)
			}
			if !hasAction(res, "global", "merged") || !hasAction(res, "agent-alice", "created") {
				t.Errorf("bob's pull did %+v", res)
			}
			if _, err := bob.Push(c); err != nil {
				t.Fatalf("bob push: %v", err)
			}
			res, err = alice.Pull(c, "")
			if err != nil || !hasAction(res, "global", "fast-forward") || !hasAction(res, "agent-bob", "created") {
				t.Fatalf("alice pull: %v %+v", err, res)
			}
			for _, s := range []*Store{alice, bob} {
				g := entryBodies(t, s, GlobalBranch, LearningsFile)
				if !g["global learning from bob"] {
					t.Errorf("%s's global learnings: %v", s.Agent, g)
				}
				gl := entryBodies(t, s, GlobalBranch, ChangelogFile)
				if !gl["bob, take the API"] {
					t.Errorf("%s's global changelog: %v", s.Agent, gl)
				}
				if !entryBodies(t, s, "agent-alice", ChangelogFile)["alice: parser work"] || !entryBodies(t, s, "agent-bob", ChangelogFile)["bob: ci setup"] {
					t.Errorf("%s lacks an agent's log", s.Agent)
				}
			}
			// Bob sees alice's handoff in his context.
			if sum, _ := bob.Context(c, ContextOptions{NoDetect: true}); sum.Handoff == nil || !strings.Contains(sum.Handoff.Text, "take the API") {
				t.Errorf("bob's handoff: %+v", sum.Handoff)
			}
			for _, e := range []*env{ea, eb} {
				s := e.open("")
				e.git(s.Bare, "fsck", "--strict", "--no-progress")
				if st := e.git(s.Worktree, "status", "--porcelain"); st != "" {
					t.Errorf("worktree not clean:\n%s", st)
				}
			}
			ea.git(remote, "fsck", "--strict", "--no-progress")
			if got := ea.git(remote, "rev-parse", "global"); got != ea.git(ea.open("").Bare, "rev-parse", "global") || got != eb.git(eb.open("").Bare, "rev-parse", "global") {
				t.Error("global differs between the clones and the remote")
			}
		})
	}
}

func hasAction(res []SyncResult, branch string, action SyncAction) bool {
	for _, r := range res {
		if r.Branch == branch && r.Action == action {
			return true
		}
	}
	return false
}

func TestPullFastForwardUpdatesCheckedOutWorktree(t *testing.T) {
	t.Parallel()
	ea, eb, _ := twoClones(t, false)
	c := ctx(t)
	// Both clones use agent "main"; b starts from a's state.
	a := ea.open("")
	if _, err := a.Log(c, "first", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(c); err != nil {
		t.Fatal(err)
	}
	b := eb.open("")
	if _, err := b.Pull(c, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Log(c, "b's first", "", ""); err != nil { // creates b's worktree on agent-main
		t.Fatal(err)
	}
	if _, err := b.Push(c); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Log(c, "second", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Scratch(c, "a's scratch", ScratchReplace); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Push(c); !errors.Is(err, ErrDiverged) {
		t.Fatalf("a's push of a diverged branch: %v", err)
	}
	// A hand edit to the scratch file the merge would change blocks the pull.
	os.WriteFile(filepath.Join(b.Worktree, ScratchFile), []byte("uncommitted\n"), 0o644)
	if _, err := b.Log(c, "b's second", "", ""); err != nil {
		t.Fatal(err)
	}
	// a merges b's entries (union) and pushes.
	res, err := a.Pull(c, "")
	if err != nil || !hasAction(res, "agent-main", "merged") {
		t.Fatalf("a pull: %v %+v", err, res)
	}
	if _, err := a.Push(c); err != nil {
		t.Fatal(err)
	}
	res, err = b.Pull(c, "")
	if err == nil || !strings.Contains(err.Error(), "agent-main") {
		t.Fatalf("b's pull with a clashing hand edit: %v %+v", err, res)
	}
	if !strings.Contains(resDetail(res, "agent-main"), "uncommitted edits to scratch.md") {
		t.Errorf("refusal says %q", resDetail(res, "agent-main"))
	}
	if st := eb.git(b.Worktree, "status", "--porcelain"); st != "M scratch.md" {
		t.Errorf("refused pull touched the worktree: %q", st)
	}
	// Discard the edit: the pull merges (b has an unpushed entry) and the
	// worktree follows.
	eb.git(b.Worktree, "checkout", "--", ScratchFile)
	res, err = b.Pull(c, "")
	if err != nil || !hasAction(res, "agent-main", "merged") {
		t.Fatalf("b pull: %v %+v", err, res)
	}
	if st := eb.git(b.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("worktree stale after pull:\n%s", st)
	}
	if got := readFile(t, filepath.Join(b.Worktree, ScratchFile)); got != "a's scratch\n" {
		t.Errorf("scratch after pull = %q", got)
	}
	got := entryBodies(t, b, "agent-main", ChangelogFile)
	for _, want := range []string{"first", "second", "b's first", "b's second"} {
		if !got[want] {
			t.Errorf("agent-main lacks %q after the merge: %v", want, got)
		}
	}
	eb.git(b.Bare, "fsck", "--strict", "--no-progress")
}

func TestPullConflictOnScratchNeedsPrefer(t *testing.T) {
	t.Parallel()
	ea, eb, _ := twoClones(t, false)
	c := ctx(t)
	a, b := ea.open(""), eb.open("")
	a.Log(c, "a", "", "")
	a.Push(c)
	b.Pull(c, "")
	a.Scratch(c, "a's plan", ScratchReplace)
	b.Scratch(c, "b's plan", ScratchReplace)
	a.Push(c)
	res, err := b.Pull(c, "")
	if !errors.Is(err, ErrDiverged) || !strings.Contains(resDetail(res, "agent-main"), "--prefer local") {
		t.Fatalf("pull with scratch changed on both sides: %v %+v", err, res)
	}
	if _, err := b.Pull(c, PreferRemote); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(b.Worktree, ScratchFile)); got != "a's plan\n" {
		t.Errorf("scratch = %q", got)
	}
	if st := eb.git(b.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean:\n%s", st)
	}
}

func resDetail(res []SyncResult, branch string) string {
	for _, r := range res {
		if r.Branch == branch {
			return r.Detail
		}
	}
	return ""
}

func TestRemoteNeedsConfigAndValidURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.open("")
	if _, err := s.Pull(ctx(t), ""); !errors.Is(err, ErrNoRemote) || !strings.Contains(err.Error(), "planq state remote URL") {
		t.Errorf("pull without remote: %v", err)
	}
	for _, bad := range []string{"", "  ", "-upload-pack=evil", "a\nb"} {
		if _, err := s.SetRemote(bad, e.repo); err == nil {
			t.Errorf("SetRemote(%q) accepted", bad)
		}
	}
	u, err := s.SetRemote("../shared.git", e.repo)
	if err != nil || u != filepath.Join(filepath.Dir(e.repo), "shared.git") {
		t.Errorf("SetRemote relative = %q, %v", u, err)
	}
	if u, _ := s.SetRemote("git@example.com:team/state.git", e.repo); u != "git@example.com:team/state.git" {
		t.Errorf("scp-like URL changed to %q", u)
	}
}

// TestPushRaceSaysToPull has another clone push between a push's fetch
// and its update of the remote: the push fails saying to pull, marks the
// branch that did not land refused, and a pull then a push bring both
// sides' entries to the remote.
func TestPushRaceSaysToPull(t *testing.T) {
	t.Parallel()
	ea, eb, remote := twoClones(t, false)
	c := ctx(t)
	alice, bob := ea.open("alice"), eb.open("bob")
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(alice.Log(c, "alice: first", "", ""))
	must(alice.Push(c))
	must(bob.Pull(c, ""))
	must(bob.Push(c))
	must(alice.Pull(c, ""))
	// Both record something on global; alice's push lands while bob's is
	// under way.
	must(alice.Handoff(c, "bob, take the parser", nil, "bob"))
	must(bob.Handoff(c, "alice, take the CI", nil, "alice"))
	must(bob.Log(c, "bob: own work", "", ""))
	bob.beforePush = func() { must(alice.Push(c)) }
	res, err := bob.Push(c)
	bob.beforePush = nil
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "run `planq state pull`") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("bob's raced push: %v", err)
	}
	if !hasAction(res, GlobalBranch, SyncRefused) || !strings.Contains(resDetail(res, GlobalBranch), "planq state pull") {
		t.Errorf("raced push results: %+v", res)
	}
	must(bob.Pull(c, ""))
	if res, err := bob.Push(c); err != nil || !hasAction(res, GlobalBranch, SyncPushed) || !hasAction(res, "agent-bob", SyncPushed) {
		t.Fatalf("bob's push after pulling: %v %+v", err, res)
	}
	got := entryBodies(t, bob, GlobalBranch, ChangelogFile)
	if !got["bob, take the parser"] || !got["alice, take the CI"] {
		t.Errorf("global after pull and push: %v", got)
	}
	if r := ea.git(remote, "rev-parse", "global"); r != ea.git(bob.Bare, "rev-parse", "global") {
		t.Error("the remote's global is not bob's after his second push")
	}
}
