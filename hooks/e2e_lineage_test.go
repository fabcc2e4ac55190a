package hooks_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// machine is one machine of a two-machine test: its own HOME and
// PLANQ_HOME, and a clone of the project.
type machine struct {
	t    *testing.T
	ctx  context.Context // the test's deadline (testenv.Context)
	repo string
	env  []string // what differs from the test's environment
}

// run runs name with args in the machine's clone and environment; a
// failure ends the test.
func (m *machine) run(name string, args ...string) (stdout, stderr string) {
	m.t.Helper()
	cmd := exec.CommandContext(m.ctx, name, args...)
	cmd.Dir = m.repo
	cmd.Env = append(os.Environ(), m.env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		m.t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// TestSessionTravelsToATeammateInClaudeCode is #25's story on two machines
// (two HOMEs and PLANQ_HOMEs, two clones, one bare remote for the code and
// one for the state): a session in real Claude Code on A declares a change
// and writes a file, with a fake API key in its prompt; A pushes the change
// and the state with sessions shared. On B, after a clone and a pull that
// leaves the sessions for later, query_ancestor on A's change fetches its
// lineage and returns A's transcript lines with the key redacted; planq
// resume writes Claude Code's session file on B and goes on in a new change
// of the lineage, and the resumed session's first request to the model
// carries A's conversation.
func TestSessionTravelsToATeammateInClaudeCode(t *testing.T) {
	claude := fakemodel.EnsureClaude(t)
	planq := planqBinary(t) // before Isolate: the build uses the real Go caches
	w := e2e.New(t, planq)  // machine A: the test's isolated HOME and PLANQ_HOME
	code := testenv.RemoteWithMain(t)
	w.Repo = testenv.Clone(t, code)
	if real, err := filepath.EvalSymlinks(w.Repo); err == nil {
		w.Repo = real
	}
	state := filepath.Join(t.TempDir(), "state.git")
	a := &machine{t: t, ctx: w.Ctx, repo: w.Repo}
	w.Debug = func() { dumpDebug(t, w.Home) }
	a.run(planq, "mcp", "install", "--scope", "local", "--host", "claude")
	a.run(planq, "state", "remote", state, "--share-sessions", "on")

	token := "ghp_" + "Zq8Rt2Lm5Vx9Kp3Hs7Wd1Fj6Nb4Cy0Ge8Ua2"
	sa := w.Play(claudeCode(w, claude), "Add a greeting file. The deploy token is "+token+" (keep it secret).",
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing the greeting (walrus-step).", Tools: []fakemodel.ToolUse{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(w.Repo, "hello.txt"), "content": "hello\n"}}}},
		fakemodel.Turn{Text: "Done."},
		fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": e2e.Summary}}}},
		fakemodel.Turn{Text: "Summary written."},
	)
	if sa.SessionID == "" {
		t.Fatalf("no session id in claude's output: %s", sa.Stdout)
	}
	change := strings.TrimSpace(w.JJ("log", "-r", "@", "--no-graph", "-T", "change_id"))
	w.JJ("bookmark", "create", "greeting", "-r", "@")
	w.JJ("git", "push", "--bookmark", "greeting")
	out, _ := a.run(planq, "state", "push")
	if !regexp.MustCompile(`shared \d+ transcript lines, \d+ secrets redacted`).MatchString(out) || !strings.Contains(out, "1 lineages pushed") {
		t.Fatalf("planq state push on A said:\n%s", out)
	}
	refs := testenv.Run(t, "", "git", "-C", state, "for-each-ref", "--format=%(refname)", "refs/planq/sessions/")
	if !strings.Contains(refs, "refs/planq/sessions/"+change) {
		t.Fatalf("the state remote's session refs: %q, want the lineage of %s", refs, change)
	}

	// Machine B: another HOME and PLANQ_HOME, a fresh clone.
	homeB := t.TempDir()
	b := &machine{t: t, ctx: w.Ctx, repo: testenv.Clone(t, code), env: []string{"HOME=" + homeB, "PLANQ_HOME=" + filepath.Join(homeB, ".planq"), "XDG_CONFIG_HOME=" + filepath.Join(homeB, ".config")}}
	if real, err := filepath.EvalSymlinks(b.repo); err == nil {
		b.repo = real
	}
	b.run(planq, "mcp", "install", "--scope", "local", "--host", "claude")
	b.run(planq, "state", "remote", state, "--share-sessions", "off")
	b.run(planq, "state", "pull", "--sessions", "none")
	envB := append([]string{"PATH=" + os.Getenv("PATH"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"), "JJ_USER=Bea", "JJ_EMAIL=bea@example.com", "MCP_TIMEOUT=30000"}, b.env...)
	onB := func(args ...string) e2e.Host {
		return e2e.Claude(fakemodel.Run{Claude: claude, Dir: b.repo, Home: homeB, Env: envB, Args: args})
	}

	// query_ancestor on A's change: the lineage is fetched on first use,
	// and the lines come with the key redacted.
	sq := w.Play(onB(), "What happened in the greeting change?",
		fakemodel.Turn{Text: "Looking back.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__query_ancestor", Input: map[string]any{
			"change_id": change, "include": []string{"description", "transcript"}, "transcript_filter": map[string]any{"search": "walrus-step"}}}}},
		fakemodel.Turn{Text: "I see."},
	)
	tr := w.ToolOK(sq.Loop[1], "query_ancestor on A's change from B", "zebra-decision", "walrus-step")
	all := w.ToolOK(w.Play(onB(), "And the prompt?",
		fakemodel.Turn{Text: "Reading.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__query_ancestor", Input: map[string]any{
			"change_id": change, "include": []string{"transcript"}, "transcript_filter": map[string]any{"search": "deploy token"}}}}},
		fakemodel.Turn{Text: "Noted."},
	).Loop[1], "query_ancestor for the prompt", "[REDACTED by planq: github-pat]")
	if strings.Contains(tr.Text+all.Text, token) {
		t.Fatalf("B's query_ancestor returned the secret:\n%s", all.Text)
	}

	// planq resume on B: Claude Code's session file is written here and the
	// session goes on in a new change of the lineage, on top of A's.
	out, errOut := b.run(planq, "resume", change, "--agent-cmd", "none")
	if !strings.Contains(out, "--resume "+sa.SessionID) || !strings.Contains(errOut, "restored Claude Code session "+sa.SessionID) {
		t.Fatalf("planq resume on B said:\nstdout: %s\nstderr: %s", out, errOut)
	}
	at := testenv.Run(t, b.repo, "jj", "--no-pager", "log", "-r", "@", "--no-graph", "-T", `change_id ++ "|" ++ parents.map(|c| c.change_id()).join(",") ++ "|" ++ description`)
	parts := strings.SplitN(at, "|", 3)
	if len(parts) != 3 || parts[0] == change || parts[1] != change || !strings.Contains(parts[2], "Session: "+change) {
		t.Fatalf("B's @ after resume: %q; want a new change on %s in its lineage", at, change)
	}
	sr := w.Resume(sa, onB("--resume", sa.SessionID), "Where were we?", fakemodel.Turn{Text: "Back on B."})
	first := sr.Loop[len(sa.Loop)].Text()
	for _, want := range []string{"Writing the greeting (walrus-step).", "Summary written.", "[REDACTED by planq: github-pat]", "Where were we?"} {
		if !strings.Contains(first, want) {
			t.Errorf("the resumed session's first request on B lacks %q:\n%s", want, e2e.Trunc(first, 4000))
		}
	}
	if strings.Contains(first, token) {
		t.Error("the resumed session on B sent the secret to the model")
	}
	if t.Failed() {
		dumpDebug(t, homeB)
	}
}
