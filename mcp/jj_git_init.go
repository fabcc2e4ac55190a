package mcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/jj"
)

// GitInitInput is jj_git_init's input: none.
type GitInitInput struct{}

// GitInitOutput is jj_git_init's result.
type GitInitOutput struct {
	Root        string `json:"root"`
	Initialized bool   `json:"initialized"` // false when it already was a jj repo
}

// Text renders the result for the model.
func (o GitInitOutput) Text() string {
	if !o.Initialized {
		return fmt.Sprintf("%s is already a jj repo. %s", o.Root, nextInit)
	}
	return fmt.Sprintf("jj initialized in %s (colocated with git). %s", o.Root, nextInit)
}

const nextInit = "Now call jj_init with one line saying what you will do."

func jjGitInitTool(d *deps) server.ServerTool {
	tool := newTool[GitInitInput, GitInitOutput]("jj_git_init",
		"Make this directory a jj repo colocated with git (history kept); then call jj_init.",
		hints{idempotent: true})
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, _ GitInitInput) (GitInitOutput, error) {
		if root, ok := jj.FindRoot(d.dir); ok {
			return GitInitOutput{Root: root}, nil
		}
		if err := d.jj.GitInit(ctx); err != nil {
			return GitInitOutput{}, err
		}
		return GitInitOutput{Root: d.dir, Initialized: true}, nil
	})}
}
