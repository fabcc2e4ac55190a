// The runtime rereads the cgroup's CPU limit every second, on a goroutine
// it starts with the program, which wakes a second thread at start.
// A hook process lives a few milliseconds.
//go:debug updatemaxprocs=0

// Command planq-hook serves agent hosts' tool hooks, pre-tool-use (the
// gate) and post-tool-use, Claude Code's status line, and the OS sandbox a
// locked shell command is rewritten to run in, exactly as `planq hook
// pre-tool-use`, `planq hook post-tool-use`, `planq statusline` and `planq
// hook sandbox` do (the same code), in a binary that links only the gate,
// the host adapters and the light half of the session core, so that
// starting it costs a fraction of starting planq. `planq mcp install` wires them to it when it
// is installed beside planq.
//
//	planq-hook pre-tool-use  [--host HOST]  < hook input
//	planq-hook post-tool-use [--host HOST]  < hook input
//	planq-hook statusline                   < Claude Code's status input
//	planq-hook sandbox --root DIR [--tool NAME]... [--shell SHELL] -- COMMAND
//	planq-hook version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/hosts"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/hooks/statusline"
	_ "github.com/planq-dev/planq/internal/stackstart" // before the packages that need a deep stack
	"github.com/planq-dev/planq/internal/version"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == session.EventPreToolUse {
		os.Exit(run(lean(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// lean is the context of the gate, which starts before every tool call
// an agent makes: it catches no signal. Setting up os/signal starts a
// thread that waits for signals, and that cost the hook 1.2 ms of its 5 ms
// under load (make bench). A signal that kills the gate kills an answer not
// yet given, which the wiring's fail-closed tail (exit 2) and every host
// take as a denial; the gate's own deadline (session.PreToolUseDeadline)
// still holds.
//
// It is also a short life with little memory, as the sandbox's entry
// point's (sandbox.Main): no garbage collection below a memory limit that
// still bounds a call on a huge input. It keeps both processors: the gate
// starts no goroutine (session.RunPreToolUse), and GOMAXPROCS(1), which
// stops the world to drop a processor, cost more than it saved (interleaved
// runs, quiet and with both cores busy: 2.85 vs 2.80 ms quiet, 6.8 vs 6.3
// ms busy).
func lean() context.Context {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(leanMemoryLimit)
	return context.Background()
}

// leanMemoryLimit is the heap above which the gate's process collects
// garbage after all.
const leanMemoryLimit = 256 << 20

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		return usage(stderr)
	}
	switch args[0] {
	case "version", "--version":
		// The same rule as planq's: planq doctor checks that the two match.
		fmt.Fprintf(stdout, "planq-hook %s\n", version.String())
		return 0
	case "-h", "--help", "help":
		fmt.Fprint(stdout, helpText)
		return 0
	case "sandbox":
		return sandbox.Main(args[1:])
	case "statusline":
		if len(args) > 1 {
			return usage(stderr)
		}
		return statusline.Serve(ctx, claude.DecodeStatusLine, stdin, stdout, statusline.Env{Getenv: getenv, Getwd: os.Getwd})
	case session.EventPreToolUse, session.EventPostToolUse:
	default:
		return usage(stderr)
	}
	host, ok := hostFlag(args[1:])
	if !ok {
		return usage(stderr)
	}
	ad, err := hosts.ForHook(host, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "planq-hook: %v\n", err)
		return 2
	}
	if args[0] == session.EventPreToolUse {
		return session.RunPreToolUseProcess(ctx, ad.Protocol(), stdin, stdout, stderr, getenv, os.Exit)
	}
	return session.RunPostToolUse(ctx, ad.Protocol(), stdin, stdout, stderr, session.Env{Getenv: getenv})
}

// hostFlag reads "--host NAME" or "--host=NAME" (the only flag); "" when
// it is not given (hosts.ForHook then picks the host as planq hook does).
func hostFlag(args []string) (string, bool) {
	switch {
	case len(args) == 0:
		return "", true
	case len(args) == 2 && args[0] == "--host":
		return args[1], true
	case len(args) == 1 && strings.HasPrefix(args[0], "--host="):
		return strings.TrimPrefix(args[0], "--host="), true
	}
	return "", false
}

const helpText = `planq-hook serves agent hosts' pre-tool-use and post-tool-use hooks, and Claude Code's status line, for planq.

Usage:
  planq-hook pre-tool-use  [--host HOST]   the gate: read the hook input on stdin, deny file-modifying calls until the change is declared
  planq-hook post-tool-use [--host HOST]   record the files a call modified and the session's changes
  planq-hook statusline                    Claude Code's status line: the change, the gate, the summary, what is left
  planq-hook sandbox --root DIR [--tool NAME]... [--shell SHELL] -- COMMAND
                                           run a locked shell command in the OS sandbox, DIR read-only (the gate's rewrite runs it)
  planq-hook version                       print the version (it must match planq's)

HOST is the agent host whose protocol to speak (default $PLANQ_HOST, else claude).
'planq mcp install' wires it; you do not run it by hand.
`

// usage answers a call planq-hook does not understand: exit status 2, which
// hosts take as blocking the tool call (fail closed when miswired).
func usage(stderr io.Writer) int {
	fmt.Fprint(stderr, "planq-hook: want pre-tool-use or post-tool-use [--host HOST], statusline, sandbox, or version (see planq-hook --help)\n")
	return 2
}
