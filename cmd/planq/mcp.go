package main

import (
	"github.com/spf13/cobra"

	"github.com/planq-dev/planq/internal/version"
	"github.com/planq-dev/planq/mcp"
)

func newMCPCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Run or install planq's MCP server",
	}
	cmd.AddCommand(newMCPServeCmd(a), newMCPInstallCmd(a), newMCPUninstallCmd(a))
	return cmd
}

type mcpServeOptions struct {
	Repo  string
	JJBin string
}

func newMCPServeCmd(a *app) *cobra.Command {
	opts := &mcpServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve planq's tools over MCP on stdin/stdout",
		Long: `Serve planq's jj and state tools over the Model Context Protocol on stdio.

Claude Code starts this command itself once 'planq mcp install' has wired it in.
The server works in --repo, else $CLAUDE_PROJECT_DIR, else the current directory.
Only JSON-RPC is written to stdout; logs go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCPServe(cmd, a, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "code repository to work in")
	cmd.Flags().StringVar(&opts.JJBin, "jj", "", "jj executable (default: jj on PATH)")
	return cmd
}

func runMCPServe(cmd *cobra.Command, a *app, opts *mcpServeOptions) error {
	dir, err := a.repoDir(opts.Repo)
	if err != nil {
		return err
	}
	return mcp.Serve(cmd.Context(), mcp.Options{
		Dir:        dir,
		Version:    version.String(),
		JJBin:      opts.JJBin,
		Getenv:     a.Getenv,
		Maintainer: a.Maintainer,
	}, a.Stdin, a.Stdout, a.Stderr)
}
