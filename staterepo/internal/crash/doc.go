// Package crash marks the instants between the steps of a state repo write
// where the fault-injection suite (cmd/planq/state_fault_test.go) kills
// planq. Only a binary built with -tags planqfault on Unix kills itself,
// when PLANQ_CRASH_AT names the point; in a normal build Point does nothing.
package crash
