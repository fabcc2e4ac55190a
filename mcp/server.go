// Package mcp serves planq's tools over the Model Context Protocol.
//
// The layer is thin: each tool validates its input and calls the jj, gate,
// staterepo and changelog packages, which know nothing of MCP. One
// middleware records every call in the local metrics (metrics.go).
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/jj"
)

// ServerName is the name the server reports and Claude Code prefixes tools with
// (mcp__planq__<tool>).
const ServerName = "planq"

// Instructions tell the model how to work with planq, in a few lines.
const Instructions = `planq records your work in the jj change graph.
1. Before editing anything, declare the change: jj_init("one line: what you are about to do"). Edits are blocked until you do; reading never is. Not a jj repo? Call jj_git_init first.
2. Keep the description current with jj_describe: task line, then Done:, Key decisions:, Left to do:, Open questions: lists.
3. Checkpoint with jj_new when a step is complete; query_ancestor reads an earlier change's description, diff or transcript.
4. When the work is ready, jj_push validates descriptions and pushes.`

// Options configure a server.
type Options struct {
	Dir     string // the code repo (or directory) the server works in
	Version string // planq's version
	JJBin   string // jj executable; default "jj"
	// Getenv reads the environment (PLANQ_HOME, PLANQ_AGENT, …) where the
	// server finds the project's state and transcripts; default os.Getenv.
	Getenv func(string) string
	// Maintainer is the planq binary state writes start for background
	// maintenance (staterepo.Options.Maintainer); "" maintains in-process.
	Maintainer string
}

// deps is what the jj tools share.
type deps struct {
	dir    string
	jj     *jj.Client
	getenv func(string) string
}

// New builds the MCP server with every planq tool registered.
func New(opts Options) *server.MCPServer {
	s, _ := newServer(opts)
	return s
}

func newServer(opts Options) (*server.MCPServer, *stateDeps) {
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	d := &deps{dir: opts.Dir, jj: &jj.Client{Dir: opts.Dir, Bin: opts.JJBin}, getenv: opts.Getenv}
	state := newStateDeps(opts.Dir, opts.Maintainer)
	tools := slices.Concat(jjTools(d), stateTools(state))
	s := server.NewMCPServer(ServerName, version,
		server.WithToolCapabilities(false),
		server.WithInstructions(Instructions),
		server.WithInputSchemaValidation(),
		// Outermost, so a call that panicked is recorded as failed.
		server.WithToolHandlerMiddleware(newCallRecorder(opts.Dir, opts.Getenv, tools).middleware),
		server.WithRecovery(),
	)
	s.AddTools(tools...)
	return s, state
}

// jjTools returns the jj tools, one per function, in a stable order.
func jjTools(d *deps) []server.ServerTool {
	return []server.ServerTool{
		jjGitInitTool(d),
		jjInitTool(d),
		jjStatusTool(d),
		jjDescribeTool(d),
		jjNewTool(d),
		jjPushTool(d),
		jjAbandonTool(d),
		jjSquashTool(d),
		queryAncestorTool(d),
	}
}

// Serve runs the server over stdio until in is closed or ctx is done. Only
// JSON-RPC goes to out; logs go to errOut.
func Serve(ctx context.Context, opts Options, in io.Reader, out, errOut io.Writer) error {
	s, state := newServer(opts)
	state.warm()
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(errOut, "planq mcp: ", 0))
	err := stdio.Listen(ctx, in, out)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// rendered is a tool result with a short text rendering for the model.
type rendered interface{ Text() string }

// toolHandler adapts a typed handler to mcp-go: structured content plus its
// text rendering, or an error result written for the model.
// What jj did on its own during the call (a stale working copy brought up
// to date) is said before the result.
func toolHandler[In any, Out rendered](d *deps, h func(ctx context.Context, in In) (Out, error)) server.ToolHandlerFunc {
	typed := typedHandler(d.explain, h)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, notes := jj.WithNotes(ctx)
		res, err := typed(ctx, req)
		if said := notes.List(); len(said) > 0 && res != nil && len(res.Content) > 0 {
			if tc, ok := res.Content[0].(mcp.TextContent); ok {
				tc.Text = strings.Join(said, "\n") + "\n" + tc.Text
				res.Content[0] = tc
			}
		}
		return res, err
	}
}

// typedHandler binds a call's arguments to In, runs h, and returns Out as
// structured content with its text, or explain's wording of the error.
func typedHandler[In any, Out rendered](explain func(error) string, h func(ctx context.Context, in In) (Out, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		if err := req.BindArguments(&in); err != nil {
			return mcp.NewToolResultError("invalid arguments: " + err.Error()), nil
		}
		out, err := h(ctx, in)
		if err != nil {
			return mcp.NewToolResultError(explain(err)), nil
		}
		return mcp.NewToolResultStructured(out, out.Text()), nil
	}
}

// userError is an error whose message is already written for the model.
type userError struct{ msg string }

func (e userError) Error() string { return e.msg }

func userErrorf(format string, args ...any) error { return userError{fmt.Sprintf(format, args...)} }

// explain turns an error into a message for the model: what went wrong and
// what to do next, with jj's own words rather than a Go error chain.
func (d *deps) explain(err error) string {
	var ue userError
	switch {
	case errors.As(err, &ue):
		return ue.msg
	case errors.Is(err, jj.ErrNoJJ):
		return "jj is not installed on this machine. Install jj >= 0.30 (planq's scripts/install-jj.sh, `cargo install --locked jj-cli`, or `brew install jj`), then retry."
	case errors.Is(err, jj.ErrNotRepo):
		return notRepoMessage(d.dir)
	case errors.Is(err, jj.ErrImmutable):
		return "jj refused: " + jjMessage(err) + "\nThat change is immutable (already pushed or on trunk). Start a new change with jj_init or jj_new instead."
	case errors.Is(err, context.DeadlineExceeded):
		return "jj took too long and was stopped: " + jjMessage(err)
	}
	return "jj failed: " + jjMessage(err)
}

func notRepoMessage(dir string) string {
	return fmt.Sprintf("%s is not a jj repository. Call jj_git_init to make it one (colocated with git; existing git history is kept), then jj_init with one line saying what you will do.", dir)
}

// jjMessage returns jj's own message for a jj error, else the error text.
func jjMessage(err error) string {
	var je *jj.Error
	if errors.As(err, &je) {
		return je.Error()
	}
	return err.Error()
}

// requireRepo fails with the not-a-repo message unless the directory is in a
// jj repo.
func (d *deps) requireRepo() error {
	if _, ok := jj.FindRoot(d.dir); !ok {
		return userError{notRepoMessage(d.dir)}
	}
	return nil
}

// oneLine returns s with runs of whitespace folded, for compact text output.
