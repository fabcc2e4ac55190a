package claudehook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/planq-dev/planq/gate"
)

// PreToolUseDeadline bounds the PreToolUse hook: planq mcp install gives it
// 10 seconds in Claude Code, and a hook that has not answered by then lets
// the call through, so planq answers — denying — well before.
const PreToolUseDeadline = 7 * time.Second

// PreToolUse is Claude Code's PreToolUse hook: it holds back a call that
// modifies files while the gate is locked, and a git history rewrite in a jj
// repo. It returns nil to allow the call silently, a denial with the reason
// for the model, or (gate.mode: warn) an allowance with a warning.
//
// The gate state and the configuration are the session's project's
// (projectDir, CLAUDE_PROJECT_DIR; the input's cwd when it is unset), never
// those of the repository the tool happens to run in. Built-in read-only
// tools are allowed without reading anything; other read-only calls read
// only the configuration; jj and the gate's cache are consulted only for
// calls that modify.
func PreToolUse(ctx context.Context, in Input, projectDir string) (*Response, error) {
	return preToolUse(ctx, in, projectDir, os.Getenv)
}

func preToolUse(ctx context.Context, in Input, projectDir string, getenv func(string) string) (*Response, error) {
	if err := in.Expect(EventPreToolUse); err != nil {
		return nil, err
	}
	if in.ToolName == "" {
		return nil, errors.New("hook input has no tool_name")
	}
	if gate.ReadOnlyTool(in.ToolName) {
		return nil, nil
	}
	dir := in.Cwd
	if dir == "" {
		dir = projectDir
	}
	if dir == "" {
		return nil, errors.New("hook input has no cwd and CLAUDE_PROJECT_DIR is not set")
	}
	if !filepath.IsAbs(dir) {
		return nil, errors.New("hook input's cwd is not an absolute path: " + dir)
	}
	if projectDir != "" && !filepath.IsAbs(projectDir) {
		return nil, errors.New("CLAUDE_PROJECT_DIR is not an absolute path: " + projectDir)
	}
	ev := gate.Evaluate(ctx, gate.ToolCall{Name: in.ToolName, Input: in.ToolInput}, dir, gate.EvalOptions{ProjectDir: projectDir, Getenv: getenv})
	switch d := ev.Decision; {
	case d.Warn:
		return WarnToolUse(d.Message), nil
	case !d.Allow:
		return DenyToolUse(d.Message), nil
	}
	return nil, nil
}

// RunPreToolUse is the whole PreToolUse hook process, shared by `planq hook
// pre-tool-use` and the planq-hook binary: it reads the input from stdin,
// judges the call and prints the answer. It fails closed: bad input, an
// internal error, a panic or the deadline deny the call with the error as
// the reason (gate.on_error: allow lets it through with a warning instead),
// and when even that answer cannot be printed it exits 2, which Claude Code
// also takes as a denial. It returns the exit status.
func RunPreToolUse(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, cancel := context.WithTimeout(ctx, PreToolUseDeadline)
	defer cancel()
	projectDir := getenv("CLAUDE_PROJECT_DIR")
	type result struct {
		resp *Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: fmt.Errorf("internal error: %v (%s)", r, firstFrame(debug.Stack()))}
			}
		}()
		in, err := ReadInput(stdin)
		if err != nil {
			done <- result{err: err}
			return
		}
		resp, err := preToolUse(ctx, in, projectDir, getenv)
		done <- result{resp, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		res.err = fmt.Errorf("the gate did not answer within %s", PreToolUseDeadline)
	}
	if res.err != nil {
		res.resp = failedResponse(projectDir, res.err)
		fmt.Fprintf(stderr, "planq hook pre-tool-use: %s\n", oneLine(res.err.Error()))
	}
	if err := WriteResponse(stdout, res.resp); err != nil {
		fmt.Fprintf(stderr, "planq hook pre-tool-use: blocked: cannot answer Claude Code (%s)\n", oneLine(err.Error()))
		return 2
	}
	return 0
}

// failedResponse is the answer when the hook could not judge a call: a
// denial naming the error, or with gate.on_error: allow a warning.
func failedResponse(projectDir string, err error) *Response {
	msg := oneLine(err.Error())
	if projectDir != "" && filepath.IsAbs(projectDir) {
		if p := gate.LoadProject(projectDir); p.Err == nil && p.Policy.OnErrorAllow {
			return WarnToolUse("planq gate (gate.on_error: allow, let through): the gate could not judge this call: " + msg)
		}
	}
	return DenyToolUse("planq gate: blocked this call because the gate could not judge it: " + msg +
		". Retry it; if it keeps failing, ask the user to run `planq doctor` (a user can set gate.on_error: allow in .planq/config.yaml to let calls through when the gate fails).")
}

// firstFrame returns the function that panicked, from a stack trace.
func firstFrame(stack []byte) string {
	lines := splitLines(string(stack))
	for i, l := range lines {
		if len(l) > 6 && l[:6] == "panic(" && i+2 < len(lines) {
			return lines[i+2]
		}
	}
	return "no stack"
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
