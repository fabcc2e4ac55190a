package mcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

// AbandonInput is jj_abandon's input: none.
type AbandonInput struct{}

// AbandonOutput is jj_abandon's result.
type AbandonOutput struct {
	Abandoned   string   `json:"abandoned"`
	Description string   `json:"description"`
	Files       []string `json:"files"`
	NewChangeID string   `json:"new_change_id"`
	GateLocked  bool     `json:"gate_locked"`
}

// Text renders the result for the model.
func (o AbandonOutput) Text() string {
	return fmt.Sprintf("Abandoned %s (%q, %d files discarded). The gate is locked again: call jj_init before editing.", jj.ShortID(o.Abandoned), text.FirstLine(o.Description), len(o.Files))
}

func jjAbandonTool(d *deps) server.ServerTool {
	tool := newTool[AbandonInput, AbandonOutput]("jj_abandon",
		"Abandon the current change and its edits; locks the gate.",
		hints{destructive: true})
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, _ AbandonInput) (AbandonOutput, error) {
		if err := d.requireRepo(); err != nil {
			return AbandonOutput{}, err
		}
		cur, err := d.jj.Current(ctx)
		if err != nil {
			return AbandonOutput{}, err
		}
		files, err := d.jj.DiffSummary(ctx, "@")
		if err != nil {
			return AbandonOutput{}, err
		}
		if err := d.jj.Abandon(ctx, cur.CommitID); err != nil {
			return AbandonOutput{}, err
		}
		now, err := d.jj.Current(ctx)
		if err != nil {
			return AbandonOutput{}, err
		}
		return AbandonOutput{Abandoned: cur.ChangeID, Description: cur.Description, Files: paths(files), NewChangeID: now.ChangeID, GateLocked: isLocked(now)}, nil
	})}
}

// nonNil returns s, or an empty slice for nil so JSON shows [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
