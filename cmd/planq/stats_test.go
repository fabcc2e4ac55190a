package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/metrics"
)

// statsJSON runs `planq stats --json` in-process in dir.
func statsJSON(t *testing.T, dir string, args ...string) metrics.Summary {
	t.Helper()
	out, errs, code := runIn(t, dir, append([]string{"stats", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("planq stats --json: exit %d\n%s", code, errs)
	}
	var s metrics.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("planq stats --json printed %q: %v", out, err)
	}
	return s
}

func gateCount(s metrics.Summary, tool, rule, verdict string) int {
	for _, g := range s.Gate {
		if g.Tool == tool && g.Rule == rule && g.Verdict == verdict {
			return g.Count
		}
	}
	return 0
}

// claudeHookJSON is a hook payload in the shape Claude Code sends for
// event, with extra fields merged in.
func claudeHookJSON(session, cwd, event string, extra map[string]any) []byte {
	m := map[string]any{
		"session_id":      session,
		"transcript_path": filepath.Join(os.TempDir(), session+".jsonl"),
		"cwd":             cwd,
		"hook_event_name": event,
	}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// The hooks record a session's start, the gate's verdicts by rule class and
// the change being declared; `planq stats` shows them. It runs the real
// hook processes (planq hook session-start, planq-hook pre-tool-use and
// post-tool-use) in a real jj repo.
func TestStatsShowsWhatTheHooksRecorded(t *testing.T) {
	bin := buildPlanq(t)
	hookBin := filepath.Join(filepath.Dir(bin), "planq-hook")
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	const sid = "metrics-hook-session"
	write := hookJSON(sid, repo, "Write", map[string]any{"file_path": filepath.Join(repo, "greet.go"), "content": "package greet\n"})
	bash := hookJSON(sid, repo, "Bash", map[string]any{"command": "ls -la", "description": "list"})

	if r := runHookArgs(t, []string{bin, "hook", "session-start"}, repo, claudeHookJSON(sid, repo, "SessionStart", map[string]any{"source": "startup"})); r.code != 0 || r.stderr != "" {
		t.Fatalf("session-start: exit %d, stderr %q", r.code, r.stderr)
	}
	pre := func(payload []byte, want string) {
		t.Helper()
		r := runHookArgs(t, []string{hookBin, "pre-tool-use"}, repo, payload)
		if got, reason := r.decision(t); r.code != 0 || r.stderr != "" || got != want {
			t.Fatalf("pre-tool-use: %s (%s), exit %d, stderr %q; want %s", got, reason, r.code, r.stderr, want)
		}
	}
	// A read-only shell call runs in the OS sandbox while locked, where
	// there is one.
	bashVerdict, bashRule := "allow", "shell"
	if sandbox.Detect().Available() {
		bashVerdict, bashRule = "sandbox", "sandbox"
	}
	pre(write, "deny")
	pre(bash, bashVerdict)
	// A file changes while the gate is locked, as an escape would.
	testenv.WriteFile(t, repo, "escaped.txt", "behind the gate's back\n")
	// The agent declares its change with jj, and the post-tool-use hook
	// sees it: it checks what changed while locked and tells the model.
	testenv.Run(t, repo, "jj", "describe", "-m", "Add a greeting")
	describe := claudeHookJSON(sid, repo, "PostToolUse", map[string]any{"tool_name": "Bash",
		"tool_input": map[string]any{"command": "jj describe -m 'Add a greeting'"}, "tool_response": map[string]any{"stdout": ""}, "tool_use_id": "toolu_2"})
	r := runHookArgs(t, []string{hookBin, "post-tool-use"}, repo, describe)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("post-tool-use: exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "Changed while the gate was locked: 1 file (escaped.txt)") {
		t.Errorf("post-tool-use after a declaration by hand does not name escaped.txt: %s", r.stdout)
	}
	// Another jj command while declared checks nothing more.
	if r := runHookArgs(t, []string{hookBin, "post-tool-use"}, repo, describe); r.code != 0 || strings.Contains(r.stdout, "gate was locked") {
		t.Errorf("a second post-tool-use: exit %d, stdout %s", r.code, r.stdout)
	}
	pre(write, "allow")

	s := statsJSON(t, repo)
	for _, w := range []struct {
		tool, rule, verdict string
	}{{"Write", "locked", "deny"}, {"Write", "declared", "allow"}, {"Bash", bashRule, "allow"}} {
		if n := gateCount(s, w.tool, w.rule, w.verdict); n != 1 {
			t.Errorf("gate %s/%s/%s counted %d times, want 1: %+v", w.tool, w.rule, w.verdict, n, s.Gate)
		}
	}
	if len(s.Gate) != 3 {
		t.Errorf("gate rows %+v, want 3", s.Gate)
	}
	if d := s.Declare; d.Count != 1 || d.Undeclared != 0 || d.Max <= 0 || d.P50 != d.Max {
		t.Errorf("time to declare %+v, want one session", d)
	}
	if e := s.Escapes; e.Checks != 1 || e.Files != 1 || len(e.Recent) != 1 || e.Recent[0].Tool != "Bash" || e.Recent[0].Session != sid {
		t.Errorf("gate escapes %+v, want the declaration by hand finding escaped.txt", e)
	}
	if s.Skipped != 0 || s.Records != 7 { // start, three verdicts, declared twice, the check at declaration
		t.Errorf("records %d, skipped %d", s.Records, s.Skipped)
	}

	// PLANQ_METRICS=off records nothing, and stats still reads.
	t.Setenv("PLANQ_METRICS", "off")
	pre(write, "allow")
	if s := statsJSON(t, repo); s.Records != 7 || gateCount(s, "Write", "declared", "allow") != 1 {
		t.Errorf("with PLANQ_METRICS=off: %d records, %+v", s.Records, s.Gate)
	}
	t.Setenv("PLANQ_METRICS", "")

	out, errs, code := runIn(t, repo, "stats")
	if code != 0 || errs != "" {
		t.Fatalf("planq stats: exit %d, %s", code, errs)
	}
	for _, want := range []string{"never sent anywhere", "Gate verdicts", "Write  locked    deny", "Gate escapes", "1 declaration checked: 1 found 1 file changed while locked", "escaped.txt", "Time from session start", "planq tool calls\n  (none)"} {
		if !strings.Contains(out, want) {
			t.Errorf("planq stats lacks %q:\n%s", want, out)
		}
	}
}

// The MCP server records calls per tool (and errors), searches that found
// nothing, and learnings surfaced by planq_search and planq_context; a
// later jj_describe naming a surfaced learning's id cites it.
func TestStatsShowsWhatTheMCPServerRecorded(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	c := startServer(t, dir)
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "stats-test", "version": "1"}})
	c.notify("notifications/initialized")

	learned := c.callTool("planq_learn", map[string]any{"insight": "The pager reads its settings from XDG_CONFIG_HOME"})
	id, _ := learned["id"].(string)
	if !strings.HasPrefix(id, "pq-") {
		t.Fatalf("planq_learn = %v", learned)
	}
	c.callTool("planq_decide", map[string]any{"decision": "Keep the pager's settings in one file", "over": []any{"environment variables"}, "because": "one place to look"})
	hits := c.callTool("planq_search", map[string]any{"query": "pager settings"})
	if h, _ := hits["hits"].([]any); len(h) == 0 {
		t.Fatalf("planq_search found nothing: %v", hits)
	}
	if h := c.callTool("planq_search", map[string]any{"query": "kubernetes probes"}); len(h["hits"].([]any)) != 0 {
		t.Fatalf("planq_search for kubernetes found %v", h)
	}
	c.callTool("planq_context", map[string]any{})
	c.callTool("jj_init", map[string]any{"description": "Move the pager settings"})
	c.callTool("jj_describe", map[string]any{"description": "Move the pager settings\n\nKey decisions:\n- follow " + id + ": settings come from XDG_CONFIG_HOME"})
	// A failing call is counted as an error.
	raw := c.request("tools/call", map[string]any{"name": "query_ancestor", "arguments": map[string]any{"change_id": "nosuchchange"}})
	if !strings.Contains(string(raw), `"isError":true`) {
		t.Fatalf("query_ancestor of a missing change: %s", raw)
	}

	s := statsJSON(t, dir)
	tools := map[string]metrics.ToolRow{}
	for _, r := range s.Tools {
		tools[r.Tool] = r
	}
	for name, want := range map[string]metrics.ToolRow{
		"planq_search":   {Tool: "planq_search", Calls: 2},
		"planq_learn":    {Tool: "planq_learn", Calls: 1},
		"planq_context":  {Tool: "planq_context", Calls: 1},
		"jj_describe":    {Tool: "jj_describe", Calls: 1},
		"query_ancestor": {Tool: "query_ancestor", Calls: 1, Errors: 1},
	} {
		if tools[name] != want {
			t.Errorf("tool row %+v, want %+v", tools[name], want)
		}
	}
	if len(s.EmptySearches) != 1 || s.EmptySearches[0].Query != "kubernetes probes" || s.EmptySearches[0].Count != 1 {
		t.Errorf("empty searches %+v", s.EmptySearches)
	}
	memory := map[string]metrics.MemoryRow{}
	for _, m := range s.Memory {
		memory[m.Kind+"/"+m.Where] = m
	}
	if m := memory["learning/planq_search"]; m.Surfaced != 1 || m.Cited != 1 {
		t.Errorf("learning via planq_search: %+v, want surfaced 1, cited 1 (all: %+v)", m, s.Memory)
	}
	if m := memory["learning/planq_context"]; m.Surfaced != 1 || m.Cited != 1 {
		t.Errorf("learning via planq_context: %+v, want surfaced 1, cited 1", m)
	}
	// The decision was surfaced but never named again.
	if m := memory["decision/planq_context"]; m.Surfaced != 1 || m.Cited != 0 {
		t.Errorf("decision via planq_context: %+v, want surfaced 1, cited 0", m)
	}
	if strings.Contains(c.stderr.String(), "panic") {
		t.Errorf("server stderr: %s", c.stderr)
	}
}

