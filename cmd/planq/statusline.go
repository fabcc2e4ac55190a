package main

import (
	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/statusline"
)

// statuslineOptions are `planq statusline`'s options: none yet, kept so the
// command has the same shape as the others.
type statuslineOptions struct{}

func newStatuslineCmd(a *app) *cobra.Command {
	opts := &statuslineOptions{}
	return &cobra.Command{
		Use:   "statusline",
		Short: "Print one status line for Claude Code: the change, the gate, the summary, what is left",
		Long: `Print one line for Claude Code's statusLine setting: the working-copy change's
short id, the gate's state, the first line of its living summary, and how many
"Left to do" items remain, in that order of importance, fitted to $COLUMNS
(Claude Code sets it) less the 4 columns of Claude Code's padding; 80 columns
without $COLUMNS.

It reads Claude Code's status JSON on stdin (the session's directory is
workspace.current_dir); with no input it looks at the current directory. It
reads the gate's cache and starts no jj process while jj's operations are
unchanged, so running it every few seconds is cheap. It always exits 0 with one
line: bad input or an error is said in the line.

'planq mcp install --statusline' wires it (to the faster planq-hook statusline
when planq-hook is installed beside planq). A status line of your own is kept:
have your command run this one with the same input and join the two lines.`,
		Example: `  planq statusline < status.json
  echo '{"workspace":{"current_dir":"'"$PWD"'"}}' | planq statusline`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			runStatusline(cmd, a, opts)
			return nil
		},
	}
}

// runStatusline prints the status line; it cannot fail (statusline.Serve).
func runStatusline(cmd *cobra.Command, a *app, _ *statuslineOptions) {
	statusline.Serve(cmd.Context(), claude.DecodeStatusLine, a.Stdin, a.Stdout, statusline.Env{Getenv: a.Getenv, Getwd: a.Getwd})
}
