//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/transcript/redact"
)

// sessionCrashPoints are the crash points a push or pull of the session
// lineages passes (see staterepo/internal/crash).
var sessionCrashPoints = []string{"object-tmp", "ref-locked", "lineage-fetched", "lineage-sent"}

// sessionRounds returns how many rounds a session kill test runs
// (PLANQ_FAULT_SESSION_ROUNDS, else def; see faultRounds) and its random
// source.
func sessionRounds(t *testing.T, def int) (int, *rand.Rand) {
	t.Helper()
	return faultRounds(t, "PLANQ_FAULT_SESSION_ROUNDS", def, 25)
}

// sessMachine is one machine of the session kill tests: a code repo with
// its HOME and PLANQ_HOME (a faultWorld), the agent sessions it recorded,
// and what each of its sessions wrote.
type sessMachine struct {
	*faultWorld
	name   string
	ts     *transcript.Store
	origin string
	host   map[string]string   // lineage root → the host transcript this machine's session writes
	wrote  map[string][]string // lineage root → the lines it wrote, in order
}

func newSessMachine(t *testing.T, name, remote string) *sessMachine {
	t.Helper()
	w := newFaultWorld(t)
	for _, args := range [][]string{{"state", "init", "--project", "shop"}, {"state", "remote", remote, "--share-sessions", "on"}} {
		if r := w.run(0, args...); r.code != 0 {
			t.Fatalf("%s: planq %s: %s", name, strings.Join(args, " "), r.out)
		}
	}
	ts, err := transcript.New(w.env["PLANQ_HOME"], "shop")
	if err != nil {
		t.Fatal(err)
	}
	origin, err := transcript.Origin(w.env["PLANQ_HOME"])
	if err != nil {
		t.Fatal(err)
	}
	return &sessMachine{faultWorld: w, name: name, ts: ts, origin: origin, host: map[string]string{}, wrote: map[string][]string{}}
}

