// Package workflow is what planq does for a person at the command line and
// in planq ui, over the session core: for now the agents query (Agents:
// every jj workspace of the repo with its change, gate state, summary,
// diff stat and conflicts), which `planq agents` prints and planq ui shows
// without linking the hook handlers. `planq start`, `continue` and
// `resume` (Start, Continue, Resume) and `planq agents remove` are still
// in package hooks; they move here next.
package workflow
