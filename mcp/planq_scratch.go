package mcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/staterepo"
)

// ScratchInput is planq_scratch's input.
type ScratchInput struct {
	Content string `json:"content" jsonschema:"Working notes (Markdown)"`
	Mode    string `json:"mode,omitempty" jsonschema:"replace (default) or append"`
}

// ScratchOutput is planq_scratch's result.
type ScratchOutput struct {
	Mode  string `json:"mode"`
	Bytes int    `json:"bytes"`
	Agent string `json:"agent"`
}

// Text renders the result for the model.
func (o ScratchOutput) Text() string {
	done := "replaced"
	if o.Mode == string(staterepo.ScratchAppend) {
		done = "appended to"
	}
	return fmt.Sprintf("scratch.md %s for agent %s; it is now %d bytes.", done, o.Agent, o.Bytes)
}

func planqScratchTool(d *stateDeps) server.ServerTool {
	tool := newTool[ScratchInput, ScratchOutput]("planq_scratch",
		"Replace or append to your working notes (scratch.md). One commit in the state repo.",
		writes)
	tool = withEnums(tool, map[string][]string{"mode": {string(staterepo.ScratchReplace), string(staterepo.ScratchAppend)}})
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in ScratchInput) (ScratchOutput, error) {
		s, err := d.store()
		if err != nil {
			return ScratchOutput{}, err
		}
		mode := staterepo.ScratchMode(in.Mode)
		if mode == "" {
			mode = staterepo.ScratchReplace
		}
		n, err := s.Scratch(ctx, in.Content, mode)
		return ScratchOutput{Mode: string(mode), Bytes: n, Agent: s.Agent}, err
	})}
}
