// Command planq makes the jj change graph the record of an AI coding agent's
// work and keeps the agent's memory in a git repo outside the code repo
// (package staterepo). Each file holds a command or a family of them;
// root.go holds the app and the root command.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, newApp(), os.Args[1:])
	stop()
	os.Exit(code)
}
