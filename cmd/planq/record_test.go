package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLearnDecideHandoffCommands records what the MCP tools record, from
// the command line: each is one commit, shows in the context summary, and
// refuses bad input in one line.
func TestLearnDecideHandoffCommands(t *testing.T) {
	t.Parallel()
	w := newStateWorld(t)
	out := w.ok("learn", "Check token expiry before the signature", "--context", "the auth bug")
	if !strings.Contains(out, "learning recorded in learnings.md on agent-main") {
		t.Errorf("learn said %q", out)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(w.ok("decide", "Use RS256", "--over", "HS256,none", "--because", "public key verification", "--json")), &e); err != nil ||
		e["type"] != "decision" || e["decision"] != "Use RS256" || len(e["alternatives"].([]any)) != 2 {
		t.Errorf("decide --json = %v, %v", e, err)
	}
	out, errs, code := w.planq("Auth is done\n\nThe API tests are left.", "handoff", "-", "--next", "write the API tests", "--next", "run them", "--to", "reviewer")
	if code != 0 || !strings.Contains(out, "handoff recorded in changelog.md on agent-main") {
		t.Fatalf("handoff: exit %d %s%s", code, out, errs)
	}
	ctx := w.ok("context", "show")
	for _, want := range []string{"Check token expiry before the signature — the auth bug", "**Use RS256** over HS256, none, because public key verification"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}
	// The handoff is addressed to reviewer: it waits on global for them.
	w.env["PLANQ_AGENT"] = "reviewer"
	if ctx := w.ok("context", "show"); !strings.Contains(ctx, "Pending handoff") || !strings.Contains(ctx, "write the API tests") {
		t.Errorf("reviewer's context lacks the handoff:\n%s", ctx)
	}
	w.env["PLANQ_AGENT"] = ""
	if n := w.git(w.bare(), "rev-list", "--count", "agent-main"); n != "4" {
		t.Errorf("agent-main has %s commits; want the first plus one per command", n)
	}
	for _, args := range [][]string{{"learn", " "}, {"decide", "x\x1b[31m"}, {"handoff", "x", "--to", "../evil"}, {"learn", "a\x00b"}, {"decide"}} {
		_, errs, code := w.planq("", args...)
		if code == 0 || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "planq: ") {
			t.Errorf("planq %q: exit %d, stderr %q", args, code, errs)
		}
	}
	for _, c := range []string{"learn", "decide", "handoff"} {
		if out := w.ok(c, "--help"); !strings.Contains(out, "Example") || !strings.Contains(out, "--json") || !strings.Contains(out, "stdin") {
			t.Errorf("planq %s --help does not explain:\n%s", c, out)
		}
	}
}
