package fakemodel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// EnsureClaude returns the path of a working Claude Code CLI, installing it
// with scripts/install-claude.sh when missing. When npm cannot reach its
// registry the test is skipped with a loud message; any other failure fails it.
func EnsureClaude(tb testing.TB) string {
	tb.Helper()
	return ensureCLI(tb, "Claude Code", "install-claude.sh")
}

// ensureCLI runs one of the project's install scripts and returns the path it
// prints; label names the CLI in messages.
func ensureCLI(tb testing.TB, label, script string, args ...string) string {
	tb.Helper()
	testenv.SkipShort(tb, "the end-to-end test runs the real "+strings.TrimSuffix(label, " CLI")+" CLI")
	root, err := testenv.ModuleRoot()
	if err != nil {
		tb.Fatalf("find repo root: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{filepath.Join(root, "scripts", script)}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		msg := "!!! SKIPPED: npm cannot reach its registry, so " + label + " cannot be installed and the " +
			"end-to-end test did NOT run: " + strings.TrimSpace(stderr.String())
		fmt.Fprintln(os.Stderr, msg)
		tb.Skip(msg)
	}
	if err != nil {
		tb.Fatalf("scripts/%s: %v\n%s", script, err, stderr.String())
	}
	path := strings.TrimSpace(stdout.String())
	if path == "" {
		tb.Fatalf("scripts/%s printed no path\n%s", script, stderr.String())
	}
	return path
}

// Run describes one headless Claude Code run against a fake model.
type Run struct {
	Claude string   // path of the claude binary
	Dir    string   // working directory (the project)
	Home   string   // HOME for the run (a temp dir: Claude Code writes its state there)
	Model  *Server  // the fake model
	Args   []string // arguments after the fixed ones, e.g. "-p", "do it"
	Env    []string // extra environment, KEY=VALUE
}

// Result is what a headless run printed.
type Result struct {
	Stdout, Stderr string
	// JSON is the parsed --output-format json result, when stdout held one.
	JSON map[string]any
	// SessionID is the session id from the JSON result.
	SessionID string
}

// Exec runs claude headless with the fake model and returns its output. Runs
// are as root in a sandbox, so permissions are skipped (IS_SANDBOX=1).
func (r Run) Exec(ctx context.Context) (Result, error) {
	cmd := exec.CommandContext(ctx, r.Claude, append(HeadlessArgs(), r.Args...)...)
	cmd.Dir = r.Dir
	cmd.Env = r.Environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if i := strings.LastIndex(res.Stdout, "\n{"); i >= 0 || strings.HasPrefix(res.Stdout, "{") {
		js := res.Stdout[i+1:]
		if json.Unmarshal([]byte(js), &res.JSON) == nil {
			res.SessionID, _ = res.JSON["session_id"].(string)
		}
	}
	if err != nil {
		return res, fmt.Errorf("claude %s: %w\nstdout: %s\nstderr: %s", strings.Join(r.Args, " "), err, res.Stdout, res.Stderr)
	}
	return res, nil
}

// HeadlessArgs are the arguments every headless run starts with: JSON
// output, and permissions skipped (the runs are sandboxed, IS_SANDBOX=1).
func HeadlessArgs() []string {
	return []string{"--output-format", "json", "--dangerously-skip-permissions"}
}

// Environ is the environment Exec gives claude: the process environment
// without anything pointing at a real account, HOME, the fake model's URL,
// and r.Env. A test that starts claude through another program (planq start)
// gives it this environment.
func (r Run) Environ() []string {
	env := append(baseEnv(),
		"HOME="+r.Home,
		"ANTHROPIC_BASE_URL="+r.Model.URL,
		"ANTHROPIC_API_KEY=x",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"IS_SANDBOX=1",
		"CI=true",
	)
	return append(env, r.Env...)
}

// baseEnv is the process environment without anything that would point
// Claude Code at a real account or model.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE") || k == "HOME" ||
			strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "GOOGLE_") || k == "MCP_TIMEOUT" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
