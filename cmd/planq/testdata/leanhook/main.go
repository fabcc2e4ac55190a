// Command leanhook is `planq hook pre-tool-use` linked with nothing but the
// gate and the hook protocol. BenchmarkPreToolUseHook builds it to measure
// what the hook process costs without the package initialisation of the rest
// of planq (MCP, state repo, transcripts), which every planq process pays.
// It lives in testdata so that it is not part of the build.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/planq-dev/planq/hooks/claudehook"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	err := claudehook.Serve(ctx, os.Stdin, os.Stdout, os.Getenv("CLAUDE_PROJECT_DIR"), claudehook.PreToolUse)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "leanhook: %s\n", err)
		os.Exit(1)
	}
}
