package opencode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// ocServer is a running `opencode serve` (what the TUI talks to) pointed at
// a fake model, with the plugin installed in its project directory.
type ocServer struct {
	url    string
	dir    string
	ctx    context.Context // the test's wait budget (testenv.Context)
	client *http.Client
	stderr *bytes.Buffer
}

// isolatedEnv is the environment for an OpenCode process: nothing that points
// at a real account or config, state under home, plus extra.
func isolatedEnv(dir, home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENCODE") ||
			strings.HasPrefix(k, "XDG_") || k == "PWD" || k == "HOME" || k == stubEnv {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "PWD="+dir,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
	env = append(env, fakemodel.OpenCodeOffline...)
	return append(env, extra...)
}

// writeUserConfig writes the user config with a provider "fake" that speaks
// Chat Completions to m and offers the given model ids.
func writeUserConfig(t *testing.T, home string, m *fakemodel.Server, models ...string) {
	t.Helper()
	ms := map[string]any{}
	for _, id := range models {
		ms[id] = map[string]any{"tool_call": true}
	}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "options": map[string]any{"baseURL": m.URL + "/v1", "apiKey": "x"}, "models": ms,
		}},
		"model": "fake/" + models[0], "autoupdate": false, "share": "disabled",
	}
	b, _ := json.Marshal(cfg)
	p := filepath.Join(home, ".config", "opencode", "opencode.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var listening = regexp.MustCompile(`https?://127\.0\.0\.1:\d+`)

// startServer runs `opencode serve` in dir until the test ends.
func startServer(t *testing.T, bin, dir, home string, env ...string) *ocServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "--port", "0", "--hostname", "127.0.0.1")
	cmd.Dir = dir
	cmd.Env = isolatedEnv(dir, home, env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// No fixed timeouts: a prompt's request lasts as long as the model turns
	// it starts, which on a busy machine is long.
	s := &ocServer{dir: dir, ctx: testenv.Context(t), client: &http.Client{}, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait() //nolint:errcheck // killed on purpose
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := listening.FindString(sc.Text()); u != "" {
				found <- u
				break
			}
		}
		io.Copy(io.Discard, stdout) //nolint:errcheck
	}()
	select {
	case s.url = <-found:
	case <-s.ctx.Done():
		t.Fatalf("opencode serve printed no URL before the test's time ran out\nstderr: %s", s.stderr)
	}
	return s
}

// do sends one API request and decodes the JSON answer into out (if not nil).
func (s *ocServer) do(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(s.ctx, method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-opencode-directory", s.dir)
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s\n%s", method, path, resp.Status, b)
	}
	if out != nil && len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v\n%s", method, path, err, b)
		}
	}
}

// waitFor polls cond (each poll is a real API read) until it holds or the
// test's time runs out (testenv.Context).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx := testenv.Context(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("gave up waiting for %s: the test's time ran out", what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *ocServer) String() string { return fmt.Sprintf("opencode serve at %s", s.url) }
