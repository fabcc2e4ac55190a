package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// sessionStart runs the real session-start hook for session sid in repo,
// as Claude Code does when a session starts.
func sessionStart(t *testing.T, bin, repo, sid string) {
	t.Helper()
	r := runHookArgs(t, []string{bin, "hook", "session-start"}, repo, claudeHookJSON(sid, repo, "SessionStart", map[string]any{"source": "startup"}))
	if r.code != 0 || r.stderr != "" || strings.Contains(r.stdout, "planq problems") {
		t.Fatalf("session-start: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
}

// mcpSession starts planq's MCP server in dir, initialized.
func mcpSession(t *testing.T, dir string) *rpcClient {
	t.Helper()
	c := startServer(t, dir)
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "escape-test", "version": "1"}})
	c.notify("notifications/initialized")
	return c
}

// jjInitText calls jj_init and returns its structured result and its text
// for the model.
func jjInitText(t *testing.T, c *rpcClient, desc string) (map[string]any, string) {
	t.Helper()
	raw := c.request("tools/call", map[string]any{"name": "jj_init", "arguments": map[string]any{"description": desc}})
	var res struct {
		IsError           bool             `json:"isError"`
		Content           []map[string]any `json:"content"`
		StructuredContent map[string]any   `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("jj_init: %s (%v)", raw, err)
	}
	text, _ := res.Content[0]["text"].(string)
	return res.StructuredContent, text
}

func changedWhileLocked(out map[string]any) []string {
	var files []string
	list, _ := out["changed_while_locked"].([]any)
	for _, f := range list {
		files = append(files, fmt.Sprint(f))
	}
	return files
}

// TestDeclarationNamesFilesChangedWhileLocked: a file written into the
// project while the gate is locked, directly as an escape would (no tool
// the gate judged), is named to the model by jj_init and counted as a gate
// escape in planq stats; what the user wrote before the session started is
// not; after the gate locks again, only what changed since is named; and a
// clean session reports nothing.
func TestDeclarationNamesFilesChangedWhileLocked(t *testing.T) {
	bin := buildPlanq(t)

	t.Run("escape", func(t *testing.T) {
		testenv.Isolate(t) // metrics of its own
		repo := testenv.JJRepo(t)
		testenv.WriteFile(t, repo, "before.txt", "the user's own edit, before the agent started\n")
		sessionStart(t, bin, repo, "escape-session")
		testenv.WriteFile(t, repo, "notes.txt", "written behind the gate's back\n")
		testenv.WriteFile(t, repo, "src/deep.go", "package src\n")

		c := mcpSession(t, repo)
		out, text := jjInitText(t, c, "Add notes")
		if got, want := changedWhileLocked(out), []string{"notes.txt", "src/deep.go"}; !slices.Equal(got, want) {
			t.Errorf("changed_while_locked = %q, want %q (and not before.txt)", got, want)
		}
		for _, w := range []string{"Changed while the gate was locked: 2 files (notes.txt, src/deep.go)", "jj diff"} {
			if !strings.Contains(text, w) {
				t.Errorf("jj_init text lacks %q:\n%s", w, text)
			}
		}
		s := statsJSON(t, repo)
		if e := s.Escapes; e.Checks != 1 || e.Found != 1 || e.Files != 2 || len(e.Recent) != 1 || e.Recent[0].Tool != "jj_init" {
			t.Errorf("gate escapes %+v, want one jj_init check finding 2 files", e)
		}

		// The gate locks again (the work is committed, a new empty @):
		// only what changes from now on is named at the next declaration.
		testenv.WriteFile(t, repo, "allowed.txt", "written while the change was declared\n")
		testenv.Run(t, repo, "jj", "new")
		testenv.WriteFile(t, repo, "second.txt", "another escape\n")
		out, _ = jjInitText(t, c, "Second change")
		if got := changedWhileLocked(out); !slices.Equal(got, []string{"second.txt"}) {
			t.Errorf("second declaration: changed_while_locked = %q, want [second.txt]", got)
		}
		if e := statsJSON(t, repo).Escapes; e.Checks != 2 || e.Found != 2 || e.Files != 3 {
			t.Errorf("gate escapes after the second declaration %+v", e)
		}
		txt, errs, code := runIn(t, repo, "stats")
		if code != 0 || errs != "" {
			t.Fatalf("planq stats: exit %d, %s", code, errs)
		}
		for _, w := range []string{"Gate escapes", "2 declarations checked: 2 found 3 files changed while locked", "jj_init", "second.txt", "notes.txt, src/deep.go"} {
			if !strings.Contains(txt, w) {
				t.Errorf("planq stats lacks %q:\n%s", w, txt)
			}
		}
	})

	t.Run("clean", func(t *testing.T) {
		testenv.Isolate(t) // metrics of its own
		repo := testenv.JJRepo(t)
		testenv.WriteFile(t, repo, "before.txt", "the user's own edit, before the agent started\n")
		sessionStart(t, bin, repo, "clean-session")
		c := mcpSession(t, repo)
		out, text := jjInitText(t, c, "Add notes")
		if got := changedWhileLocked(out); len(got) != 0 || strings.Contains(text, "gate was locked") {
			t.Errorf("clean session: changed_while_locked = %q, text:\n%s", got, text)
		}
		if e := statsJSON(t, repo).Escapes; e.Checks != 1 || e.Files != 0 || e.Found != 0 || len(e.Recent) != 0 {
			t.Errorf("gate escapes %+v, want one check finding nothing", e)
		}
	})

	t.Run("planq start", func(t *testing.T) {
		// The user declares for a locked session from a terminal, after
		// editing a file while it ran: named, as changed while locked.
		testenv.Isolate(t) // metrics of its own
		repo := testenv.JJRepo(t)
		sessionStart(t, bin, repo, "start-session")
		testenv.WriteFile(t, repo, "edited-meanwhile.txt", "the user's edit while the agent was locked\n")
		_, errs, code := runIn(t, repo, "start", "Add a greeting file", "--agent-cmd", "none")
		if code != 0 {
			t.Fatalf("planq start: exit %d\n%s", code, errs)
		}
		if !strings.Contains(errs, "Changed while the gate was locked: 1 file (edited-meanwhile.txt)") {
			t.Errorf("planq start does not name the file:\n%s", errs)
		}
		if e := statsJSON(t, repo).Escapes; e.Checks != 1 || e.Files != 1 || e.Recent[0].Tool != "planq start" {
			t.Errorf("gate escapes %+v", e)
		}
	})

	t.Run("after the session ended", func(t *testing.T) {
		// Between sessions the files are the user's: planq start names
		// nothing once the last session ended.
		testenv.Isolate(t) // metrics of its own
		repo := testenv.JJRepo(t)
		sessionStart(t, bin, repo, "ended-session")
		end := claudeHookJSON("ended-session", repo, "SessionEnd", map[string]any{"reason": "prompt_input_exit"})
		if r := runHookArgs(t, []string{bin, "hook", "session-end"}, repo, end); r.code != 0 || r.stderr != "" {
			t.Fatalf("session-end: exit %d, stderr %q", r.code, r.stderr)
		}
		testenv.WriteFile(t, repo, "mine.txt", "the user's edit between sessions\n")
		_, errs, code := runIn(t, repo, "start", "Add a greeting file", "--agent-cmd", "none")
		if code != 0 || strings.Contains(errs, "gate was locked") {
			t.Errorf("planq start after the session ended: exit %d\n%s", code, errs)
		}
	})
}
