//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/staterepo"
)

// faultWorld runs the real planq binary against one code repo, killing
// commands with SIGKILL (their git children too) when asked.
type faultWorld struct {
	*stateWorld
	t       *testing.T
	ctx     context.Context // the test's wait budget (testenv.Context)
	bin     string
	procEnv []string
}

// faultBin builds planq with its crash points (-tags planqfault), once.
var faultBin = sync.OnceValues(func() (string, error) {
	dir, err := testenv.SharedTempDir("planq-fault-bin-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "planq")
	if b, err := testenv.GoBuild(".", out, ".", "-tags", "planqfault").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, b)
	}
	return out, nil
})

// crashPoints are the instants between the steps of a write where a
// process built with -tags planqfault kills itself when PLANQ_CRASH_AT
// names one (see staterepo/crash_on.go).
var crashPoints = []string{"object-tmp", "objects-written", "marked", "ref-locked", "ref-updated",
	"worktree-tmp", "worktree-file", "worktree-append", "index-locked"}

// faultRounds returns how many rounds a kill test runs — the count in the
// environment variable name, else def — and its random source, seeded from
// PLANQ_FAULT_SEED or the clock; it logs both, to run a failure again.
//
// The defaults are what `make test` can afford on two busy cores (each
// round starts several planq and git processes; the whole fault suite is
// a few minutes at load 10). A rare interleaving needs more rounds to show
// (a concurrent-repack bug once showed at round 288 of 300): `make
// test-faults` runs the same tests with the larger counts, and the
// variables take any count.
func faultRounds(t *testing.T, name string, def int, stream uint64) (int, *rand.Rand) {
	t.Helper()
	rounds := def
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		rounds = v
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("PLANQ_FAULT_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("PLANQ_FAULT_SEED=%d %s=%d", seed, name, rounds)
	return rounds, rand.New(rand.NewPCG(seed, stream))
}

func newFaultWorld(t *testing.T) *faultWorld {
	bin, err := faultBin()
	if err != nil {
		t.Fatal(err)
	}
	w := &faultWorld{stateWorld: newStateWorld(t), t: t, bin: bin, ctx: testenv.Context(t)}
	w.procEnv = append(os.Environ(), "HOME="+w.env["HOME"], "PLANQ_HOME="+w.env["PLANQ_HOME"], "PLANQ_AGENT=", "CLAUDE_PROJECT_DIR=",
		// Automatic maintenance starts often, so kills land beside it.
		"PLANQ_GC_AUTO=256")
	return w
}

// result is how one planq process ended.
type result struct {
	code   int // exit code; -1 when killed
	killed bool
	out    string
	took   time.Duration
}

// run runs planq with args; with killAfter > 0 it SIGKILLs the process
// group after that long, unless it finished first.
func (w *faultWorld) run(killAfter time.Duration, args ...string) result {
	return w.runAt("", killAfter, args...)
}

// runAt is run with the process killing itself at crash point at ("" for
// none) as well.
func (w *faultWorld) runAt(at string, killAfter time.Duration, args ...string) result {
	cmd := exec.CommandContext(w.ctx, w.bin, args...)
	cmd.Dir = w.repo
	cmd.Env = append(slices.Clip(w.procEnv), "PLANQ_CRASH_AT="+at) // Clip: runs started at once must not share a backing array
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	var timer *time.Timer
	if killAfter > 0 {
		timer = time.AfterFunc(killAfter, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	}
	err := cmd.Wait()
	r := result{out: out.String(), took: time.Since(start)}
	if timer != nil {
		timer.Stop()
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.killed, r.code = true, -1
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // git children still running
		return r
	}
	if err != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	return r
}

// TestKilledCommandsNeverLoseAcknowledgedEntries is planq's fault-injection
// suite. It kills real planq processes with SIGKILL, together with the git
// processes they started, after a random delay — `log add`, `checkpoint
// create`, `checkpoint restore`, `state gc` and `state gc --auto`
// (maintenance), sometimes two in a row, maintenance beside a writer that is
// not killed, and automatic background maintenance running throughout —
// PLANQ_FAULT_ITERATIONS times (default 100; the short suite skips it). After
// every round the next write must succeed without hand repair. At the end every
// acknowledged entry (its command exited 0) must be in the log exactly once,
// or, when a restore took it out of the log, in that restore's automatic
// checkpoint; no entry may appear twice; git fsck --strict must be clean,
// and the worktree must match its branch.
func TestKilledCommandsNeverLoseAcknowledgedEntries(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "builds planq with crash points and kills hundreds of its runs")
	iterations, rng := faultRounds(t, "PLANQ_FAULT_ITERATIONS", 100, 15)
	w := newFaultWorld(t)
	acked := map[string]bool{}     // entry bodies whose `log add` exited 0
	attempted := map[string]bool{} // every body a `log add` was started for
	checkpoints := []string{}
	n := 0
	// Half the killed commands die at a crash point, the others after a
	// random delay.
	at := func() string {
		if rng.IntN(2) == 0 {
			return crashPoints[rng.IntN(len(crashPoints))]
		}
		return ""
	}
	add := func(killAfter time.Duration) result {
		n++
		body := fmt.Sprintf("entry %04d", n)
		attempted[body] = true
		point := ""
		if killAfter > 0 {
			point = at()
		}
		r := w.runAt(point, killAfter, "log", "add", body)
		if r.code == 0 {
			acked[body] = true
		}
		return r
	}
	repairs := map[string]int{} // what the writes after kills reported fixing
	mustAdd := func(why string) {
		t.Helper()
		r := add(0)
		if r.code != 0 {
			t.Fatalf("%s: the next write failed (exit %d):\n%s", why, r.code, r.out)
		}
		for _, l := range strings.Split(r.out, "\n") {
			if _, warning, ok := strings.Cut(l, "planq: warning: "); ok {
				warning, _, _ = strings.Cut(warning, " /")
				repairs[warning]++
			}
		}
	}
	// Typical durations, to spread the kills over each command's run.
	mustAdd("first write")
	if r := w.run(0, "checkpoint", "create", "base"); r.code != 0 {
		t.Fatalf("checkpoint create: %s", r.out)
	}
	checkpoints = append(checkpoints, "base")
	took := map[string]time.Duration{}
	took["log"] = add(0).took
	took["gc"] = w.run(0, "state", "gc").took
	took["auto"] = w.run(0, "state", "gc", "--auto").took
	took["checkpoint"] = w.run(0, "checkpoint", "create", "probe").took
	checkpoints = append(checkpoints, "probe")
	took["restore"] = w.run(0, "checkpoint", "restore", "base").took
	delay := func(kind string) time.Duration {
		return time.Duration(rng.Int64N(int64(took[kind])*5/4 + 1))
	}
	kills := map[string]int{}
	for i := range iterations {
		for k := range 1 + rng.IntN(2) { // one or two killed commands in a row
			var r result
			var label string
			switch p := rng.IntN(100); {
			case p < 45:
				label = "log add"
				r = add(delay("log"))
			case p < 55:
				label = "checkpoint create"
				name := fmt.Sprintf("cp-%d-%d", i, k)
				if r = w.runAt(at(), delay("checkpoint"), "checkpoint", "create", name); r.code == 0 {
					checkpoints = append(checkpoints, name)
				}
			case p < 67:
				label = "checkpoint restore"
				r = w.runAt(at(), delay("restore"), "checkpoint", "restore", checkpoints[rng.IntN(len(checkpoints))])
			default:
				kind, args := "gc", []string{"state", "gc"}
				label = "state gc"
				if p >= 84 {
					label, kind, args = "state gc --auto", "auto", []string{"state", "gc", "--auto"}
				}
				// A writer runs beside maintenance and must not notice it.
				var wg sync.WaitGroup
				var side result
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(delay(kind) / 2)
					side = add(0)
				}()
				r = w.run(delay(kind), args...)
				wg.Wait()
				if side.code != 0 {
					t.Errorf("round %d: a write beside %s failed (exit %d):\n%s", i, label, side.code, side.out)
				}
			}
			if r.killed {
				kills[label]++
			} else if r.code != 0 && label != "checkpoint restore" && label != "checkpoint create" {
				t.Errorf("round %d: %s exited %d without being killed:\n%s", i, label, r.code, r.out)
			}
		}
		mustAdd(fmt.Sprintf("round %d", i))
		if t.Failed() {
			break
		}
	}
	t.Logf("killed: %v; %d entries acknowledged of %d attempted; the next writes reported: %v", kills, len(acked), len(attempted), repairs)
	waitForMaintenance(t, w.stateWorld)
	bare := w.bare()
	if log, err := os.ReadFile(filepath.Join(bare, "planq-maintenance.log")); err == nil && strings.Contains(string(log), "planq: ") {
		t.Errorf("background maintenance failed: %s", log)
	}
	if packs, _ := filepath.Glob(filepath.Join(bare, "objects", "pack", "*.pack")); len(packs) == 0 {
		t.Error("no pack: neither background maintenance nor gc ran")
	}
	mustAdd("the end")
	w.git(w.bare(), "fsck", "--strict", "--no-progress")
	checkAcknowledged(t, w.stateWorld, acked, attempted)
	if st := w.git(filepath.Join(w.repo, ".planq", "agent"), "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("worktree does not match its branch:\n%s", st)
	}
}

