package claudehook

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/planq-dev/planq/gate"
)

// PreToolUse is Claude Code's PreToolUse hook: it holds back a call that
// modifies files while the gate is locked, and a git history rewrite in a jj
// repo. It returns nil to allow the call silently, a denial with the reason
// for the model, or (gate.mode: warn) an allowance with a warning.
//
// projectDir (CLAUDE_PROJECT_DIR) is used when the input has no cwd, and for
// the configuration outside a jj repo. Built-in read-only tools are allowed
// without reading anything; other read-only calls read only the
// configuration; jj and the gate's cache are consulted only for calls that
// modify.
func PreToolUse(ctx context.Context, in Input, projectDir string) (*Response, error) {
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
	ev := gate.Evaluate(ctx, gate.ToolCall{Name: in.ToolName, Input: in.ToolInput}, dir, gate.EvalOptions{ProjectDir: projectDir})
	switch d := ev.Decision; {
	case d.Warn:
		return WarnToolUse(d.Message), nil
	case !d.Allow:
		return DenyToolUse(d.Message), nil
	}
	return nil, nil
}
