package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks"
)

// preToolUseTimeout bounds the PreToolUse hook; planq mcp install gives it 10
// seconds in Claude Code, so planq always answers first.
const preToolUseTimeout = 8 * time.Second

// newHookCmd returns `planq hook`, the parent of the commands Claude Code
// runs as hooks. Add a hook with one line here: a hookCmd for a handler that
// takes hooks.Input, or a command of its own.
func newHookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Claude Code hook handlers (wired by 'planq mcp install')",
		Long: `Claude Code runs these with the hook's JSON on stdin. 'planq mcp install'
wires them into Claude Code's settings; you do not run them by hand.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(
		hookCmd(a, "pre-tool-use", hooks.EventPreToolUse, preToolUseTimeout,
			"PreToolUse hook: deny file-modifying calls until the change is declared", hooks.PreToolUse),
	)
	return cmd
}

// hookHandler handles one hook event: nil allows silently.
type hookHandler func(ctx context.Context, in hooks.Input, projectDir string) (*hooks.Response, error)

// hookCmd builds a `planq hook` subcommand that reads hooks.Input from
// stdin, runs fn within timeout and prints its response. Bad input or a
// failure is one line on stderr and exit status 1, which Claude Code treats
// as a non-blocking error.
func hookCmd(a *app, use, event string, timeout time.Duration, short string, fn hookHandler) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

Claude Code runs this for the ` + event + ` event with the hook's JSON on stdin.
It prints nothing when it has nothing to say; on bad input it prints one line
on stderr and exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := hooks.ReadInput(a.Stdin)
			if err != nil {
				return fmt.Errorf("hook %s: %w", use, err)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			resp, err := fn(ctx, in, a.Getenv("CLAUDE_PROJECT_DIR"))
			if err != nil {
				return fmt.Errorf("hook %s: %w", use, err)
			}
			return hooks.WriteResponse(a.Stdout, resp)
		},
	}
}
