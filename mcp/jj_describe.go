package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/server"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

// DescribeInput is jj_describe's input.
type DescribeInput struct {
	Description string `json:"description" jsonschema:"Task line, then Done:, Key decisions:, Left to do:, Open questions: lists"`
}

// DescribeOutput is jj_describe's result.
type DescribeOutput struct {
	ChangeID    string `json:"change_id"`
	Description string `json:"description"`
}

// Text renders the result for the model, naming the summary sections the
// description still lacks (the stop hook asks for them).
func (o DescribeOutput) Text() string {
	text := fmt.Sprintf("Description of %s updated: %s", jj.ShortID(o.ChangeID), text.FirstLine(o.Description))
	if missing := jj.MissingSections(o.Description); len(missing) > 0 {
		text += fmt.Sprintf("\nA living summary also has %s lists (task line first); this one lacks them.", strings.Join(missing, ", "))
	}
	return text
}

func jjDescribeTool(d *deps) server.ServerTool {
	tool := newTool[DescribeInput, DescribeOutput]("jj_describe",
		"Replace the current change's description (the living summary).",
		hints{idempotent: true})
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, in DescribeInput) (DescribeOutput, error) {
		desc, err := d.describeHere(in.Description)
		if err != nil {
			return DescribeOutput{}, err
		}
		cur, err := jj.Redescribe(ctx, d.jj, desc)
		if err != nil {
			return DescribeOutput{}, err
		}
		return DescribeOutput{ChangeID: cur.ChangeID, Description: cur.Description}, nil
	})}
}
