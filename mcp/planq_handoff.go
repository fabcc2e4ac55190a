package mcp

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/staterepo"
)

// HandoffInput is planq_handoff's input.
type HandoffInput struct {
	Summary   string   `json:"summary" jsonschema:"Where things stand"`
	NextSteps []string `json:"next_steps,omitempty"`
	To        string   `json:"to,omitempty" jsonschema:"Agent to continue; default: whoever continues you"`
}

func planqHandoffTool(d *stateDeps) server.ServerTool {
	tool := newTool[HandoffInput, EntryOutput]("planq_handoff",
		"Leave a handoff for the next session or another agent; shown in their planq_context until they log work.",
		writes)
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in HandoffInput) (EntryOutput, error) {
		s, err := d.store()
		if err != nil {
			return EntryOutput{}, err
		}
		e, err := s.Handoff(ctx, in.Summary, in.NextSteps, in.To)
		return entryOutput(e, staterepo.ChangelogFile), err
	})}
}
