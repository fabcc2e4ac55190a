package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// planqLaunch runs `planq <args>` in dir the way a user does, with the
// environment Claude Code gets in these tests (so planq launches the real
// claude against the fake model); it returns planq's stderr and claude's
// session id (from its JSON output on stdout).
func planqLaunch(ctx context.Context, t *testing.T, planq, dir string, run fakemodel.Run, args ...string) (stderr, sessionID string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, planq, args...)
	cmd.Dir = dir
	cmd.Env = run.Environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("planq %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	s := out.String()
	if i := strings.LastIndex(s, "\n{"); i >= 0 {
		s = s[i+1:]
	}
	if err := json.Unmarshal([]byte(s), &res); err != nil || res.SessionID == "" {
		t.Fatalf("planq %s: no session id in claude's output (%v): %s", args[0], err, out.String())
	}
	return errb.String(), res.SessionID
}

// TestFirstRunInClaudeCode walks the README's quick start the way a new user
// does, in real Claude Code: a project whose main is on a remote, a fresh
// clone, `planq mcp install`, then `planq start "task"` launching Claude Code.
// The hooks run from the first call (the session gets the declared change,
// a forbidden git commit is denied, the Write is recorded, the stop hook asks
// for the summary), jj_push sends the work to main, and `planq resume`
// brings the session back on top of the pushed change, in its lineage.
func TestFirstRunInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	testenv.RequireJJ(t)
	planq := planqBinary(t) // before Isolate: the build uses the real Go caches
	testenv.Isolate(t)
	home := os.Getenv("HOME")
	repo := testenv.Clone(t, testenv.RemoteWithMain(t))
	bare := strings.TrimSpace(testenv.Run(t, repo, "git", "remote", "get-url", "origin"))
	ctx := testenv.Context(t)

	// planq mcp install: the default (local) scope; the server goes into
	// ~/.claude.json, edited in place by planq.
	install := exec.CommandContext(ctx, planq, "mcp", "install", "--host", "claude")
	install.Dir = repo
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("planq mcp install: %v\n%s", err, out)
	}

	// planq doctor: everything in order before the first session.
	doctor := exec.CommandContext(ctx, planq, "doctor")
	doctor.Dir = repo
	if out, err := doctor.CombinedOutput(); err != nil {
		t.Fatalf("planq doctor after install: %v\n%s", err, out)
	}

	const task = "Add a greeting file"
	hello := filepath.Join(repo, "hello.txt")
	summary := task + "\n\nDone:\n- hello.txt with a greeting\n\nKey decisions:\n- plain text (zebra-decision)\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"
	m, err := fakemodel.Start(
		fakemodel.Turn{Text: "Committing first.", Tools: []fakemodel.ToolUse{{Name: "Bash", Input: map[string]any{"command": "git commit -am wip", "description": "commit"}}}},
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": hello, "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": summary}}}},
		fakemodel.Turn{Text: "Pushing.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_push", Input: map[string]any{}}}},
		fakemodel.Turn{Text: "Pushed."},
	)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	run := fakemodel.Run{Claude: claude, Dir: repo, Home: home, Model: m, Env: claudeEnv()}
	agent := claude + " " + strings.Join(fakemodel.HeadlessArgs(), " ") + " -p"

	stderr, sessionID := planqLaunch(ctx, t, planq, repo, run, "start", task, "--agent-cmd", agent)
	loop := m.LoopRequests()
	defer func() {
		if t.Failed() {
			for i, r := range m.LoopRequests() {
				t.Logf("loop request %d (turn %d): last user message:\n%s", i, r.Turn, tail(r.LastUserText(), 1500))
			}
			dumpDebug(t, home)
		}
	}()
	if strings.Contains(stderr, "warning") {
		t.Errorf("planq start warned:\n%s", stderr)
	}
	if unused, extra := m.Remaining(); unused != 0 || extra != 0 || len(loop) != 6 {
		t.Fatalf("script: %d turns unused, %d requests after it ended, %d loop requests", unused, extra, len(loop))
	}
	// SessionStart ran: the model starts knowing the declared change.
	if c := loop[0].Text(); !strings.Contains(c, "SessionStart hook additional context") || !strings.Contains(c, task) {
		t.Errorf("the first request lacks the session-start context naming the change; tail:\n%s", tail(c, 2000))
	}
	// PreToolUse ran: git commit is denied even with the change declared.
	if trs := loop[1].ToolResults(); len(trs) != 1 || !trs[0].IsError || !strings.Contains(trs[0].Text, "jj commit") {
		t.Errorf("after `git commit` the model got %+v, want planq's denial", trs)
	}
	// The Write went through the gate into the declared change.
	if trs := loop[2].ToolResults(); len(trs) != 1 || trs[0].IsError {
		t.Errorf("the Write was refused: %+v", trs)
	}
	// Stop ran: it asked for the living summary.
	if fb := loop[3].LastUserText(); !strings.Contains(fb, "Stop hook feedback") || !strings.Contains(fb, "Key decisions:") {
		t.Errorf("after the end of turn the model got:\n%s\nwant the stop hook asking for a summary", fb)
	}
	// jj_push sent the change to origin's main.
	if trs := loop[5].ToolResults(); len(trs) != 1 || trs[0].IsError || !strings.Contains(trs[0].Text, `"pushed":true`) {
		t.Errorf("jj_push returned %+v", trs)
	}
	if got := strings.TrimSpace(testenv.Run(t, "", "git", "--git-dir", bare, "log", "-1", "--format=%s", "main")); got != task {
		t.Errorf("origin's main is %q, want the pushed %q", got, task)
	}
	root := strings.TrimSpace(e2e.JJ(t, repo, "log", "--no-graph", "-r", "main", "-T", "change_id"))
	// The session is recorded under the change: Claude Code's session, and
	// the file PostToolUse saw it write.
	st, err := staterepo.Open(staterepo.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ts.Load(root)
	if err != nil {
		t.Fatalf("no session recorded for the pushed root %s: %v", root, err)
	}
	if a, ok := sess.LastAgent(); !ok || a.ID != sessionID || !slices.Contains(sess.Files, "hello.txt") {
		t.Errorf("session record %+v; want Claude Code session %s and hello.txt", sess, sessionID)
	}
	// The wiring is still where Claude Code reads it, in no change.
	doctor = exec.CommandContext(ctx, planq, "doctor")
	doctor.Dir = repo
	if out, err := doctor.CombinedOutput(); err != nil {
		t.Errorf("planq doctor after the session: %v\n%s", err, out)
	}

	// Review feedback after the push: resume the pushed root.
	review := filepath.Join(repo, "review.txt")
	m.SetScript(
		fakemodel.Turn{Text: "Addressing the review.", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": review, "content": "addressed\n"}}}},
		fakemodel.Turn{Text: "Addressed."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": "Address the review\n\nDone:\n- review.txt\n\nKey decisions:\n- none\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"}}}},
		fakemodel.Turn{Text: "Done."},
	)
	stderr, resumed := planqLaunch(ctx, t, planq, repo, run, "resume", root[:12], "--agent-cmd", agent+" 'Address the review'")
	if resumed != sessionID || !strings.Contains(stderr, "immutable") || !strings.Contains(stderr, "same lineage") {
		t.Errorf("planq resume: session %s (want %s); stderr:\n%s", resumed, sessionID, stderr)
	}
	cur, err := jj.New(repo).Current(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lineage, ok := jj.SessionRoot(cur.Description); !ok || lineage != root || !slices.Equal(cur.Parents, []string{root}) {
		t.Errorf("@ after resume = %+v; want a change on the pushed root %s, in its lineage", cur, root[:12])
	}
	if d := e2e.JJ(t, repo, "diff", "--summary"); !strings.Contains(d, "A review.txt") {
		t.Errorf("jj diff --summary = %q, want review.txt in the resumed change", d)
	}
}
