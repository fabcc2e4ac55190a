// Package e2e is the harness every host's end-to-end test shares: an
// isolated world with planq built and a fresh jj repo, `planq mcp install`
// run in it, sessions of the real host CLI played against the fake model
// (package fakemodel), and the checks of what the model was sent.
package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// Summary is the living summary the scripted model writes with
// jj_describe; its decision says zebra-decision, which the tests look for.
const Summary = "Add a greeting file\n\nDone:\n- hello.txt with a greeting\n\nKey decisions:\n- plain text (zebra-decision)\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"

// World is one end-to-end test's world: the planq its host runs, an
// isolated home and a jj repo, and the test's deadline.
type World struct {
	T     *testing.T      // the test, which a failed check ends
	Ctx   context.Context // the test's deadline (testenv.Context: go test's -timeout, less a margin)
	Planq string          // the planq binary the host's hooks and server run
	Repo  string          // the jj repo the host works in, symlinks resolved
	Home  string          // the isolated HOME the host keeps its state in
	// Env is what a host's run adds to its environment for planq's hooks
	// and server: the isolated PLANQ_HOME and jj config, and a jj identity.
	Env []string
	// Debug, when set, logs what explains a failed session before the
	// test ends.
	Debug func()

	sessions int
}

// New makes the world of a test whose host runs planq (built before: the
// build uses the real Go caches, which isolating hides): it needs jj,
// isolates HOME, PLANQ_HOME and the jj config (testenv.Isolate), makes a
// fresh jj repo and gives the test until shortly before go test's
// -timeout: a session's pace depends on the machine's load, so its waits
// have one generous budget, not fixed ones.
func New(t *testing.T, planq string) *World {
	t.Helper()
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	if real, err := filepath.EvalSymlinks(repo); err == nil {
		repo = real
	}
	w := &World{T: t, Ctx: testenv.Context(t), Planq: planq, Repo: repo, Home: os.Getenv("HOME"),
		Env: []string{"PLANQ_HOME=" + os.Getenv("PLANQ_HOME"), "JJ_CONFIG=" + os.Getenv("JJ_CONFIG"), "JJ_USER=Test User", "JJ_EMAIL=test@example.com"}}
	t.Cleanup(w.checkNoEscapes)
	return w
}

