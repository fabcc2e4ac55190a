package staterepo

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// mcpServer is a `planq mcp serve` process spoken to over stdio, as an
// agent host speaks to it.
type mcpServer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

// startMCP starts `bin mcp serve` for s's code repo and initialises it.
func startMCP(tb testing.TB, bin string, s *Store) *mcpServer {
	tb.Helper()
	cmd := exec.Command(bin, "mcp", "serve", "--repo", s.Root)
	cmd.Env = append(os.Environ(), "HOME="+s.getenv("HOME"), "PLANQ_HOME="+s.Home, "PLANQ_AGENT=", "CLAUDE_PROJECT_DIR=")
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	m := &mcpServer{cmd: cmd, in: in, out: bufio.NewReader(out)}
	tb.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	m.call(tb, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}})
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if _, err := in.Write(append(msg, '\n')); err != nil {
		tb.Fatal(err)
	}
	return m
}

// call sends one request and returns its result, failing on an error.
func (m *mcpServer) call(tb testing.TB, method string, params any) json.RawMessage {
	tb.Helper()
	m.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.id, "method": method, "params": params})
	if _, err := m.in.Write(append(msg, '\n')); err != nil {
		tb.Fatal(err)
	}
	for {
		line, err := m.out.ReadBytes('\n')
		if err != nil {
			tb.Fatalf("%s: %v", method, err)
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			tb.Fatalf("%s: %v: %q", method, err, line)
		}
		if resp.ID == nil || *resp.ID != m.id {
			continue
		}
		if resp.Error != nil {
			tb.Fatalf("%s: %s", method, resp.Error.Message)
		}
		return resp.Result
	}
}

// tool calls a tool and returns how long the call took; the tool must not
// report an error.
func (m *mcpServer) tool(tb testing.TB, name string, args map[string]any) time.Duration {
	tb.Helper()
	start := time.Now()
	res := m.call(tb, "tools/call", map[string]any{"name": name, "arguments": args})
	took := time.Since(start)
	var r struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError {
		tb.Fatalf("%s: %s", name, res)
	}
	return took
}

// serverTimes measures, on a fresh `planq mcp serve` for s's repo, the
// first planq_search (what a new session's first search costs: goal ≤ 300
// ms at 100,000 entries) and then planq_context's p50 over 30 calls
// (goal ≤ 10 ms), and reports them with prefix.
func serverTimes(b *testing.B, bin string, s *Store, prefix string) {
	m := startMCP(b, bin, s)
	first := m.tool(b, "planq_search", map[string]any{"query": "session token timeout"})
	var ctxTimes []time.Duration
	for range 30 {
		ctxTimes = append(ctxTimes, m.tool(b, "planq_context", map[string]any{}))
	}
	slices.Sort(ctxTimes)
	b.ReportMetric(ms(first), prefix+"first-search-ms")
	b.ReportMetric(ms(ctxTimes[len(ctxTimes)/2]), prefix+"context-p50-ms")
	b.Logf("%sfirst planq_search %.1f ms, planq_context p50 %.1f ms (min %.1f, max %.1f)", prefix, ms(first),
		ms(ctxTimes[len(ctxTimes)/2]), ms(ctxTimes[0]), ms(ctxTimes[len(ctxTimes)-1]))
}
