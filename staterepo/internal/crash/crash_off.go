//go:build !planqfault || !unix

package crash

// Point marks a place where the fault-injection suite can kill planq; in a
// normal build it does nothing.
func Point(string) {}

// Armed reports whether Point(name) will kill the process.
func Armed(string) bool { return false }
