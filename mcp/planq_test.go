package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/planq-dev/planq/internal/testenv"
	planqmcp "github.com/planq-dev/planq/mcp"
	"github.com/planq-dev/planq/staterepo"
)

// stateRepoDir is a git repo for the state tools, with an isolated HOME and
// PLANQ_HOME.
func stateRepoDir(t *testing.T) string {
	t.Helper()
	testenv.Isolate(t)
	dir := t.TempDir()
	testenv.Run(t, dir, "git", "init", "-q", "-b", "main")
	return dir
}

func TestStateToolsRecordAndRecall(t *testing.T) {
	dir := stateRepoDir(t)
	s := connect(t, dir)
	out, text := s.call("planq_log", map[string]any{"message": "Implemented JWT validation", "type": "implement", "status": "completed"}, false)
	if out["type"] != "implement" || !strings.HasPrefix(out["id"].(string), "pq-") || !strings.Contains(text, "changelog.md") {
		t.Errorf("planq_log = %v / %s", out, text)
	}
	s.call("planq_scratch", map[string]any{"content": "Investigating the auth bug"}, false)
	s.call("planq_scratch", map[string]any{"content": "Next: tests", "mode": "append"}, false)
	s.call("planq_learn", map[string]any{"insight": "Check token expiry before the signature", "context": "auth bug"}, false)
	s.call("planq_decide", map[string]any{"decision": "Use RS256", "over": []any{"HS256"}, "because": "public key verification"}, false)
	s.call("planq_handoff", map[string]any{"summary": "Auth done; API tests left", "next_steps": []any{"write API tests"}}, false)

	ctxOut, md := s.call("planq_context", map[string]any{}, false)
	if ctxOut["agent"] != "main" || !strings.Contains(ctxOut["scratch"].(string), "Next: tests") {
		t.Errorf("planq_context = %v", ctxOut)
	}
	for _, want := range []string{"Pending handoff", "API tests left", "**Use RS256** over HS256", "Check token expiry", "Implemented JWT validation", "code branch `main`"} {
		if !strings.Contains(md, want) {
			t.Errorf("planq_context text lacks %q:\n%s", want, md)
		}
	}
	// The next log entry acknowledges the handoff; it is no longer pending.
	out, text = s.call("planq_log", map[string]any{"message": "Started the API tests", "type": "start"}, false)
	if out["acknowledged_handoff"] == nil || !strings.Contains(text, "acknowledges handoff") {
		t.Errorf("log after a handoff = %v / %s", out, text)
	}
	if _, md := s.call("planq_context", map[string]any{}, false); strings.Contains(md, "Pending handoff") {
		t.Errorf("handoff still pending:\n%s", md)
	}

	hits, text := s.call("planq_search", map[string]any{"query": "RS256 signing", "type": "decision"}, false)
	list := hits["hits"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["kind"] != "decision" || !strings.Contains(text, "RS256") {
		t.Errorf("planq_search = %v / %s", hits, text)
	}
	// The warm index sees a write made after the first search.
	s.call("planq_learn", map[string]any{"insight": "Kubernetes probes need a grace period"}, false)
	if hits, _ := s.call("planq_search", map[string]any{"query": "kubernetes", "scope": "agent"}, false); len(hits["hits"].([]any)) != 1 {
		t.Errorf("warm search missed the new learning: %v", hits)
	}

	// Every write is a commit; the worktree stays clean and git agrees.
	wt := filepath.Join(dir, ".planq", "agent")
	log := gitOut(t, wt, "log", "--format=%s")
	for _, want := range []string{`log: implement "Implemented JWT validation"`, "scratch: append", `learn: "Check token expiry`, `decide: "Use RS256"`, "handoff: "} {
		if !strings.Contains(log, want) {
			t.Errorf("state history lacks %q:\n%s", want, log)
		}
	}
	if st := gitOut(t, wt, "status", "--porcelain"); st != "" {
		t.Errorf("worktree not clean:\n%s", st)
	}

	// A malformed entry edited in by hand is reported, with its line, as
	// every read reports it; the rest still searches.
	wl := filepath.Join(wt, "changelog.md")
	data, err := os.ReadFile(wl)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(data), "\n") + 2
	os.WriteFile(wl, append(data, "\n---\nid: pq-12345678\ntimestamp: someday\nagent: main\ntype: implement\n---\n\nbroken JWT note\n"...), 0o644)
	out, text = s.call("planq_search", map[string]any{"query": "JWT"}, false)
	want := fmt.Sprintf("changelog.md:%d:", line)
	if probs, _ := out["problems"].([]any); len(probs) != 1 || !strings.HasPrefix(probs[0].(string), want) || !strings.Contains(text, want) {
		t.Errorf("planq_search does not report the malformed entry at %s: %v\n%s", want, out["problems"], text)
	}
	if len(out["hits"].([]any)) == 0 {
		t.Errorf("planq_search found nothing beside the malformed entry: %s", text)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestStateToolsRefuseBadInput(t *testing.T) {
	dir := stateRepoDir(t)
	s := connect(t, dir)
	huge := strings.Repeat("x", 70<<10)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"planq_log", map[string]any{"message": ""}, "message is empty"},
		{"planq_log", map[string]any{"message": huge}, "too large"},
		{"planq_log", map[string]any{"message": "before\x00after"}, "NUL byte"},
		{"planq_log", map[string]any{"message": "x", "type": "decision"}, ""},
		{"planq_scratch", map[string]any{"content": strings.Repeat("y", 300<<10)}, "too large"},
		{"planq_handoff", map[string]any{"summary": "x", "to": "../evil"}, "agent name"},
		{"planq_checkpoint", map[string]any{"action": "restore"}, "needs a name"},
		{"planq_checkpoint", map[string]any{"action": "create", "name": "../x"}, "checkpoint name"},
		{"planq_search", map[string]any{"query": " "}, "query is empty"},
		{"planq_context", map[string]any{"entries": 5000}, "entries must be"},
	}
	for _, tc := range cases {
		_, text := s.call(tc.tool, tc.args, true)
		if tc.want != "" && !strings.Contains(text, tc.want) {
			t.Errorf("%s(%v) said %q, want it to mention %q", tc.tool, trim(tc.args), text, tc.want)
		}
		if strings.Contains(text, "jj failed") || strings.Contains(text, "panic") {
			t.Errorf("%s: %q", tc.tool, text)
		}
	}
	// Nothing refused was written: the state branch has no entries.
	st, err := staterepo.Open(staterepo.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if es, _, _ := st.LogEntries(context.Background(), 0); len(es) != 0 {
		t.Errorf("refused calls wrote %d entries", len(es))
	}
}

func trim(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if s, ok := v.(string); ok && len(s) > 40 {
			v = s[:40] + "…"
		}
		out[k] = v
	}
	return out
}

