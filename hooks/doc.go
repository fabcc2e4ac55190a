// Package hooks is the heavy, host-neutral half of planq's session core:
// the session events every agent host's adapter (hooks/<host>, registered
// in hooks/hosts) decodes and hands to a Runner, and the session workflows
// behind `planq start`, `continue` and `resume` (Start, Continue, Resume).
// Runner.Handle answers each event: session-start (the context a session
// starts with, sessionstart.go), stop, pre-compact and session-end (the
// living-summary nudge and keeping the transcript, lifecycle.go), and the
// worktree events that give a parallel agent its own jj workspace
// (workspace.go, which also holds `planq agents remove`). Pre-tool-use
// (the gate) and post-tool-use are the light half, package session, which
// the planq-hook binary serves on every tool call without linking this
// package. The agents query (`planq agents`, planq ui) is package
// workflow.
//
// A session lineage is keyed by its root jj change: the change jj_init or
// `planq start` declared. Checkpoints (jj_new, `planq continue`) carry a
// "Session: <root>" trailer and stay in the lineage. A host's sessions are
// bound to a lineage when they start in one of its changes or declare one;
// the mapping and the transcripts are kept by package transcript. The
// living-summary rule the stop hook enforces is jj.IsSummary, shared with
// jj_describe.
package hooks
