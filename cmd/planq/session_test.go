package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

// runIn runs the CLI in-process in dir with the process environment.
func runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runHookIn(t, dir, "", args...)
}

// runHookIn is runIn with stdin.
func runHookIn(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: os.Getenv, Getwd: func() (string, error) { return dir, nil },
		Executable: os.Executable,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code = run(ctx, a, args)
	return out.String(), errb.String(), code
}

func TestStartLaunchesTheAgentInTheDeclaredChange(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	// The agent: a script that reports its arguments and the working copy.
	agent := filepath.Join(t.TempDir(), "agent")
	os.WriteFile(agent, []byte("#!/bin/sh\necho \"agent args: $*\"\njj log -r @ --no-graph -T 'description' --no-pager --color never\nexit 3\n"), 0o755)

	out, errs, code := runIn(t, repo, "start", "Add a greeting file", "--agent-cmd", agent+" --model opus")
	if code != 3 {
		t.Fatalf("exit %d, want the agent's 3\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "agent args: --model opus Add a greeting file") || !strings.Contains(out, "Add a greeting file") {
		t.Fatalf("agent output:\n%s", out)
	}
	if !strings.Contains(errs, "Started change") {
		t.Fatalf("stderr: %s", errs)
	}
	// planq is not wired here: start says the gate will not run, and the fix.
	if !strings.Contains(errs, "MCP server is not registered") || !strings.Contains(errs, "fix: planq mcp install") {
		t.Errorf("start in an unwired repo does not warn:\n%s", errs)
	}
	cur, err := jj.New(repo).Current(context.Background())
	if err != nil || strings.TrimSpace(cur.Description) != "Add a greeting file" {
		t.Fatalf("@ = %+v, %v", cur, err)
	}

	// No agent to launch: print what to run.
	out, _, code = runIn(t, repo, "continue", "--agent-cmd", "no-such-agent-xyz")
	if code != 0 || !strings.Contains(out, "no-such-agent-xyz is not installed") || !strings.Contains(out, "Continue the task: Add a greeting file") {
		t.Fatalf("continue without the agent: exit %d\n%s", code, out)
	}
	out, _, code = runIn(t, repo, "start", "Second task", "--agent-cmd", "none")
	if code != 0 || !strings.Contains(out, "claude 'Second task'") {
		t.Fatalf("--agent-cmd none: exit %d\n%s", code, out)
	}
	// Errors are one line.
	_, errs, code = runIn(t, repo, "resume", "@")
	if code != 1 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "no agent session was recorded") {
		t.Fatalf("resume without a session: exit %d, stderr %q", code, errs)
	}
}

func TestSessionHookCommandsNeverBlockOnErrors(t *testing.T) {
	testenv.Isolate(t)
	for _, sub := range []string{"session-start", "post-tool-use", "pre-compact", "stop", "session-end"} {
		var out, errb bytes.Buffer
		a := &app{Stdin: strings.NewReader("not json"), Stdout: &out, Stderr: &errb, Getenv: os.Getenv,
			Getwd: os.Getwd, Executable: os.Executable}
		code := run(context.Background(), a, []string{"hook", sub})
		if code != 0 || out.Len() != 0 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.HasPrefix(errb.String(), "planq hook "+sub+": ") {
			t.Errorf("%s on bad input: exit %d, stdout %q, stderr %q; want exit 0, one stderr line", sub, code, out.String(), errb.String())
		}
	}
}

// TestInstallThenStartKeepsTheWiring walks the README's quick start in a
// clone of a remote with main: planq mcp install, then planq start. The
// wiring is still there for the agent, and nothing left the disk unsaid.
func TestInstallThenStartKeepsTheWiring(t *testing.T) {
	testenv.Isolate(t)
	t.Setenv("PATH", "/usr/local/bin:/usr/bin:/bin") // no claude: install edits the files itself
	bare := testenv.RemoteWithMain(t)

	t.Run("default (local) scope", func(t *testing.T) {
		repo := testenv.Clone(t, bare)
		out, errs, code := runIn(t, repo, "mcp", "install")
		if code != 0 || !strings.Contains(out, "jj and git ignore the local wiring") {
			t.Fatalf("mcp install: exit %d\n%s%s", code, out, errs)
		}
		if _, errs, code = runIn(t, repo, "start", "Add a greeting file", "--agent-cmd", "none"); code != 0 || strings.Contains(errs, "warning") {
			t.Fatalf("start: exit %d\n%s", code, errs)
		}
		if out, _, code := runIn(t, repo, "doctor"); code != 0 {
			t.Errorf("doctor after start: exit %d\n%s", code, out)
		}
		if d := testenv.Run(t, repo, "jj", "--no-pager", "diff", "--summary"); d != "" {
			t.Errorf("the declared change holds planq's wiring:\n%s", d)
		}
	})

	t.Run("project scope", func(t *testing.T) {
		repo := testenv.Clone(t, bare)
		out, errs, code := runIn(t, repo, "mcp", "install", "--scope", "project")
		if code != 0 || !strings.Contains(out, "jj commit -m") {
			t.Fatalf("mcp install --scope project: exit %d\n%s%s", code, out, errs)
		}
		_, errs, code = runIn(t, repo, "start", "Add a greeting file", "--agent-cmd", "none")
		if code != 0 || !strings.Contains(errs, "planq: note: The working copy held undescribed work (.claude/settings.json, .mcp.json)") {
			t.Fatalf("start: exit %d; stderr does not say the wiring was carried:\n%s", code, errs)
		}
		if out, _, code := runIn(t, repo, "doctor"); code != 0 {
			t.Errorf("doctor after start: exit %d\n%s", code, out)
		}
	})
}
