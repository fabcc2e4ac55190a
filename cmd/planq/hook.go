package main

import (
	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks/claudehook"
)

// newHookCmd returns `planq hook`, the parent of the commands Claude Code
// runs as hooks.
func newHookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Claude Code hook handlers (wired by 'planq mcp install')",
		Long: `Claude Code runs these with the hook's JSON on stdin. 'planq mcp install'
wires them into Claude Code's settings; you do not run them by hand.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "pre-tool-use",
		Short: "PreToolUse hook: deny file-modifying calls until the change is declared",
		Long: `PreToolUse hook: deny file-modifying calls until the change is declared.

Claude Code runs this for the PreToolUse event with the hook's JSON on stdin
(the planq-hook binary beside planq does the same, faster). It prints nothing
to allow a call, and a JSON denial to block one. It fails closed: bad input,
an internal error or a timeout deny the call with the error as the reason
(gate.on_error: allow in .planq/config.yaml lets it through instead).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if code := claudehook.RunPreToolUse(cmd.Context(), a.Stdin, a.Stdout, a.Stderr, a.Getenv); code != 0 {
				return exitError{code: code}
			}
			return nil
		},
	})
	cmd.AddCommand(newSessionHookCmds(a)...)
	return cmd
}
