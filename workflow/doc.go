// Package workflow is what planq does for a person at the command line and
// in planq ui, over the session core: `planq start` (Start: declare a
// change and root a session lineage in it), `continue` (Continue: a
// checkpoint on top of @ in the same lineage) and `resume` (Resume: find
// the agent session recorded for a change, fetch its lineage from the
// state remote when a teammate pushed it, bring back the host's own file of
// the session from the stored transcript (restore.go), and make the change
// the working copy); and the agents query (Agents: every jj workspace of
// the repo with its change, gate state, summary, diff stat and conflicts),
// which `planq agents` prints and planq ui shows; and the jj workspaces of
// parallel agents (workspaces.go: CreateWorkspace for `planq start -w` and
// the hosts' worktree-create, RemoveWorkspace for worktree-remove,
// RemoveAgent for `planq agents remove`). It does not link the hook
// handlers (package hooks), which call it.
package workflow