// teammates makes two machines sharing one state remote and one code
// remote: a's jj repo holds a described base change, pushed as main, and b
// is a colocated jj clone of it. a pushes its code with `git push origin
// main` (bookmark main moved), b takes it with `git fetch origin`.
func teammates(t *testing.T) (a, b *sessMachine) {
	t.Helper()
	base := t.TempDir()
	remote, code := filepath.Join(base, "state.git"), filepath.Join(base, "code.git")
	a = newSessMachine(t, "a", remote)
	b = newSessMachine(t, "b", remote)
	a.git(base, "init", "-q", "--bare", code)
	// a: a jj repo whose commits go to the code remote; planq's files are
	// not part of the code.
	if err := os.WriteFile(filepath.Join(a.repo, ".gitignore"), []byte(".planq/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.jjRun(t, "jj", "git", "init", "--colocate")
	a.jjRun(t, "git", "remote", "add", "origin", code)
	a.jjRun(t, "jj", "describe", "-m", "base")
	a.jjRun(t, "jj", "new")
	a.jjRun(t, "jj", "bookmark", "create", "main", "-r", "@-")
	a.jjRun(t, "git", "push", "-q", "origin", "main")
	b.jjRun(t, "git", "remote", "add", "origin", code)
	b.jjRun(t, "git", "fetch", "-q", "origin")
	b.jjRun(t, "git", "reset", "-q", "--hard", "origin/main")
	b.jjRun(t, "jj", "git", "init", "--colocate")
	return a, b
}

// secretToken is a GitHub token some lines carry: shared, it must be
// redacted.
var secretToken = "ghp_" + strings.Repeat("Zx9Yw8Vu7Ts6", 3)

// write appends n lines to this machine's session in the lineage root
// (starting the session, as the hooks do, the first time), and copies them
// into the store now, or leaves them for the next push's catch-up (which
// copies what a transcript copied before gained since).
func (m *sessMachine) write(t *testing.T, rng *rand.Rand, root string, n int, copyNow bool) {
	t.Helper()
	ctx := context.Background()
	src, ok := m.host[root]
	if !ok {
		copyNow = true
		src = filepath.Join(m.env["HOME"], fmt.Sprintf("session-%s.jsonl", root[:8]))
		m.host[root] = src
		id := fmt.Sprintf("%s-%s", m.name, root[:12])
		if _, err := m.ts.Update(ctx, root, func(s *transcript.Session) error {
			if s.Task == "" {
				s.Task = "task of " + root[:8]
			}
			s.AddChange(root)
			s.AddAgent(transcript.Agent{ID: id, Host: "claude", Transcript: src, Workspace: m.repo, Change: root, Started: time.Now().UTC()})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(src, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		k := len(m.wrote[root]) + 1
		text := strings.Repeat("the agent reads and edits the rate limiter ", 1+rng.IntN(40))
		if rng.IntN(20) == 0 {
			text = strings.Repeat("a long tool result line ", 500+rng.IntN(2500))
		}
		if rng.IntN(25) == 0 {
			text = "the key is " + secretToken
		}
		line := fmt.Sprintf(`{"type":"user","machine":%q,"n":%d,"message":{"role":"user","content":%q}}`, m.name, k, text)
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
		m.wrote[root] = append(m.wrote[root], line)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if copyNow {
		for {
			res, err := m.ts.Copy(ctx, root, src, transcript.CopyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Pending {
				break
			}
		}
	}
}

// lineageRefs reads the lineage refs of the git repo at dir: root → commit.
func lineageRefs(t *testing.T, w *faultWorld, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range strings.Split(w.git(dir, "for-each-ref", "--format=%(refname) %(objectname)", staterepo.SessionsRefPrefix), "\n") {
		name, commit, ok := strings.Cut(l, " ")
		if ok {
			out[strings.TrimPrefix(name, staterepo.SessionsRefPrefix)] = commit
		}
	}
	return out
}

// isAncestor reports whether commit a is b or an ancestor of it in the
// git repo at dir.
func isAncestor(dir, a, b string) bool {
	return exec.Command("git", "-C", dir, "merge-base", "--is-ancestor", a, b).Run() == nil
}

// TestKilledSessionPushAndPullLoseNothing kills `planq state push` and
// `planq state pull` with SIGKILL, their git processes too, at random
// moments and at the crash points a push or pull of the session lineages
// passes, PLANQ_FAULT_SESSION_ROUNDS times (default 10; make test-faults
// runs 30): two machines with
// one state remote, each recording sessions (their own lineages, and a
// lineage of the other's it resumed), a push or pull killed each round,
// sometimes beside the other machine's pull. After every kill the next
// push or pull must complete, and leave the refs consistent: after a push,
// the remote holds every lineage as the machine has it; after a pull, the
// machine holds the remote's (or more). At the end, after each machine
// pushed and pulled once more, every machine's store holds each lineage's
// lines exactly once — its own as its sessions wrote them, the other's as
// shared (redacted: no secret crossed) — the remote's lineages hold each
// machine's lines redacted, the refs of all three repos agree, git fsck is
// clean, and no lock file is left in any of them.
func TestKilledSessionPushAndPullLoseNothing(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "builds planq with crash points and kills its pushes and pulls")
	rounds, rng := sessionRounds(t, 10)
	remote := filepath.Join(t.TempDir(), "state.git")
	a := newSessMachine(t, "a", remote)
	b := newSessMachine(t, "b", remote)
	machines := []*sessMachine{a, b}
	newRoot := func() string {
		r := make([]byte, 32)
		for i := range r {
			r[i] = byte('k' + rng.IntN(16))
		}
		return string(r)
	}
	mustRun := func(m *sessMachine, why string, args ...string) result {
		t.Helper()
		r := m.run(0, args...)
		if r.code != 0 {
			t.Fatalf("%s: %s: planq %s exited %d:\n%s", why, m.name, strings.Join(args, " "), r.code, r.out)
		}
		return r
	}
	// Each machine starts a lineage, and they sync once: the state
	// branches are then the same on both, and b knows a's lineage.
	shared := newRoot()
	a.write(t, rng, shared, 20, true)
	b.write(t, rng, newRoot(), 20, true)
	took := map[string]time.Duration{}
	took["push"] = mustRun(a, "first sync", "state", "push").took
	mustRun(b, "first sync", "state", "pull")
	mustRun(b, "first sync", "state", "push")
	took["pull"] = mustRun(a, "first sync", "state", "pull").took
	// b resumes a's lineage: both write to it from now on.
	b.write(t, rng, shared, 5, true)
	delay := func(kind string) time.Duration {
		return time.Duration(rng.Int64N(int64(took[kind])*5/4 + 1))
	}
	point := func() string {
		if rng.IntN(2) == 0 {
			return sessionCrashPoints[rng.IntN(len(sessionCrashPoints))]
		}
		return ""
	}
	kills := map[string]int{}
	for i := range rounds {
		// New work on both machines: more lines in known lineages, now
		// and then a new lineage.
		for _, m := range machines {
			roots := slices.Sorted(maps.Keys(m.host))
			if rng.IntN(4) == 0 {
				roots = append(roots, newRoot())
			}
			for _, r := range roots {
				if rng.IntN(2) == 0 {
					m.write(t, rng, r, 1+rng.IntN(60), rng.IntN(2) == 0)
				}
			}
		}
		m, other := a, b
		if rng.IntN(2) == 0 {
			m, other = b, a
		}
		kind := "push"
		if rng.IntN(2) == 0 {
			kind = "pull"
		}
		label := m.name + " " + kind
		var r result
		if rng.IntN(5) == 0 {
			// The other machine pulls while this one is killed.
			var wg sync.WaitGroup
			var side result
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(delay("pull") / 2)
				side = other.run(0, "state", "pull")
			}()
			r = m.runAt(point(), delay(kind), "state", kind)
			wg.Wait()
			if side.code != 0 {
				t.Errorf("round %d: %s pull beside %s exited %d:\n%s", i, other.name, label, side.code, side.out)
			}
		} else {
			r = m.runAt(point(), delay(kind), "state", kind)
		}
		switch {
		case r.killed:
			kills[label]++
		case r.code != 0:
			t.Errorf("round %d: %s exited %d without being killed:\n%s", i, label, r.code, r.out)
		}
		// The next one completes, and leaves the refs consistent.
		next := m.run(0, "state", kind)
		if next.code != 0 {
			t.Fatalf("round %d: the %s after a killed one exited %d:\n%s", i, label, next.code, next.out)
		}
		local, rem := lineageRefs(t, m.faultWorld, m.bare()), lineageRefs(t, m.faultWorld, remote)
		if kind == "push" {
			for root, c := range local {
				if rem[root] != c {
					t.Errorf("round %d: after %s, the remote has lineage %s at %q, %s at %s", i, label, root[:8], rem[root], m.name, c)
				}
			}
		} else {
			for root, c := range rem {
				if local[root] != c && (local[root] == "" || !isAncestor(m.bare(), c, local[root])) {
					t.Errorf("round %d: after %s, %s has lineage %s at %q, behind the remote's %s", i, label, m.name, root[:8], local[root], c)
				}
			}
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("killed: %v", kills)
	// Both machines push and pull once more: everything is everywhere.
	for _, step := range []struct {
		m    *sessMachine
		kind string
	}{{a, "push"}, {b, "push"}, {a, "pull"}, {b, "pull"}} {
		mustRun(step.m, "the end", "state", step.kind)
	}
	checkSessionsEverywhere(t, remote, machines)
}

// checkSessionsEverywhere asserts that the machines and the remote agree
// on every lineage, that every machine's store holds its own lines as its
// sessions wrote them and the others' as shared (redacted), each exactly
// once, that the remote holds every machine's lines redacted, and that the
// repos are sound and hold no lock file.
func checkSessionsEverywhere(t *testing.T, remote string, machines []*sessMachine) {
	t.Helper()
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	shared := map[*sessMachine]map[string][]string{} // what each machine shared of each lineage
	redacted := func(m *sessMachine, root string) []string {
		if shared[m] == nil {
			shared[m] = map[string][]string{}
		}
		if out, ok := shared[m][root]; ok || len(m.wrote[root]) == 0 {
			return out
		}
		out, _ := red.Lines([]byte(strings.Join(m.wrote[root], "\n")+"\n"), 1)
		shared[m][root] = strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		return shared[m][root]
	}
	w := machines[0].faultWorld
	remoteRefs := lineageRefs(t, w, remote)
	for _, m := range machines {
		if got := lineageRefs(t, m.faultWorld, m.bare()); !maps.Equal(got, remoteRefs) {
			t.Errorf("%s's lineage refs %v differ from the remote's %v", m.name, got, remoteRefs)
		}
	}
	roots := map[string]bool{}
	for _, m := range machines {
		for r := range m.wrote {
			roots[r] = true
		}
	}
	for root := range roots {
		if remoteRefs[root] == "" {
			t.Errorf("lineage %s is not on the remote", root[:8])
			continue
		}
		// The remote: per origin, the segments hold its lines, redacted.
		files := strings.Fields(w.git(remote, "ls-tree", "-r", "--name-only", remoteRefs[root]))
		for _, m := range machines {
			var got []string
			for _, f := range files {
				if strings.HasPrefix(f, m.origin+"/"+staterepo.LineageSegmentDir+"/") {
					got = append(got, strings.Split(w.git(remote, "cat-file", "blob", remoteRefs[root]+":"+f), "\n")...)
				}
			}
			if want := redacted(m, root); !slices.Equal(got, want) {
				t.Errorf("the remote's lineage %s holds %d lines of %s, want %d (%s)", root[:8], len(got), m.name, len(want), firstDiff(got, want))
			}
		}
		// Every machine's store: its own lines whole, the others' redacted.
		for _, m := range machines {
			per := map[string][]string{}
			if err := m.ts.EachLine(context.Background(), root, func(line []byte, origin string) bool {
				per[origin] = append(per[origin], strings.TrimSuffix(string(line), "\n"))
				return true
			}); err != nil {
				t.Fatal(err)
			}
			for _, o := range machines {
				want, key := redacted(o, root), o.origin
				if o == m {
					want, key = o.wrote[root], ""
				}
				if got := per[key]; !slices.Equal(got, want) {
					t.Errorf("%s's transcript of lineage %s holds %d lines of %s, want %d (%s)", m.name, root[:8], len(got), o.name, len(want), firstDiff(got, want))
				}
			}
			for _, l := range per[machines[0].origin] {
				if strings.Contains(l, secretToken) {
					t.Errorf("%s got a secret unredacted: %s", m.name, l)
				}
			}
		}
	}
	for _, dir := range []string{remote, machines[0].bare(), machines[1].bare()} {
		w.git(dir, "fsck", "--strict", "--no-progress")
		noLockFiles(t, dir)
	}
}

// noLockFiles fails the test when the git repo at dir holds a git lock
// file (a ref's, packed-refs'): one a killed process left there would
// stop the next update of it.
func noLockFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			t.Errorf("lock file left: %s", p)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dir, "packed-refs.lock")); err == nil {
		t.Errorf("lock file left: %s", filepath.Join(dir, "packed-refs.lock"))
	}
}

// firstDiff says where two line lists part.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("line %d is %.80q, want %.80q", i+1, got[i], want[i])
		}
	}
	return "one is a prefix of the other"
}

// jjEnv is the machine's environment for planq and jj, with a jj identity
// and extra variables.
func (m *sessMachine) jjEnv(extra ...string) []string {
	return append(append(slices.Clip(m.procEnv), "JJ_USER=Test", "JJ_EMAIL=test@example.com", "JJ_CONFIG="+filepath.Join(m.env["HOME"], "jj.toml")), extra...)
}

// jjRun runs a command (jj, git) in the machine's code repo.
func (m *sessMachine) jjRun(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = m.repo
	cmd.Env = m.jjEnv("GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %s: %v\n%s", m.name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// queryKilled starts `planq mcp serve` on the machine (the crash-point
// build) and asks query_ancestor for change's transcript, killing the
// server after killAfter (or at crash point at), and waits for the
// processes it started. It reports whether the server was killed before
// it answered, and how long the query ran.
//
// The server alone is killed: a jj or git SIGKILLed in the middle of a
// command leaves its own lock file in the code repo (.git/index.lock,
// a ref's .lock), which both ask a person to remove, and every later jj
// command fails until then; that is theirs, not the lazy fetch's.
func (m *sessMachine) queryKilled(t *testing.T, change, at string, killAfter time.Duration) (killed bool, took time.Duration) {
	t.Helper()
	cmd := exec.Command(m.bin, "mcp", "serve")
	cmd.Dir = m.repo
	cmd.Env = m.jjEnv("PLANQ_CRASH_AT=" + at)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	send := func(msg map[string]any) bool {
		data, _ := json.Marshal(msg)
		_, err := in.Write(append(data, '\n'))
		return err == nil // false: it died before it read the request
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	answer := func(id int) bool {
		for sc.Scan() {
			var resp struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &resp) == nil && resp.ID != nil && *resp.ID == id {
				return true
			}
		}
		return false
	}
	if !send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18",
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "kill-test", "version": "1"}}}) || !answer(1) {
		in.Close()
		_ = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return true, 0 // it killed itself at a crash point on the way
		}
		t.Fatalf("%s: planq mcp serve did not start", m.name)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	// The clock starts with the query: the kill lands in it.
	start := time.Now()
	var timer *time.Timer
	if killAfter > 0 {
		timer = time.AfterFunc(killAfter, func() { _ = cmd.Process.Kill() })
	}
	answered := send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "query_ancestor",
		"arguments": map[string]any{"change_id": change, "include": []string{"transcript"}}}}) && answer(2)
	took = time.Since(start)
	if timer != nil {
		timer.Stop()
	}
	in.Close()
	_ = cmd.Wait()
	// The jj and git processes it started finish or fail on their own
	// (git index-pack, its input cut, removes its temporary files).
	for deadline := time.Now().Add(time.Minute); syscall.Kill(-cmd.Process.Pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("%s: the processes planq mcp serve started were still running a minute after it ended", m.name)
		}
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return !answered, took
	}
	if !answered {
		t.Fatalf("%s: planq mcp serve ended without answering query_ancestor", m.name)
	}
	return false, took
}

