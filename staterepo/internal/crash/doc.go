// Package crash marks the instants between the steps of a state repo write
// (and of a push or pull of the session lineages) where the
// fault-injection suites (cmd/planq/state_fault_test.go,
// state_sessions_fault_test.go) kill planq. Only a binary built with -tags
// planqfault on Unix kills itself, when PLANQ_CRASH_AT names the point; in
// a normal build Point does nothing.
package crash
