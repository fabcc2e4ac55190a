// Package hooks wires planq into Claude Code: `planq mcp install` (Install),
// the session hooks Claude Code runs (Runner: session-start, post-tool-use,
// pre-compact, stop, session-end; the PreToolUse gate hook and the hook
// protocol live in hooks/claudehook), and the session workflows behind `planq start`,
// `continue` and `resume` (Start, Continue, Resume).
//
// A session lineage is keyed by its root jj change: the change jj_init or
// `planq start` declared. Checkpoints (jj_new, `planq continue`) carry a
// "Session: <root>" trailer and stay in the lineage. Claude Code sessions are
// bound to a lineage when they start in one of its changes or declare one;
// the mapping and the transcripts are kept by package transcript. The
// living-summary rule the stop hook enforces is jj.IsSummary, shared with
// jj_describe.
package hooks
