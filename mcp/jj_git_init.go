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
	Next        string `json:"next"`
}

// Text renders the result for the model.
func (o GitInitOutput) Text() string {
	if !o.Initialized {
		return fmt.Sprintf("%s is already a jj repo. %s", o.Root, o.Next)
	}
	return fmt.Sprintf("jj initialized in %s (colocated with git). %s", o.Root, o.Next)
}

const nextInit = "Now call jj_init with one line saying what you will do."

func jjGitInitTool(d *deps) server.ServerTool {
	tool := newTool[GitInitInput, GitInitOutput]("jj_git_init",
		"Make this directory a jj repo, colocated with git (history kept). Then call jj_init.",
		hints{idempotent: true})
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, _ GitInitInput) (GitInitOutput, error) {
		if root, ok := jj.FindRoot(d.dir); ok {
			return GitInitOutput{Root: root, Next: nextInit}, nil
		}
		if err := d.jj.GitInit(ctx); err != nil {
			return GitInitOutput{}, err
		}
		return GitInitOutput{Root: d.dir, Initialized: true, Next: nextInit}, nil
	})}
}