// planq state gc prunes metrics day files older than the retention, says
// so, and with --dry-run only says what it would prune.
func TestStateGCPrunesMetrics(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	w.ok("state", "init")
	dir, err := metrics.DirFor(w.repo, func(k string) string { return w.env[k] })
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC()
	old := today.AddDate(0, 0, -100).Format("2006-01-02")
	recent := today.AddDate(0, 0, -10).Format("2006-01-02")
	if err := metrics.Append(dir, metrics.Record{Time: today.AddDate(0, 0, -100), Kind: metrics.KindTool, Tool: "jj_init"},
		metrics.Record{Time: today.AddDate(0, 0, -10), Kind: metrics.KindTool, Tool: "jj_new"},
		metrics.Record{Time: today, Kind: metrics.KindTool, Tool: "jj_describe"}); err != nil {
		t.Fatal(err)
	}
	exists := func(day string) bool {
		_, err := os.Stat(filepath.Join(dir, day+".jsonl"))
		return err == nil
	}

	out := w.ok("state", "gc", "--dry-run")
	if !strings.Contains(out, "Would prune 1 local metrics day files") || !strings.Contains(out, old+".jsonl") || !exists(old) {
		t.Fatalf("gc --dry-run:\n%s\n(old file there: %v)", out, exists(old))
	}
	out = w.ok("state", "gc")
	if !strings.Contains(out, "Pruned 1 local metrics day files") || !strings.Contains(out, old+".jsonl") || exists(old) || !exists(recent) {
		t.Fatalf("gc:\n%s\n(old there: %v, recent there: %v)", out, exists(old), exists(recent))
	}
	out = w.ok("state", "gc", "--metrics-older-than", "7d", "--json")
	var res struct {
		Metrics struct {
			Files  []string `json:"files"`
			DryRun bool     `json:"dry_run"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || fmt.Sprint(res.Metrics.Files) != "["+recent+".jsonl]" || exists(recent) || !exists(today.Format("2006-01-02")) {
		t.Fatalf("gc --metrics-older-than 7d --json: %v\n%s", err, out)
	}
	if out := w.ok("state", "gc"); !strings.Contains(out, "No local metrics older than") {
		t.Errorf("gc with nothing to prune:\n%s", out)
	}
	if _, errs, code := w.planq("", "state", "gc", "--metrics-older-than", "soon"); code == 0 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "--metrics-older-than") {
		t.Errorf("gc with a bad retention: exit %d, stderr %q; want one line naming the flag", code, errs)
	}
}

// runStats's own cases: flags, an empty project, the text tables.
func TestRunStats(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	repo := t.TempDir()
	env := map[string]string{"PLANQ_HOME": home}
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	dir := filepath.Join(home, "metrics", filepath.Base(repo))
	if err := metrics.Append(dir,
		metrics.Record{Time: now.Add(-72 * time.Hour), Kind: metrics.KindTool, Tool: "jj_new"},
		metrics.Record{Time: now.Add(-time.Hour), Kind: metrics.KindTool, Tool: "planq_search"},
		metrics.Record{Time: now.Add(-time.Hour), Kind: metrics.KindEmptySearch, Query: "flaky test"},
	); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, since, repo string
		json              bool
		want, err         string
	}{
		{name: "tables", want: "planq tool calls\n  TOOL          CALLS  ERRORS\n  jj_new        1      0\n  planq_search  1      0\n"},
		{name: "since a duration", since: "24h", want: "Searches that found nothing\n  QUERY         COUNT  LAST"},
		{name: "since a date, json", since: "2025-03-09", json: true, want: `"records": 2`},
		{name: "bad since", since: "last week", err: `--since: "last week" is neither a duration (7d, 24h, 90m) nor a date (YYYY-MM-DD)`},
		{name: "nothing recorded", repo: t.TempDir(), want: "No metrics recorded yet"},
		{name: "nothing recorded since", since: "30m", want: "No metrics recorded since "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			r := repo
			if tt.repo != "" {
				r = tt.repo
			}
			o := &statsOptions{Since: tt.since, JSON: tt.json, Out: &out, Now: func() time.Time { return now },
				Getenv: func(k string) string { return env[k] }, Dir: func(string) (string, error) { return r, nil }}
			err := runStats(context.Background(), o)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !strings.Contains(out.String(), tt.want) {
				t.Fatalf("err %v; output lacks %q:\n%s", err, tt.want, out.String())
			}
			if tt.since == "24h" && strings.Contains(out.String(), "jj_new") {
				t.Errorf("--since 24h shows a 3-day-old call:\n%s", out.String())
			}
		})
	}
}
