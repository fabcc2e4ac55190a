package claude

import (
	"context"
	"io"
	"os"

	"github.com/planq-dev/planq/hooks/session"
)

// PreToolUse is Claude Code's PreToolUse hook on a decoded input: the gate's
// verdict (session.PreToolUse) as Claude Code's response. projectDir is
// CLAUDE_PROJECT_DIR (the input's cwd when empty).
func PreToolUse(ctx context.Context, in Input, projectDir string) (*Response, error) {
	if err := in.Expect(EventPreToolUse); err != nil {
		return nil, err
	}
	ev := in.Event(session.EventPreToolUse, projectDir)
	r, err := session.PreToolUse(ctx, ev, os.Getenv)
	if err != nil {
		return nil, err
	}
	if r.Command != "" {
		return RewriteToolUse(ev, r.Command, os.Getenv), nil
	}
	return Respond(session.EventPreToolUse, r), nil
}

// RunPreToolUse is the whole PreToolUse hook process for Claude Code
// (session.RunPreToolUse): it fails closed, and exits 2, which Claude Code
// takes as a denial, when it cannot even answer.
func RunPreToolUse(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return session.RunPreToolUse(ctx, Protocol{}, stdin, stdout, stderr, getenv)
}
