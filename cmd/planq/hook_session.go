package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/hooks/tooluse"
)

// hookTimeout bounds one session hook call; Claude Code's own timeout for
// planq's hooks (see hooks.Hooks) is longer, so planq always answers first.
const hookTimeout = 20 * time.Second

// newSessionHookCmds returns the session hook subcommands of `planq hook`:
// post-tool-use (shared with planq-hook), session-start, pre-compact, stop
// and session-end.
func newSessionHookCmds(a *app) []*cobra.Command {
	type hookFn func(*hooks.Runner, context.Context, hooks.Input) (*hooks.Response, error)
	defs := []struct {
		use, event, short string
		fn                hookFn
	}{
		{"session-start", hooks.EventSessionStart, "SessionStart hook: give the model the change, its summary, the gate and the agent state", (*hooks.Runner).SessionStart},
		{"pre-compact", hooks.EventPreCompact, "PreCompact hook: store the transcript so far and log the compaction", (*hooks.Runner).PreCompact},
		{"stop", hooks.EventStop, "Stop hook: ask once for a living summary when the diff moved and the description lacks one", (*hooks.Runner).Stop},
		{"session-end", hooks.EventSessionEnd, "SessionEnd hook: store the transcript and log the end of the session", (*hooks.Runner).SessionEnd},
	}
	cmds := []*cobra.Command{{
		Use:   "post-tool-use",
		Short: "PostToolUse hook: record modified files and the session's changes",
		Long: `PostToolUse hook: record modified files and the session's changes.

Claude Code runs this with the hook's JSON on stdin ('planq mcp install' wires
it, to the planq-hook binary beside planq when there is one, which does the
same). It never blocks the user on an internal error: it prints one line on
stderr and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tooluse.RunPostToolUse(cmd.Context(), a.Stdin, a.Stdout, a.Stderr, tooluse.Env{Getenv: a.Getenv})
			return nil
		},
	}}
	for _, d := range defs {
		cmds = append(cmds, &cobra.Command{
			Use:   d.use,
			Short: d.short,
			Long: d.short + `.

Claude Code runs this with the hook's JSON on stdin ('planq mcp install' wires
it). It never blocks the user on an internal error: it prints one line on
stderr and exits 0.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				runSessionHook(cmd.Context(), a, d.use, d.event, d.fn)
				return nil
			},
		})
	}
	return cmds
}

// runSessionHook reads the event, runs fn and prints its output as JSON.
// Errors go to stderr as one line; the exit code stays 0.
func runSessionHook(ctx context.Context, a *app, name, event string, fn func(*hooks.Runner, context.Context, hooks.Input) (*hooks.Response, error)) {
	ctx, cancel := context.WithTimeout(ctx, hookTimeout)
	defer cancel()
	ev, err := hooks.ReadInput(a.Stdin)
	if err == nil {
		err = ev.Expect(event)
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "planq hook %s: %s\n", name, oneLineMsg(err))
		return
	}
	r := &hooks.Runner{Getenv: a.Getenv}
	out, err := fn(r, ctx, ev)
	if werr := hooks.WriteResponse(a.Stdout, out); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "planq hook %s: %s\n", name, oneLineMsg(err))
	}
}

func oneLineMsg(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
