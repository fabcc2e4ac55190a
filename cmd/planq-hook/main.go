// Command planq-hook serves Claude Code's tool hooks, PreToolUse (the gate)
// and PostToolUse, exactly as `planq hook pre-tool-use` and `planq hook
// post-tool-use` do — the same code — in a binary that links only the gate,
// the hook protocol and the session core, so that starting it costs a
// fraction of starting planq. `planq mcp install` wires the tool hooks to it
// when it is installed beside planq.
//
//	planq-hook pre-tool-use    < hook input
//	planq-hook post-tool-use   < hook input
//	planq-hook version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/planq-dev/planq/hooks/claudehook"
	"github.com/planq-dev/planq/hooks/tooluse"
)

// version is set at build time with -ldflags "-X main.version=…", as
// planq's is; planq doctor checks that the two match.
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) != 1 {
		return usage(stderr)
	}
	switch args[0] {
	case "pre-tool-use":
		return claudehook.RunPreToolUse(ctx, stdin, stdout, stderr, getenv)
	case "post-tool-use":
		return tooluse.RunPostToolUse(ctx, stdin, stdout, stderr, tooluse.Env{Getenv: getenv})
	case "version", "--version":
		v := version
		if v == "" {
			v = "dev"
		}
		fmt.Fprintf(stdout, "planq-hook %s\n", v)
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(stdout, helpText)
		return 0
	}
	return usage(stderr)
}

const helpText = `planq-hook serves Claude Code's PreToolUse and PostToolUse hooks for planq.

Usage:
  planq-hook pre-tool-use    the gate: read the hook input on stdin, deny file-modifying calls until the change is declared
  planq-hook post-tool-use   record the files a call modified and the session's changes
  planq-hook version         print the version (it must match planq's)

'planq mcp install' wires it; you do not run it by hand.
`

// usage answers a call planq-hook does not understand: exit status 2, which
// Claude Code takes as blocking the tool call (fail closed when miswired).
func usage(stderr io.Writer) int {
	fmt.Fprint(stderr, "planq-hook: want one argument: pre-tool-use, post-tool-use or version (see planq-hook --help)\n")
	return 2
}
