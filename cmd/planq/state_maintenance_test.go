//go:build unix

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestConcurrentMaintenanceNeverFails runs `planq state gc` and `planq
// state gc --auto` at the same time, round after round (200; the short
// suite skips it), beside writes that start automatic maintenance in the
// background on their own (PLANQ_GC_AUTO is tiny), and every few rounds a
// third gc that is killed midway, leaving its temporary files behind. No
// maintenance may fail: one run must never delete another's files (a
// repack's temporary pack, a pack it reads), whichever starts first. At the
// end every entry is there once and git fsck is clean.
func TestConcurrentMaintenanceNeverFails(t *testing.T) {
	testenv.SkipShort(t, "builds planq with crash points and runs hundreds of concurrent maintenance runs")
	t.Parallel()
	rounds := 200
	w := newFaultWorld(t)
	w.procEnv = append(w.procEnv, "PLANQ_GC_AUTO=16")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 23))
	var acked []string
	add := func(body string) {
		t.Helper()
		if r := w.run(0, "log", "add", body); r.code != 0 {
			t.Fatalf("log add %q: exit %d\n%s", body, r.code, r.out)
		}
		acked = append(acked, body)
	}
	add("first")
	gcTook := w.run(0, "state", "gc").took
	for i := range rounds {
		add(fmt.Sprintf("round %d", i))
		var wg sync.WaitGroup
		runs := map[string]*result{"state gc": {}, "state gc --auto": {}}
		for name, r := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				*r = w.run(0, strings.Fields(name)...)
			}()
		}
		if i%8 == 3 { // a gc killed midway, beside the others
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.run(time.Duration(rng.Int64N(int64(gcTook)*2+1)), "state", "gc")
			}()
		}
		wg.Wait()
		for name, r := range runs {
			if r.code != 0 {
				t.Errorf("round %d: planq %s exited %d:\n%s", i, name, r.code, r.out)
			}
		}
		if t.Failed() {
			break
		}
	}
	waitForMaintenance(t, w.stateWorld)
	if r := w.run(0, "state", "gc"); r.code != 0 {
		t.Fatalf("the last gc: %s", r.out)
	}
	bare := w.bare()
	if log, err := os.ReadFile(bare + "/planq-maintenance.log"); err == nil && strings.Contains(string(log), "planq: ") {
		t.Errorf("background maintenance failed: %s", log)
	}
	w.git(bare, "fsck", "--strict", "--no-progress")
	attempted := map[string]bool{}
	done := map[string]bool{}
	for _, b := range acked {
		attempted[b], done[b] = true, true
	}
	checkAcknowledged(t, w.stateWorld, done, attempted)
}
