//go:build !planqfault || !unix

package staterepo

// crashPoint marks a place where the fault-injection suite can kill planq
// (see crash_on.go); in a normal build it does nothing.
func crashPoint(string) {}

// crashing reports whether crashPoint(name) will kill the process.
func crashing(string) bool { return false }