// TestKilledLazyFetchLosesNothing kills `planq mcp serve` (SIGKILL; see
// queryKilled) while its query_ancestor fetches the session lineage of a
// teammate's change from the state remote (a lazy pull), at random moments
// and at the crash points a pull passes, PLANQ_FAULT_SESSION_ROUNDS times
// (default 8; make test-faults runs 30): machine a records sessions in real jj changes and pushes
// code and state; b fetches the code and asks for each new change's
// transcript — a change that roots a new lineage, or goes on in one b
// fetched before. After every kill a fresh server's query_ancestor must
// answer with the lineage's transcript, and b's store must hold a's lines
// of that lineage exactly once, redacted; at the end git fsck is clean and
// no lock file is left.
func TestKilledLazyFetchLosesNothing(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "builds planq with crash points and kills its lazy fetches")
	testenv.RequireJJ(t)
	rounds, rng := sessionRounds(t, 8)
	a, b := teammates(t)

	var roots []string
	// step makes a new change on a — rooting a new lineage, or going on in
	// an existing one — records its session lines, and pushes code and
	// state; b fetches the code. It returns the change and its lineage.
	step := func(i int) (change, root string) {
		t.Helper()
		cont := len(roots) > 0 && rng.IntN(2) == 0
		if cont {
			root = roots[rng.IntN(len(roots))]
		}
		if err := os.WriteFile(filepath.Join(a.repo, fmt.Sprintf("step-%d.txt", i)), []byte("step\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		a.jjRun(t, "jj", "describe", "-m", fmt.Sprintf("step %d", i))
		change = a.jjRun(t, "jj", "log", "-r", "@", "--no-graph", "-T", "change_id")
		if !cont {
			root = change
			roots = append(roots, root)
		} else {
			a.jjRun(t, "jj", "describe", "-m", fmt.Sprintf("step %d\n\nSession: %s", i, root))
		}
		a.write(t, rng, root, 1+rng.IntN(80), true)
		if _, err := a.ts.Update(context.Background(), root, func(s *transcript.Session) error {
			s.AddChange(change)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		a.jjRun(t, "jj", "new")
		a.jjRun(t, "jj", "bookmark", "set", "main", "-r", "@-")
		a.jjRun(t, "git", "push", "-q", "origin", "main")
		if r := a.run(0, "state", "push"); r.code != 0 {
			t.Fatalf("round %d: a's state push: %s", i, r.out)
		}
		b.jjRun(t, "git", "fetch", "-q", "origin")
		return change, root
	}
	red, err := redact.New()
	if err != nil {
		t.Fatal(err)
	}
	checkLineage := func(why, root string) {
		t.Helper()
		var got []string
		if err := b.ts.EachLine(context.Background(), root, func(line []byte, origin string) bool {
			if origin == a.origin {
				got = append(got, strings.TrimSuffix(string(line), "\n"))
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		want, _ := red.Lines([]byte(strings.Join(a.wrote[root], "\n")+"\n"), 1)
		if w := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n"); !slices.Equal(got, w) {
			t.Errorf("%s: b holds %d of a's lines of lineage %s, want %d (%s)", why, len(got), root[:8], len(w), firstDiff(got, w))
		}
	}
	// How long an answered query takes, to spread the kills over it.
	change, root := step(0)
	_, took := b.queryKilled(t, change, "", 0)
	checkLineage("first query", root)
	kills := 0
	for i := 1; i <= rounds; i++ {
		change, root := step(i)
		at := ""
		if rng.IntN(2) == 0 {
			at = sessionCrashPoints[rng.IntN(len(sessionCrashPoints))]
		}
		if killed, _ := b.queryKilled(t, change, at, time.Duration(rng.Int64N(int64(took)*5/4+1))); killed {
			kills++
		}
		// A fresh server answers, with the lineage's transcript.
		c := startServerEnv(t, b.repo, b.jjEnv())
		c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "kill-test", "version": "1"}})
		c.notify("notifications/initialized")
		out := c.callTool("query_ancestor", map[string]any{"change_id": change, "include": []string{"transcript"}})
		tr, _ := out["transcript"].(map[string]any)
		lines, _ := tr["lines"].([]any)
		if tr == nil || tr["session_root"] != root || len(lines) == 0 || strings.Contains(fmt.Sprint(tr["note"]), "failed") {
			t.Fatalf("round %d: query_ancestor %s after a killed one: %v", i, change[:8], out)
		}
		checkLineage(fmt.Sprintf("round %d", i), root)
		if t.Failed() {
			break
		}
	}
	t.Logf("%d of %d queries killed before they answered", kills, rounds)
	b.git(b.bare(), "fsck", "--strict", "--no-progress")
	noLockFiles(t, b.bare())
}