// checkAcknowledged asserts that every acknowledged body is in the log
// exactly once, or kept by an automatic checkpoint a restore made, and that
// no body is in the log twice.
func checkAcknowledged(t *testing.T, w *stateWorld, acked, attempted map[string]bool) {
	t.Helper()
	s, err := staterepo.Open(staterepo.Options{Dir: w.repo, Getenv: func(k string) string { return w.env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	es, probs, err := s.LogEntries(context.Background(), 0)
	if err != nil || len(probs) > 0 {
		t.Fatalf("read the log: %v %v", err, probs)
	}
	inLog := map[string]int{}
	for _, e := range es {
		inLog[e.Body]++
	}
	for body, n := range inLog {
		if n > 1 {
			t.Errorf("%q is in the log %d times", body, n)
		}
		if !attempted[body] {
			t.Errorf("%q is in the log but was never written", body)
		}
	}
	// What restores took out of the log is in their automatic checkpoints.
	kept := map[string]bool{}
	cps, err := s.Checkpoints(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bare := s.Bare
	for _, cp := range cps {
		if !strings.HasPrefix(cp.Name, "auto-before-") {
			continue
		}
		for _, f := range strings.Fields(w.git(bare, "ls-tree", "-r", "--name-only", cp.StateCommit)) {
			if f != "changelog.md" && !strings.HasPrefix(f, "archive/changelog-") {
				continue
			}
			for _, l := range strings.Split(w.git(bare, "show", cp.StateCommit+":"+f), "\n") {
				kept[l] = true
			}
		}
	}
	late := 0
	for body := range attempted {
		if acked[body] {
			if inLog[body] == 0 && !kept[body] {
				t.Errorf("acknowledged entry %q is lost", body)
			}
		} else if inLog[body] > 0 || kept[body] {
			late++ // killed (or failed) after its commit
		}
	}
	t.Logf("%d writes that were not acknowledged had committed", late)
	if t.Failed() {
		data, _ := json.Marshal(cps)
		t.Logf("checkpoints: %s", data)
	}
}
