// Package metrics keeps planq's local usage metrics: which parts of planq
// earn their keep. They are stored on this machine only and never sent
// anywhere.
//
// # What is recorded
//
// The hooks record when a session starts, the gate's verdict on each tool
// call it judges (by tool and by the class of rule that decided, see
// gate.Decision.Rule) and when they see the session's change declared.
// Each declaration (jj_init, planq start, a jj describe the post-tool-use
// hook sees) records the check made then: the files that changed in the
// working copy while the gate was locked (gate.CheckDeclared), none in the
// good case; any is a gate escape. The
// MCP server records every planq tool call and whether it failed, the
// learnings and decisions it showed the model (planq_context, planq_search;
// the session-start hook records those of the session's context), the
// searches that found nothing, and the text the agent wrote through planq's
// writing tools (descriptions, log entries, learnings, decisions, handoffs),
// which is how a later citation of a shown entry is told.
//
// # Where, and how
//
// Records are JSON lines under PLANQ_HOME/metrics/<project>/, one file per
// UTC day (YYYY-MM-DD.jsonl). Recording is cheap, since hooks run on every
// tool call: no jj process, no fsync, no read of earlier records; the file
// is opened with O_APPEND and each record is written with one write call.
// With O_APPEND the kernel moves to the end of the file and writes there as
// one step, so records of concurrent hook processes never overwrite each
// other; and a record is small (at most MaxRecord bytes, under a page), so
// one write on a local file system lands whole, not interleaved with
// another process's. What could still go wrong (a full disk cutting a
// write short, a crash, a network file system) leaves a line that is not
// one whole record; the reader skips such lines. Recording never fails a
// hook: its errors are dropped, and a metrics failure never changes a gate
// verdict.
//
// # Reading
//
// Summarize aggregates the records since a time, for `planq stats` and the
// ui's Metrics page. Time to declare is, per session, from its first start
// record to the first later record that saw its change declared (a gate
// verdict that found the gate unlocked, or a post-tool-use hook after jj
// moved); sessions whose change was declared when they started are left
// out. A surfaced learning or decision counts as cited when a text the
// agent wrote through a planq tool in the same project after it was first
// surfaced there names its id (pq-…) or its title (titles of at least
// MinCiteTitle characters, compared case-insensitively with spaces folded).
// Gate escapes are summed over the checks: how many ran, how many found
// files, how many files, and the latest that found any.
// Prune removes day files older than a time (`planq state gc`).
package metrics
