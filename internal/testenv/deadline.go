package testenv

import (
	"context"
	"testing"
	"time"
)

// deadliner is what Context needs of a test: *testing.T has it.
type deadliner interface {
	testing.TB
	Deadline() (time.Time, bool)
}

// A test waiting on real processes (a host CLI, a server it started, jj
// under load) must not assume an idle machine: on two busy cores the same
// wait can take several times as long. So such waits do not get tight
// budgets of their own; they wait on the condition itself, until Context's
// deadline: a budget per test far above what any test needs under load,
// so that a wait which can never end (a screen that will not change) costs
// its own test, not every test after it in the package.
const (
	// graceBeforeKill is how long before go test's -timeout Context ends,
	// so that a test which waited in vain fails naming what it waited for,
	// instead of the whole run dying in a panic.
	graceBeforeKill = 30 * time.Second
	// testBudget is the most one test's waits take in all: several times
	// the slowest test seen at load 12 on two cores (the kill tests'
	// rounds, a few minutes).
	testBudget = 15 * time.Minute
)

// Context returns a context for a test's waits that ends testBudget after
// it is called, or shortly before the test binary's -timeout when that
// comes first, and is cancelled when the test ends. It replaces fixed
// per-wait timeouts, which a loaded machine breaks.
func Context(t deadliner) context.Context {
	t.Helper()
	end := time.Now().Add(testBudget)
	if d, ok := t.Deadline(); ok && d.Add(-graceBeforeKill).Before(end) {
		end = d.Add(-graceBeforeKill)
	}
	ctx, cancel := context.WithDeadline(context.Background(), end)
	t.Cleanup(cancel)
	return ctx
}
