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
// wait can take several times as long. So such waits do not get fixed
// budgets of their own; they wait on the condition itself, until Context's
// deadline.
const (
	// graceBeforeKill is how long before go test's -timeout Context ends,
	// so that a test which waited in vain fails naming what it waited for,
	// instead of the whole run dying in a panic.
	graceBeforeKill = 30 * time.Second
	// noTimeoutWait is Context's budget when go test has no -timeout.
	noTimeoutWait = 30 * time.Minute
)

// Context returns a context for a test's waits that ends shortly before the
// test binary's -timeout (or after half an hour without one), and is
// cancelled when the test ends. It replaces fixed per-wait timeouts, which a
// loaded machine breaks.
func Context(t deadliner) context.Context {
	t.Helper()
	end, ok := t.Deadline()
	if ok {
		end = end.Add(-graceBeforeKill)
	} else {
		end = time.Now().Add(noTimeoutWait)
	}
	ctx, cancel := context.WithDeadline(context.Background(), end)
	t.Cleanup(cancel)
	return ctx
}
