// The runtime rereads the cgroup's CPU limit every second, on a goroutine
// it starts with the program, which wakes a second thread at start.
// The sandbox's entry point lives as long as the
// command it runs, which its GOMAXPROCS does not touch.
//go:debug updatemaxprocs=0

// Command planq-sandbox runs a locked shell command in the OS sandbox, the
// project read-only: the entry point the gate rewrites a locked shell call
// into (package gate/sandbox).
//
//	planq-sandbox --root DIR [--tool NAME]... [--shell SHELL] -- COMMAND
//
// It is the same entry point as `planq-hook sandbox` and `planq hook
// sandbox`, in a binary that links nothing else, because it starts for
// every shell command an agent runs while the gate is locked: it starts
// about 0.9 ms sooner than planq-hook and 10 ms sooner than planq (make
// bench, BenchmarkSandbox). The rewrite uses it when it is installed beside
// planq-hook or planq.
package main

import (
	"os"

	"github.com/planq-dev/planq/gate/sandbox"
	_ "github.com/planq-dev/planq/internal/stackstart" // one stack growth, before the plan's path walks
	"github.com/planq-dev/planq/internal/version"
)

func main() {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "-h", "--help":
			os.Stdout.WriteString(help)
			return
		case "version", "--version":
			// planq's and planq-hook's rule: planq doctor checks that the three match.
			os.Stdout.WriteString(sandbox.LeanBinary + " " + version.String() + "\n")
			return
		}
	}
	os.Exit(sandbox.Main(os.Args[1:]))
}

const help = `planq-sandbox runs a locked shell command in the OS sandbox, the project read-only.

Usage:
  planq-sandbox --root DIR [--tool NAME]... [--shell SHELL] -- COMMAND
  planq-sandbox --version

COMMAND (one argument) runs with SHELL (the host's shell, as the host names
it), else the shell that started planq-sandbox, in the same working directory
and environment (TMPDIR set to a private directory when the one it names holds
the project or the home directory). DIR, the project, is read-only, as are the places programs load code from;
temporary directories and build caches stay writable. When COMMAND fails on a
refused write, one line on stderr names the project as read-only and the --tool
to call. Exit status: COMMAND's (128+N for signal N), or 126 when it could not
run. The gate's pre-tool-use hook rewrites locked shell calls into this; you do
not run it by hand.
`
