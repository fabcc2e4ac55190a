package mcp

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/staterepo"
)

// LearnInput is planq_learn's input.
type LearnInput struct {
	Insight string `json:"insight" jsonschema:"The lesson, worth knowing next session"`
	Context string `json:"context,omitempty" jsonschema:"What prompted it"`
}

func planqLearnTool(d *stateDeps) server.ServerTool {
	tool := newTool[LearnInput, EntryOutput]("planq_learn",
		"Record a learning (not a log of work) in learnings.md.",
		writes)
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in LearnInput) (EntryOutput, error) {
		s, err := d.store()
		if err != nil {
			return EntryOutput{}, err
		}
		e, err := s.Learn(ctx, in.Insight, in.Context)
		return entryOutput(e, staterepo.LearningsFile), err
	})}
}
