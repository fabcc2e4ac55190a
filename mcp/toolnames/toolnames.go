// Package toolnames names the tools planq's MCP server registers, for the
// code that must know them without linking the server (the host adapters
// in the planq-hook binary). It is the one list: a test of package mcp
// checks that the server registers exactly these tools, in this order.
package toolnames

// JJ returns the tools of the server's jj half, in registration order.
func JJ() []string {
	return []string{"jj_git_init", "jj_init", "jj_status", "jj_describe", "jj_new", "jj_push", "jj_abandon", "jj_squash", "query_ancestor"}
}

// State returns the server's planq_* tools, in registration order.
func State() []string {
	return []string{"planq_context", "planq_scratch", "planq_log", "planq_learn", "planq_decide", "planq_handoff", "planq_checkpoint", "planq_search"}
}

// All returns every tool of the server: JJ, then State.
func All() []string { return append(JJ(), State()...) }