// checkNoEscapes ends every end-to-end test with the check at
// declaration's tally (planq stats): no file may have changed in the
// project while the gate was locked, in any host.
func (w *World) checkNoEscapes() {
	t := w.T
	if t.Failed() {
		return
	}
	cmd := exec.CommandContext(w.Ctx, w.Planq, "stats", "--json", "--repo", w.Repo)
	cmd.Env = append(os.Environ(), w.Env...)
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("planq stats --json: %v\n%s", err, out)
		return
	}
	var sum struct {
		Escapes struct {
			Files  int `json:"files"`
			Recent []struct {
				Tool  string   `json:"tool"`
				Files []string `json:"files"`
			} `json:"recent"`
		} `json:"gate_escapes"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Errorf("planq stats --json printed %s: %v", Trunc(string(out), 500), err)
		return
	}
	if e := sum.Escapes; e.Files != 0 {
		t.Errorf("%d files changed in the project while the gate was locked (gate escapes): %+v", e.Files, e.Recent)
	}
}

// Install runs `planq mcp install args…` in the repo and returns what it
// said; a failure ends the test.
func (w *World) Install(args ...string) string {
	w.T.Helper()
	cmd := exec.CommandContext(w.Ctx, w.Planq, append([]string{"mcp", "install"}, args...)...)
	cmd.Dir = w.Repo
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.T.Fatalf("planq mcp install %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Host runs one headless session of an agent host on the fake model with
// prompt.
type Host func(ctx context.Context, model *fakemodel.Server, prompt string) (fakemodel.Result, error)

// CLI is the Host that runs bin in the world as exec, a method of
// fakemodel.HostRun such as fakemodel.HostRun.Codex, runs it (with args
// before the prompt).
func (w *World) CLI(bin string, exec func(fakemodel.HostRun, context.Context) (fakemodel.Result, error), args ...string) Host {
	return func(ctx context.Context, m *fakemodel.Server, prompt string) (fakemodel.Result, error) {
		return exec(fakemodel.HostRun{Bin: bin, Dir: w.Repo, Home: w.Home, Model: m, Prompt: prompt, Env: w.Env, Args: args}, ctx)
	}
}

// Claude is the Host that runs Claude Code (r's Claude, Dir, Home and Env)
// with -p prompt, then r.Args.
func Claude(r fakemodel.Run) Host {
	return func(ctx context.Context, m *fakemodel.Server, prompt string) (fakemodel.Result, error) {
		r.Model, r.Args = m, append([]string{"-p", prompt}, r.Args...)
		return r.Exec(ctx)
	}
}

// Session is one session played against the fake model: what the host
// printed, the model, and the agent-loop requests it answered.
type Session struct {
	fakemodel.Result
	Model *fakemodel.Server    // the fake model the host ran on
	Loop  []*fakemodel.Request // the agent-loop requests it answered
}

// Run starts a fake model scripted with turns, runs host on it with prompt,
// and logs each agent-loop request; a run that fails ends the test.
func (w *World) Run(host Host, prompt string, turns ...fakemodel.Turn) Session {
	w.T.Helper()
	m, err := fakemodel.Start(turns...)
	if err != nil {
		w.T.Fatal(err)
	}
	w.T.Cleanup(func() { m.Close() })
	return w.run(m, host, prompt)
}

// Resume is Run on the model of the session s, scripted anew with turns,
// for a host that resumes s's conversation: the model's tool call ids go
// on from s's. The session's Loop holds s's requests too.
func (w *World) Resume(s Session, host Host, prompt string, turns ...fakemodel.Turn) Session {
	w.T.Helper()
	s.Model.SetScript(turns...)
	return w.run(s.Model, host, prompt)
}

// run runs host on m with prompt and logs the requests it made.
func (w *World) run(m *fakemodel.Server, host Host, prompt string) Session {
	w.T.Helper()
	w.sessions++
	before := len(m.LoopRequests())
	res, err := host(w.Ctx, m, prompt)
	s := Session{Result: res, Model: m, Loop: m.LoopRequests()}
	for i, r := range s.Loop[before:] {
		w.T.Logf("session %d request %d (turn %d): %s", w.sessions, i, r.Turn, Trunc(r.LastUserText(), 400))
	}
	if err != nil {
		w.fail("%v", err)
	}
	return s
}

// Play is Run for a session that must play its script exactly: every turn
// used, and no agent-loop request after the last.
func (w *World) Play(host Host, prompt string, turns ...fakemodel.Turn) Session {
	w.T.Helper()
	s := w.Run(host, prompt, turns...)
	if unused, extra := s.Model.Remaining(); unused != 0 || extra != 0 {
		w.fail("session %d: %d turns unused, %d requests after the script ended\nstdout: %s\nstderr: %s",
			w.sessions, unused, extra, Trunc(s.Stdout, 3000), Trunc(s.Stderr, 3000))
	}
	return s
}

// fail logs Debug's findings and ends the test.
func (w *World) fail(format string, args ...any) {
	w.T.Helper()
	if w.Debug != nil {
		w.Debug()
	}
	w.T.Fatalf(format, args...)
}

// ToolResult is the one tool result r sends the model, whose text holds
// every want; anything else ends the test, saying what the result was for.
func (w *World) ToolResult(r *fakemodel.Request, what string, want ...string) fakemodel.ToolResult {
	w.T.Helper()
	trs := r.ToolResults()
	if len(trs) != 1 {
		w.T.Fatalf("%s: the model got %d tool results, want one: %+v", what, len(trs), trs)
	}
	for _, s := range want {
		if !strings.Contains(trs[0].Text, s) {
			w.T.Fatalf("%s: the model got %s\nwant it to say %q", what, Trunc(trs[0].Text, 3000), s)
		}
	}
	return trs[0]
}

// ToolOK is ToolResult for a call that must not have failed.
func (w *World) ToolOK(r *fakemodel.Request, what string, want ...string) fakemodel.ToolResult {
	w.T.Helper()
	tr := w.ToolResult(r, what, want...)
	if tr.IsError {
		w.T.Fatalf("%s failed: %s", what, Trunc(tr.Text, 3000))
	}
	return tr
}

// CheckGreeting checks the end of the story every host's test plays: once
// the change is declared, the write of hello.txt and the shell's append to
// it land in it, its diff leaves the local wiring out (wiring: the
// directory jj diff would name), and its description is Summary.
func (w *World) CheckGreeting(wiring string) {
	w.T.Helper()
	if got, err := os.ReadFile(filepath.Join(w.Repo, "hello.txt")); err != nil || string(got) != "hello\nmore\n" {
		w.T.Fatalf("hello.txt = %q, %v; want the write and the shell's append", got, err)
	}
	if d := w.JJ("diff", "--summary"); !strings.Contains(d, "A hello.txt") || strings.Contains(d, wiring) {
		w.T.Fatalf("jj diff --summary = %q, want hello.txt added and the local wiring left out", d)
	}
	if desc := w.Description(); !strings.Contains(desc, "zebra-decision") || !strings.HasPrefix(desc, "Add a greeting file") {
		w.T.Fatalf("the change's description = %q, want the summary", desc)
	}
}

// AskAncestor is the turn that looks back with planq's query_ancestor
// (tool: its name as the host shows it): the transcript lines of @'s
// lineage that mention search.
func AskAncestor(tool, search string) fakemodel.Turn {
	return fakemodel.Turn{Text: "Looking back.", Tools: []fakemodel.ToolUse{{Name: tool, Input: map[string]any{
		"change_id": "@", "include": []string{"transcript"}, "transcript_filter": map[string]any{"search": search}}}}}
}

// JJ runs jj in the world's repo (JJ).
func (w *World) JJ(args ...string) string {
	w.T.Helper()
	return JJ(w.T, w.Repo, args...)
}

// JJ runs jj in dir, without pager or colour, and returns its output; a
// failure ends the test.
func JJ(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return testenv.Run(t, dir, "jj", append([]string{"--no-pager", "--color", "never"}, args...)...)
}

// Description is the description of the repo's working-copy change.
func (w *World) Description() string {
	w.T.Helper()
	return w.JJ("log", "-r", "@", "--no-graph", "-T", "description")
}

// Trunc cuts s after n bytes, marking the cut.
func Trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
