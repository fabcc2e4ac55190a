package mcp

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

// NewInput is jj_new's input.
type NewInput struct {
	Description string `json:"description" jsonschema:"What the next step will do"`
}

// NewOutput is jj_new's result.
type NewOutput struct {
	ChangeID    string `json:"change_id"`
	CommitID    string `json:"commit_id"`
	Description string `json:"description"`
	Parent      string `json:"parent"`
	SessionRoot string `json:"session_root"`
}

// Text renders the result for the model.
func (o NewOutput) Text() string {
	return fmt.Sprintf("Checkpoint: %s is done; new change %s: %s (session root %s)", jj.ShortID(o.Parent), jj.ShortID(o.ChangeID), text.FirstLine(o.Description), jj.ShortID(o.SessionRoot))
}

func jjNewTool(d *deps) server.ServerTool {
	tool := newTool[NewInput, NewOutput]("jj_new",
		"Checkpoint: start a new change on top of @ in the same session.",
		writes)
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, in NewInput) (NewOutput, error) {
		desc, err := d.describeHere(in.Description)
		if err != nil {
			return NewOutput{}, err
		}
		ch, root, err := jj.Checkpoint(ctx, d.jj, desc)
		if err != nil {
			return NewOutput{}, err
		}
		parent := ""
		if len(ch.Parents) > 0 {
			parent = ch.Parents[0]
		}
		return NewOutput{ChangeID: ch.ChangeID, CommitID: ch.CommitID, Description: ch.Description, Parent: parent, SessionRoot: root}, nil
	})}
}
