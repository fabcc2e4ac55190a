package mcp

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/staterepo"
)

// DecideInput is planq_decide's input.
type DecideInput struct {
	Decision string   `json:"decision" jsonschema:"What was chosen"`
	Over     []string `json:"over,omitempty" jsonschema:"Alternatives considered"`
	Because  string   `json:"because,omitempty" jsonschema:"Rationale"`
}

func planqDecideTool(d *stateDeps) server.ServerTool {
	tool := newTool[DecideInput, EntryOutput]("planq_decide",
		"Record a decision, its alternatives and rationale in decisions.md.",
		writes)
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in DecideInput) (EntryOutput, error) {
		s, err := d.store()
		if err != nil {
			return EntryOutput{}, err
		}
		e, err := s.Decide(ctx, in.Decision, in.Over, in.Because)
		return entryOutput(e, staterepo.DecisionsFile), err
	})}
}
