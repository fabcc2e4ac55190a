package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// buildPlanq builds the planq binary, and planq-hook and planq-sandbox
// beside it, once per test binary run (testenv.BuildPlanqWithHook).
func buildPlanq(t *testing.T) string {
	t.Helper()
	return testenv.BuildPlanqWithHook(t, "../..")
}

// rpcClient speaks newline-delimited JSON-RPC to a planq mcp serve process.
type rpcClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
	nextID int
}

func startServer(t *testing.T, dir string, args ...string) *rpcClient {
	t.Helper()
	return startServerEnv(t, dir, nil, args...)
}

// startServerEnv is startServer with the environment env (nil: the
// test's).
func startServerEnv(t *testing.T, dir string, env []string, args ...string) *rpcClient {
	t.Helper()
	cmd := exec.Command(buildPlanq(t), append([]string{"mcp", "serve"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rpcClient{t: t, cmd: cmd, in: in, out: bufio.NewReader(out), stderr: stderr}
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("planq mcp serve did not exit when stdin closed")
		}
	})
	return c
}

// request sends a JSON-RPC request and returns its result; every line the
// server writes to stdout must be JSON-RPC.
func (c *rpcClient) request(method string, params any) json.RawMessage {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(msg, '\n')); err != nil {
		c.t.Fatalf("write %s: %v (stderr: %s)", method, err, c.stderr)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("read %s: %v (stderr: %s)", method, err, c.stderr)
		}
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      *int            `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil || resp.JSONRPC != "2.0" {
			c.t.Fatalf("stdout carried a non-JSON-RPC line: %q", line)
		}
		if resp.ID == nil { // a notification
			continue
		}
		if *resp.ID != id {
			c.t.Fatalf("response id %d, want %d", *resp.ID, id)
		}
		if resp.Error != nil {
			c.t.Fatalf("%s: JSON-RPC error %s", method, resp.Error.Message)
		}
		return resp.Result
	}
}

func (c *rpcClient) notify(method string) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	c.in.Write(append(msg, '\n'))
}

// callTool calls a tool and returns its structured content, failing when the
// result is an error.
func (c *rpcClient) callTool(name string, args map[string]any) map[string]any {
	c.t.Helper()
	raw := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	var res struct {
		IsError           bool             `json:"isError"`
		Content           []map[string]any `json:"content"`
		StructuredContent map[string]any   `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		c.t.Fatal(err)
	}
	if res.IsError {
		c.t.Fatalf("%s: tool error: %v", name, res.Content)
	}
	return res.StructuredContent
}

// toolError calls a tool that must fail and returns what it said.
func (c *rpcClient) toolError(name string, args map[string]any) string {
	c.t.Helper()
	raw := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		c.t.Fatal(err)
	}
	if !res.IsError {
		c.t.Fatalf("%s did not fail: %s", name, raw)
	}
	var b strings.Builder
	for _, p := range res.Content {
		b.WriteString(p.Text)
	}
	return b.String()
}

func TestMCPServeOverStdio(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	bare := testenv.BareRemote(t, dir, "origin")
	c := startServer(t, dir)

	var init struct {
		ServerInfo   struct{ Name string } `json:"serverInfo"`
		Instructions string                `json:"instructions"`
	}
	json.Unmarshal(c.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "stdio-test", "version": "1"},
	}), &init)
	if init.ServerInfo.Name != "planq" || !strings.Contains(init.Instructions, "jj_init") {
		t.Fatalf("initialize = %+v", init)
	}
	c.notify("notifications/initialized")

	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	json.Unmarshal(c.request("tools/list", map[string]any{}), &list)
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"jj_init", "jj_describe", "jj_new", "jj_push", "query_ancestor", "jj_status", "jj_abandon", "jj_squash", "jj_git_init"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s", want)
		}
	}

	first := c.callTool("jj_init", map[string]any{"description": "Add greeting"})
	testenv.WriteFile(t, dir, "greet/hello.go", "package greet\n\nconst Hello = \"hi\"\n")
	c.callTool("jj_describe", map[string]any{"description": "Add greeting in greet/hello.go\n\nDone:\n- Hello constant"})
	second := c.callTool("jj_new", map[string]any{"description": "Add farewell"})
	if second["session_root"] != first["change_id"] {
		t.Errorf("jj_new session_root = %v, want %v", second["session_root"], first["change_id"])
	}
	testenv.WriteFile(t, dir, "greet/bye.go", "package greet\n\nconst Bye = \"bye\"\n")

	push := c.callTool("jj_push", map[string]any{})
	if push["pushed"] != true || len(push["stack"].([]any)) != 2 {
		t.Fatalf("jj_push = %v", push)
	}

	// Pushing made the stack immutable, so jj moved @ to a fresh empty change:
	// @- is now the last pushed change, and its parent the first.
	st := c.callTool("jj_status", map[string]any{})
	if st["gate_locked"] != true || st["parent_change_id"] != second["change_id"] {
		t.Errorf("after push, jj_status = %v; want a fresh locked @ on %v", st, second["change_id"])
	}
	q := c.callTool("query_ancestor", map[string]any{"change_id": "@-", "include": []string{"description", "diff"}})
	if !strings.HasPrefix(q["description"].(string), "Add farewell") || !strings.Contains(q["diff"].(string), "+const Bye") {
		t.Errorf("query_ancestor(@-) = %v", q)
	}
	q2 := c.callTool("query_ancestor", map[string]any{"change_id": first["change_id"], "include": []string{"description", "diff"}})
	if !strings.HasPrefix(q2["description"].(string), "Add greeting in greet/hello.go") || !strings.Contains(q2["diff"].(string), "+const Hello") {
		t.Errorf("query_ancestor(first) = %v", q2)
	}

	// The remote has main at the pushed change, with both commits.
	remoteHead := strings.TrimSpace(testenv.Run(t, "", "git", "--git-dir", bare, "rev-parse", "refs/heads/main"))
	log := testenv.Run(t, "", "git", "--git-dir", bare, "log", "--format=%s", "main")
	if !strings.Contains(log, "Add farewell") || !strings.Contains(log, "Add greeting in greet/hello.go") {
		t.Errorf("remote log = %q", log)
	}
	// jj agrees: main and main@origin point at the pushed commit.
	local := testenv.Run(t, dir, "jj", "log", "--no-graph", "-r", "main@origin", "-T", "commit_id")
	if strings.TrimSpace(local) != remoteHead {
		t.Errorf("main@origin = %q, remote main = %q", local, remoteHead)
	}
	if files := testenv.Run(t, "", "git", "--git-dir", bare, "ls-tree", "-r", "--name-only", "main"); !strings.Contains(files, "greet/bye.go") {
		t.Errorf("remote tree lacks greet/bye.go: %q", files)
	}
	if strings.Contains(c.stderr.String(), "panic") {
		t.Errorf("server stderr: %s", c.stderr)
	}
}

func TestMCPServeRepoFlagAndErrors(t *testing.T) {
	testenv.Isolate(t)
	dir := testenv.JJRepo(t)
	// --repo wins over the working directory.
	c := startServer(t, t.TempDir(), "--repo", dir)
	c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
	st := c.callTool("jj_status", map[string]any{})
	if st["is_repo"] != true {
		t.Errorf("with --repo, jj_status = %v", st)
	}

	out, err := exec.Command(buildPlanq(t), "mcp", "serve", "--repo", filepath.Join(dir, "missing")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "missing") || strings.Count(strings.TrimSpace(string(out)), "\n") > 0 {
		t.Errorf("serve with a missing --repo: err %v, output %q; want one line naming it", err, out)
	}
}
