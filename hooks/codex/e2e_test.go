package codex_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/codex"
	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestEndToEndInCodex drives the real Codex CLI (`codex exec`) against a
// scripted model speaking the Responses API, in a fresh jj repo wired with
// `planq mcp install --host codex` (local scope) and trusted the way planq
// doctor tells a user to: an apply_patch is denied naming
// mcp__planq__jj_init, jj_init (a namespace call) unlocks the gate, a patch
// and a shell append land in the change, the turn's end is met by the
// summary nudge as a new turn in which the model calls jj_describe, and a
// second session gets the change's context as a developer message and reads
// the first session's transcript back with query_ancestor.
func TestEndToEndInCodex(t *testing.T) {
	bin := fakemodel.EnsureCodex(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../.."))
	if out := w.Install("--host", "codex"); !strings.Contains(out, "trust_level") {
		t.Fatalf("install did not say how to trust the project:\n%s", out)
	}
	// Trust the project as planq's note says (the run bypasses hook trust).
	cfg := filepath.Join(w.Home, ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", w.Repo)), 0o600); err != nil {
		t.Fatal(err)
	}
	codex := w.CLI(bin, fakemodel.HostRun.Codex, patchModel(t, bin, w.Home)...)

	patch := func(content string) string {
		return "*** Begin Patch\n*** Add File: hello.txt\n+" + content + "\n*** End Patch\n"
	}
	var nudged string
	var vaulted bool
	s := w.Play(codex, "Add a greeting file",
		fakemodel.Turn{Text: "Writing the file.", Tools: []fakemodel.ToolUse{{Name: "apply_patch", Input: patch("too early")}}},
		fakemodel.Turn{Text: "Declaring the change.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a greeting file"}}}},
		fakemodel.Turn{Text: "Writing the okapi file again.", Tools: []fakemodel.ToolUse{{Name: "apply_patch", Input: patch("hello")}}},
		fakemodel.Turn{Text: "Appending with the shell.", Tools: []fakemodel.ToolUse{{Name: "exec_command", Input: map[string]any{"cmd": "echo more >> hello.txt"}}}},
		fakemodel.Turn{Text: "All done."},
		fakemodel.Turn{Func: func(r *fakemodel.Request) fakemodel.Turn {
			nudged = r.LastUserText()
			vaulted = w.Vaulted("Writing the okapi file again.") // the stop hook copied the turn
			return fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": e2e.Summary}}}}
		}},
		fakemodel.Turn{Text: "Summary written."},
	)
	if tools := s.Loop[0].ToolNames(); !slices.Contains(tools, "apply_patch") || !slices.Contains(tools, "mcp__planq__jj_init") {
		t.Fatalf("Codex offered %v, want apply_patch and planq's tools", tools)
	}
	// The first patch was denied, the model told to call planq's init tool.
	w.ToolResult(s.Loop[1], "the first patch", "planq gate: blocked", "mcp__planq__jj_init")
	// The patch and the shell append landed in the declared change.
	w.CheckGreeting(".codex")
	if !vaulted {
		t.Fatal("the turn was not in planq's store when the stop hook had answered")
	}
	// The turn's end was met by the nudge, a new user turn naming jj_describe.
	if !strings.Contains(nudged, "mcp__planq__jj_describe") || !strings.Contains(nudged, "living summary") {
		t.Fatalf("the model's turn after the stop = %q, want planq's nudge", e2e.Trunc(nudged, 2000))
	}

	// A second session starts with the change's context, and reads the first
	// session's transcript through query_ancestor.
	s = w.Play(codex, "What did the last session do?", e2e.AskAncestor("mcp__planq__query_ancestor", "okapi"), fakemodel.Turn{Text: "Found it."})
	sys := s.Loop[0].System() // developer messages are part of it
	if !strings.Contains(sys, "planq: this session works in jj change") || !strings.Contains(sys, "zebra-decision") || !strings.Contains(sys, "mcp__planq__query_ancestor") {
		t.Fatalf("session 2's developer context lacks planq's context:\n%s", e2e.Trunc(sys, 6000))
	}
	// Codex hands the model the tool's structured result (JSON).
	w.ToolOK(s.Loop[1], "query_ancestor", `"transcript"`, "assistant: Writing the okapi file again.")

	// Compaction: a tiny auto-compact limit makes Codex compact after the
	// first reply; PreCompact logs it and SessionStart (source compact) gives
	// the compacted conversation the summary back.
	s = w.Run(w.CLI(bin, fakemodel.HostRun.Codex, "-c", "model_auto_compact_token_limit=15"), "Look around.",
		fakemodel.Turn{Text: "Looking around.", Tools: []fakemodel.ToolUse{{Name: "exec_command", Input: map[string]any{"cmd": "ls"}}}},
		fakemodel.Turn{Text: "Nothing to do."},
	)
	if log := testenv.Run(t, w.Repo, w.Planq, "log", "-n", "5"); !strings.Contains(log, "Context compacted (auto) in Codex CLI session") {
		t.Errorf("planq log after Codex compacted lacks the compaction:\n%s", log)
	}
	if sys := s.Loop[len(s.Loop)-1].System(); !strings.Contains(sys, "just compacted") || !strings.Contains(sys, "zebra-decision") {
		t.Errorf("the request after compaction lacks planq's compact context:\n%s", e2e.Trunc(sys, 6000))
	}
}

