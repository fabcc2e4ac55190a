package mcp

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo"
)

// LogInput is planq_log's input.
type LogInput struct {
	Message string `json:"message" jsonschema:"What happened; Markdown, first line is the title"`
	Type    string `json:"type,omitempty" jsonschema:"Default implement"`
	Status  string `json:"status,omitempty"`
}

func planqLogTool(d *stateDeps) server.ServerTool {
	tool := newTool[LogInput, EntryOutput]("planq_log",
		"Append an entry to your changelog (one commit in the state repo).",
		writes)
	tool = withEnums(tool, map[string][]string{"type": logTypes, "status": statuses})
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in LogInput) (EntryOutput, error) {
		s, err := d.store()
		if err != nil {
			return EntryOutput{}, err
		}
		e, err := s.Log(ctx, in.Message, changelog.Type(in.Type), changelog.Status(in.Status))
		return entryOutput(e, staterepo.ChangelogFile), err
	})}
}
