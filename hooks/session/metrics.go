package session

import (
	"time"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/metrics"
)

// The hooks' local metrics (package metrics) are recorded here, for every
// host alike: the gate's verdicts (RunPreToolUse), the session's start with
// what its context surfaced (RecordStart), the change seen declared
// after jj moved (RecordToolUse), and the check at a declaration
// (RecordEscapes). Recording never fails a hook and never
// changes an answer: errors are dropped, and the verdict is recorded only
// after the answer is written.

// metricsBudget bounds recording a verdict in a hook process
// (RunPreToolUseProcess): a stuck disk delays the pre-tool-use hook's exit
// by at most this, well within the hosts' timeouts.
const metricsBudget = 250 * time.Millisecond

// recordVerdict records the gate's verdict on ev's call. Calls of tools
// the host declares read-only are not judged by the gate, and not
// recorded: they cost nothing today and stay that way.
func recordVerdict(ev Event, r Reply, acc account, getenv func(string) string) {
	if ev.Call == nil || ev.Call.Tool.Kind == gate.KindReadOnly || ev.Dir() == "" || metrics.Off(getenv) {
		return
	}
	verdict := metrics.VerdictAllow
	switch {
	case r.Deny:
		verdict = metrics.VerdictDeny
	case r.Warn:
		verdict = metrics.VerdictWarn
	}
	rec := metrics.Record{Kind: metrics.KindGate, Session: ev.SessionID, Host: ev.Host.Name,
		Tool: ev.Call.Name, Rule: acc.rule, Verdict: verdict, Declared: acc.unlocked}
	defer func() { _ = recover() }()
	if dir, err := metrics.DirFor(ev.Dir(), getenv); err == nil {
		_ = metrics.Append(dir, rec)
	}
}

// RecordStart records that ev's session started in s, whether its change
// was declared already, and the learnings and decisions its context
// surfaced.
func RecordStart(e Env, s *Scope, ev Event, declared bool, surfaced []metrics.Entry) {
	if metrics.Off(e.Lookup) {
		return
	}
	recs := []metrics.Record{{Time: e.Clock(), Kind: metrics.KindStart, Session: ev.SessionID, Host: ev.Host.Name, Declared: declared}}
	if len(surfaced) > 0 {
		recs = append(recs, metrics.Record{Time: e.Clock(), Kind: metrics.KindSurface, Session: ev.SessionID, Host: ev.Host.Name,
			Where: metrics.WhereSessionStart, Entries: surfaced})
	}
	_ = metrics.Append(metrics.Dir(s.Home, s.Project), recs...)
}

// recordDeclared records that a hook saw ev's session's change declared.
func recordDeclared(e Env, s *Scope, ev Event) {
	if ev.SessionID == "" || metrics.Off(e.Lookup) {
		return
	}
	_ = metrics.Append(metrics.Dir(s.Home, s.Project), metrics.Record{Time: e.Clock(), Kind: metrics.KindDeclared,
		Session: ev.SessionID, Host: ev.Host.Name, Declared: true})
}

// RecordEscapes records the check made when the change was declared by
// tool (planq start, or the shell tool of ev that ran jj describe): the
// files that changed while the gate was locked, none in the good case.
func RecordEscapes(e Env, s *Scope, ev Event, tool string, files []string) {
	if metrics.Off(e.Lookup) {
		return
	}
	rec := metrics.EscapesRecord(tool, ev.SessionID, ev.Host.Name, files)
	rec.Time = e.Clock()
	_ = metrics.Append(metrics.Dir(s.Home, s.Project), rec)
}