// patchModel returns the arguments that make Codex run a model it offers
// apply_patch to (a GPT-5 slug) with its MCP tools offered directly, not
// behind tool_search: gpt-5.5 from Codex's own catalog with
// supports_search_tool off, as a catalog file under home.
func patchModel(t *testing.T, bin, home string) []string {
	t.Helper()
	cmd := exec.Command(bin, "debug", "models")
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex debug models: %v", err)
	}
	var cat map[string]any
	if err := json.Unmarshal(out, &cat); err != nil {
		t.Fatalf("codex debug models: %v", err)
	}
	models, _ := cat["models"].([]any)
	var keep []any
	for _, m := range models {
		if mm, ok := m.(map[string]any); ok && mm["slug"] == "gpt-5.5" {
			mm["slug"], mm["supports_search_tool"] = "gpt-5.5-planq-test", false
			keep = append(keep, mm)
		}
	}
	if len(keep) != 1 {
		t.Fatalf("Codex's model catalog has no gpt-5.5")
	}
	cat["models"] = keep
	data, _ := json.Marshal(cat)
	path := filepath.Join(home, "model-catalog.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"-c", fmt.Sprintf("model_catalog_json=%q", path), "-c", `model="gpt-5.5-planq-test"`}
}

// TestTrustInCodex runs codex exec without --dangerously-bypass-hook-trust:
// with planq's hooks untrusted Codex silently skips them and a write goes
// through, which is why planq doctor fails codex-hook-trust; once the user
// adds the lines doctor prints, the same write is denied and doctor passes.
func TestTrustInCodex(t *testing.T) {
	bin := fakemodel.EnsureCodex(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../.."))
	repo, home := w.Repo, w.Home
	w.Install("--host", "codex", "--scope", "user")
	// Codex as a user runs it, trusting only the hooks its config trusts.
	codex := func(r fakemodel.HostRun, ctx context.Context) (fakemodel.Result, error) {
		r.KeepHookTrust = true
		return r.Codex(ctx)
	}
	write := func(name string) string {
		s := w.Run(w.CLI(bin, codex), "write",
			fakemodel.Turn{Text: "Writing.", Tools: []fakemodel.ToolUse{{Name: "exec_command", Input: map[string]any{"cmd": "echo hi > " + name}}}},
			fakemodel.Turn{Text: "Done."},
		)
		return w.ToolResult(s.Loop[1], "the write").Text
	}
	doctor := func() string {
		cmd := exec.CommandContext(w.Ctx, w.Planq, "doctor")
		cmd.Dir = repo
		out, _ := cmd.CombinedOutput()
		return string(out)
	}

	if got := write("untrusted.txt"); strings.Contains(got, "planq gate") {
		t.Fatalf("with planq's hooks untrusted Codex still ran the gate: %s", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "untrusted.txt")); err != nil {
		t.Fatalf("the ungated write did not land: %v", err)
	}
	out := doctor()
	i := strings.Index(out, "FAIL codex-hook-trust")
	if i < 0 {
		t.Fatalf("doctor does not fail codex-hook-trust:\n%s", out)
	}
	// The fix's TOML lines, as a user copies them into config.toml.
	_, fix, _ := strings.Cut(out[i:], "config.toml:\n")
	var lines []string
	for _, l := range strings.Split(fix, "\n") {
		if !strings.HasPrefix(l, "[hooks.state.") && !strings.HasPrefix(l, "trusted_hash = ") {
			break
		}
		lines = append(lines, l)
	}
	if len(lines) != 2*len(codexHooksWired) {
		t.Fatalf("doctor's fix has %d lines:\n%s", len(lines), out)
	}
	f, err := os.OpenFile(filepath.Join(home, ".codex", "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("\n" + strings.Join(lines, "\n") + "\n")
	f.Close()

	if got := write("trusted.txt"); !strings.Contains(got, "planq gate: blocked") || !strings.Contains(got, "mcp__planq__jj_init") {
		t.Fatalf("with planq's hooks trusted the write got %q, want the gate's denial", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "trusted.txt")); !os.IsNotExist(err) {
		t.Fatalf("the gated write landed (%v)", err)
	}
	if out := doctor(); !strings.Contains(out, "ok   codex-hook-trust") || strings.Contains(out, "FAIL codex-") {
		t.Fatalf("doctor after trusting:\n%s", out)
	}
}

// codexHooksWired is the number of hooks planq wires into Codex.
var codexHooksWired = codex.Hooks

// TestSubagentInCodex runs a Codex subagent under planq: its shell write is
// gated like the parent's (allowed once the parent declared the change), its
// stop is never nudged, and its own rollout is copied into the parent's
// lineage (SubagentStop), so query_ancestor finds what only the subagent said.
func TestSubagentInCodex(t *testing.T) {
	bin := fakemodel.EnsureCodex(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../.."))
	repo, home := w.Repo, w.Home
	w.Install("--host", "codex", "--scope", "user")
	summary := "Add a greeting file\n\nDone:\n- hello.txt, written by a subagent\n\nKey decisions:\n- none\n\nLeft to do:\n- nothing\n\nOpen questions:\n- none"
	var denied, nudgedSub string
	turn := func(r *fakemodel.Request) fakemodel.Turn {
		txt, last := r.Text(), r.LastUserText()
		if strings.Contains(txt, "SUBTASK") && !strings.Contains(txt, "spawn_agent") { // the subagent
			switch {
			case strings.Contains(last, "living summary"):
				nudgedSub = last
				return fakemodel.Turn{Text: "Sub nudged."}
			case len(r.ToolResults()) == 0:
				return fakemodel.Turn{Text: "narwhal-sub-step: writing.", Tools: []fakemodel.ToolUse{{Name: "exec_command", Input: map[string]any{"cmd": "echo hello > hello.txt"}}}}
			}
			return fakemodel.Turn{Text: "Sub done."}
		}
		trs := r.ToolResults()
		switch {
		case len(trs) == 0 && !strings.Contains(txt, "jj_init"):
			return fakemodel.Turn{Text: "Writing first.", Tools: []fakemodel.ToolUse{{Name: "exec_command", Input: map[string]any{"cmd": "echo early > hello.txt"}}}}
		case len(trs) == 1 && strings.Contains(trs[0].Text, "planq gate: blocked"):
			denied = trs[0].Text
			return fakemodel.Turn{Text: "Declaring.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_init", Input: map[string]any{"description": "Add a greeting file"}}}}
		case strings.Contains(last, "living summary"):
			return fakemodel.Turn{Text: "Summarising.", Tools: []fakemodel.ToolUse{{Name: "mcp__planq__jj_describe", Input: map[string]any{"description": summary}}}}
		case len(trs) == 1 && strings.Contains(trs[0].Text, `"agent_id"`):
			var v struct {
				AgentID string `json:"agent_id"`
			}
			_ = json.Unmarshal([]byte(trs[0].Text), &v)
			return fakemodel.Turn{Text: "Waiting.", Tools: []fakemodel.ToolUse{{Name: "multi_agent_v1__wait_agent", Input: map[string]any{"targets": []string{v.AgentID}, "timeout_ms": 60000}}}}
		case len(trs) == 1 && strings.Contains(txt, "Declaring.") && !strings.Contains(txt, "Spawning."):
			return fakemodel.Turn{Text: "Spawning.", Tools: []fakemodel.ToolUse{{Name: "multi_agent_v1__spawn_agent", Input: map[string]any{"message": "SUBTASK: write hello.txt"}}}}
		}
		return fakemodel.Turn{Text: "Parent done."}
	}
	script := make([]fakemodel.Turn, 12)
	for i := range script {
		script[i] = fakemodel.Turn{Func: turn}
	}
	res := w.Run(w.CLI(bin, fakemodel.HostRun.Codex), "Add a greeting file", script...)
	if !strings.Contains(denied, "mcp__planq__jj_init") {
		t.Fatalf("the parent's first write was not denied naming mcp__planq__jj_init: %q\n%s", denied, e2e.Trunc(res.Stderr, 2000))
	}
	if got, err := os.ReadFile(filepath.Join(repo, "hello.txt")); err != nil || string(got) != "hello\n" {
		t.Fatalf("hello.txt = %q, %v; want the subagent's write", got, err)
	}
	if nudgedSub != "" {
		t.Errorf("the subagent was nudged: %s", e2e.Trunc(nudgedSub, 500))
	}
	if desc := w.Description(); !strings.Contains(desc, "written by a subagent") {
		t.Fatalf("the parent was not nudged into the summary: %q", desc)
	}
	// The subagent's own words, which the parent's rollout does not hold,
	// are in the lineage's stored transcript: its rollout was copied.
	parent, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*-"+res.SessionID+".jsonl"))
	if len(parent) != 1 {
		t.Fatalf("parent rollout: %v", parent)
	}
	if data, _ := os.ReadFile(parent[0]); strings.Contains(string(data), "narwhal-sub-step") {
		t.Fatalf("the parent's rollout holds the subagent's words; the test cannot tell the copies apart")
	}
	stores, _ := filepath.Glob(filepath.Join(os.Getenv("PLANQ_HOME"), "sessions", "*", "*", "transcript.jsonl"))
	found := false
	for _, st := range stores {
		if data, _ := os.ReadFile(st); strings.Contains(string(data), "narwhal-sub-step") && strings.Contains(string(data), "SUBTASK") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no lineage transcript (%v) holds the subagent's words", stores)
	}
}
