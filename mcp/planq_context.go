package mcp

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/staterepo"
)

// ContextInput is planq_context's input.
type ContextInput struct {
	Entries int `json:"entries,omitempty" jsonschema:"Newest log entries to include; default 10"`
	Budget  int `json:"budget,omitempty" jsonschema:"Size limit in bytes; default 12288"`
}

// ContextOutput is planq_context's result: the summary, rendered as
// Markdown for the text content.
type ContextOutput struct {
	staterepo.Summary
}

// Text renders the result for the model.
func (o ContextOutput) Text() string { return o.Summary.Markdown() }

func planqContextTool(d *stateDeps) server.ServerTool {
	tool := newTool[ContextInput, ContextOutput]("planq_context",
		"Your memory: pending handoff, scratch, branch context, recent log, decisions, learnings. Newest first, size-bounded.",
		readOnly)
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in ContextInput) (ContextOutput, error) {
		if in.Entries < 0 || in.Entries > 200 {
			return ContextOutput{}, userErrorf("entries must be 1 to 200 (got %d)", in.Entries)
		}
		if in.Budget < 0 || in.Budget > 256<<10 {
			return ContextOutput{}, userErrorf("budget must be 1024 to 262144 bytes (got %d)", in.Budget)
		}
		s, err := d.store()
		if err != nil {
			return ContextOutput{}, err
		}
		sum, err := s.Context(ctx, staterepo.ContextOptions{LogEntries: in.Entries, Budget: in.Budget, CodeBranch: d.codeBranch(ctx, s)})
		return ContextOutput{sum}, err
	})}
}
