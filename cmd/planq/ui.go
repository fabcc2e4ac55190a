package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"runtime"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/ui"
)

// uiOptions are `planq ui`'s flags and what it depends on.
type uiOptions struct {
	Repo string
	Port int
	Open bool

	Dir    func(flag string) (string, error) // the code repo the flag names
	Getenv func(string) string
	Out    io.Writer
	// Opener opens url in the user's browser (default: the platform's opener).
	Opener func(url string) error
	// Ready, when set, is told the URL once the server listens (tests).
	Ready func(url string)
}

func newUICmd(a *app) *cobra.Command {
	o := &uiOptions{Dir: a.repoDir, Getenv: a.Getenv, Out: a.Stdout, Opener: openBrowser}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve a local web page of the project: agents, changes, transcripts, state, metrics",
		Long: `Serve a read-only web page of this project on 127.0.0.1 and print its address:

  Overview    every agent's workspace: its change, gate state, what is left
              to do and the open questions of its living summary, its
              conflicted files, last activity; the state repo's branches and
              how they stand against the remote; the session lineages
  Changes     the change graph (trunk().. and trunk()), paged, each change's
              living summary laid out by section, its diff stat, its session
              lineage and its diff; a lineage's own changes, even those trunk
              has taken in, one link away
  Transcript  a session lineage's stored transcript, paged and searchable,
              tool calls and results folded
  State       scratch, changelog, handoffs, learnings, decisions and
              checkpoints of every agent and of global, with planq's search
  Metrics     the local metrics 'planq stats' shows

The page updates itself while agents work (when jj's operation heads or a
state branch move). It is served on 127.0.0.1 only, on a free port unless
--port says which; the address carries a random token and requests without it,
or naming another host, are refused. Nothing on the page changes anything.
Stop it with Ctrl-C.`,
		Example: `  planq ui
  planq ui --open
  planq ui --port 8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runUI(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", "", "code repository (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	cmd.Flags().IntVar(&o.Port, "port", 0, "port on 127.0.0.1 to serve on (default: a free one)")
	cmd.Flags().BoolVar(&o.Open, "open", false, "open the page in the default browser")
	return cmd
}

func runUI(ctx context.Context, o *uiOptions) error {
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("--port %d: use 1 to 65535, or 0 for a free port", o.Port)
	}
	dir, err := o.Dir(o.Repo)
	if err != nil {
		return err
	}
	s, err := ui.New(ui.Options{Dir: dir, Getenv: o.Getenv})
	if err != nil {
		return err
	}
	ln, err := s.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		return err
	}
	url := s.URL()
	fmt.Fprintf(o.Out, "planq ui for %s: %s\n(read-only, on this machine only; Ctrl-C stops it)\n", s.Root(), url)
	if o.Open {
		if err := o.Opener(url); err != nil {
			fmt.Fprintf(o.Out, "could not open a browser (%v): open the address above yourself\n", err)
		}
	}
	if o.Ready != nil {
		o.Ready(url)
	}
	return s.Serve(ctx, ln)
}

// openBrowser opens url with the platform's opener, without a shell.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