func TestCheckpointToolOwnership(t *testing.T) {
	dir := stateRepoDir(t)
	st, err := staterepo.Open(staterepo.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateCheckpoint(context.Background(), "users-safety-net", staterepo.OwnerUser); err != nil {
		t.Fatal(err)
	}
	s := connect(t, dir)
	s.call("planq_log", map[string]any{"message": "risky work"}, false)
	out, _ := s.call("planq_checkpoint", map[string]any{"action": "create", "name": "before-risk"}, false)
	if out["checkpoint"].(map[string]any)["owner"] != "model" {
		t.Errorf("model checkpoint owner = %v", out)
	}
	out, text := s.call("planq_checkpoint", map[string]any{"action": "list"}, false)
	if len(out["checkpoints"].([]any)) != 2 || !strings.Contains(text, "users-safety-net (user") {
		t.Errorf("list = %v / %s", out, text)
	}
	_, text = s.call("planq_checkpoint", map[string]any{"action": "delete", "name": "users-safety-net"}, true)
	if !strings.Contains(text, "made by the user") {
		t.Errorf("deleting the user's checkpoint said %q", text)
	}
	out, text = s.call("planq_checkpoint", map[string]any{"action": "restore", "name": "users-safety-net"}, false)
	if !strings.Contains(text, "Restored users-safety-net") || out["restore"] == nil {
		t.Errorf("restore = %v / %s", out, text)
	}
	s.call("planq_checkpoint", map[string]any{"action": "delete", "name": "before-risk"}, false)
	list, _ := st.Checkpoints(context.Background())
	names := []string{}
	for _, cp := range list {
		names = append(names, cp.Name)
	}
	if len(list) != 2 || list[0].Name != "users-safety-net" || !strings.HasPrefix(list[1].Name, "auto-before-users-safety-net") {
		t.Errorf("checkpoints after the model's calls: %v", names)
	}
}

func TestStateToolSchemasOfferTheirValues(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, t.TempDir())
	list, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name != "planq_log" {
			continue
		}
		var wire struct {
			InputSchema struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
				Required []string `json:"required"`
			} `json:"inputSchema"`
		}
		raw, _ := json.Marshal(tool)
		if err := json.Unmarshal(raw, &wire); err != nil {
			t.Fatal(err)
		}
		schema := wire.InputSchema
		if strings.Join(schema.Properties["type"].Enum, ",") != "start,plan,implement,handoff,end" || len(schema.Properties["status"].Enum) != 4 {
			t.Errorf("planq_log enums: %+v", schema.Properties)
		}
		if strings.Join(schema.Required, ",") != "message" {
			t.Errorf("planq_log required = %v", schema.Required)
		}
		return
	}
	t.Error("planq_log is not registered")
}

func TestStateToolsListBudget(t *testing.T) {
	testenv.Isolate(t)
	s := connect(t, t.TempDir())
	list, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var state []mcp.Tool
	for _, tool := range list.Tools {
		if strings.HasPrefix(tool.Name, "planq_") {
			state = append(state, tool)
		}
	}
	if len(state) != 8 {
		t.Errorf("%d planq_* tools, want 8", len(state))
	}
	b, _ := json.Marshal(map[string]any{"tools": state})
	t.Logf("tools/list for the state tools: %d bytes", len(b))
	if len(b) >= 10*1024 {
		t.Errorf("tools/list for the state tools is %d bytes of JSON; keep it under 10 KB", len(b))
	}
}

func TestScratchOutputSaysWhatHappened(t *testing.T) {
	t.Parallel()
	for mode, want := range map[string]string{
		"replace": "scratch.md replaced for agent main; it is now 5 bytes.",
		"append":  "scratch.md appended to for agent main; it is now 5 bytes.",
	} {
		if got := (planqmcp.ScratchOutput{Mode: mode, Bytes: 5, Agent: "main"}).Text(); got != want {
			t.Errorf("mode %s: %q, want %q", mode, got, want)
		}
	}
}
