package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks/claudehook"
)

// preToolUseTimeout bounds the PreToolUse hook; planq mcp install gives it 10
// seconds in Claude Code, so planq always answers first.
const preToolUseTimeout = 8 * time.Second

// newHookCmd returns `planq hook`, the parent of the commands Claude Code
// runs as hooks. Add a hook with one line here: a hookCmd for a
// claudehook.Handler, or a command of its own.
func newHookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Claude Code hook handlers (wired by 'planq mcp install')",
		Long: `Claude Code runs these with the hook's JSON on stdin. 'planq mcp install'
wires them into Claude Code's settings; you do not run them by hand.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(
		hookCmd(a, "pre-tool-use", claudehook.EventPreToolUse, preToolUseTimeout,
			"PreToolUse hook: deny file-modifying calls until the change is declared", claudehook.PreToolUse),
	)
	cmd.AddCommand(newSessionHookCmds(a)...)
	return cmd
}

// hookCmd builds a `planq hook` subcommand that reads the hook input from
// stdin, runs h within timeout and prints its response. Bad input or a
// failure is one line on stderr and exit status 1, which Claude Code treats
// as a non-blocking error.
func hookCmd(a *app, use, event string, timeout time.Duration, short string, h claudehook.Handler) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

Claude Code runs this for the ` + event + ` event with the hook's JSON on stdin.
It prints nothing when it has nothing to say; on bad input it prints one line
on stderr and exits 1.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			if err := claudehook.Serve(ctx, a.Stdin, a.Stdout, a.Getenv("CLAUDE_PROJECT_DIR"), h); err != nil {
				return fmt.Errorf("hook %s: %w", use, err)
			}
			return nil
		},
	}
}
