// Package hooks is the heavy, host-neutral half of planq's session core:
// the session events every agent host's adapter (hooks/<host>, registered
// in hooks/hosts) decodes and hands to a Runner. Runner.Handle answers each
// event, one file per event: session-start (the context a session starts
// with, sessionstart.go), stop (the living-summary nudge, stop.go),
// pre-compact (precompact.go), session-end (sessionend.go), and the
// worktree events that give a parallel agent its own jj workspace
// (worktree.go, with a git-only fallback in worktree_git.go). Pre-tool-use
// (the gate) and post-tool-use are the light half, package session, which
// the planq-hook binary serves on every tool call without linking this
// package. `planq start`, `continue`, `resume`, the agents query (`planq
// agents`, planq ui) and the jj workspace lifecycle behind the worktree
// events (which `planq start --workspace` and `planq agents remove` use
// too) are package workflow. This package holds hook handlers only.
//
// A session lineage is keyed by its root jj change: the change jj_init or
// `planq start` declared. Checkpoints (jj_new, `planq continue`) carry a
// "Session: <root>" trailer and stay in the lineage. A host's sessions are
// bound to a lineage when they start in one of its changes or declare one;
// the mapping and the transcripts are kept by package transcript. The
// living-summary rule the stop hook enforces is jj.IsSummary, shared with
// jj_describe.
package hooks
