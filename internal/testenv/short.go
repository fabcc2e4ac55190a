package testenv

import "testing"

// The short suite (`go test -short ./...`, `make test-short`) is the loop a
// developer iterates in: it runs every test that needs nothing but Go, git
// and the files in the repo, and skips what drives jj, a host CLI, a browser
// or a build of planq's binaries, and the real-command half of the gate's
// tables. Every test asks here, so the rule has one home.

// Short reports whether the short suite is running: a test that does its
// cheap half either way (a table's verdicts) and its expensive half (running
// the table's commands for real) only in the full suite asks this.
func Short() bool { return testing.Short() }

// SkipShort skips the test in the short suite, saying what it would have
// driven (e.g. "drives real jj"); `make test` runs it.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("SKIPPED (-short): %s; make test runs it", what)
	}
}
