package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/jj"

	"github.com/planq-dev/planq/staterepo"
)

// CheckpointInput is planq_checkpoint's input.
type CheckpointInput struct {
	Action string `json:"action"`
	Name   string `json:"name,omitempty" jsonschema:"Required except for list; create defaults to a timestamp"`
}

// CheckpointOutput is planq_checkpoint's result.
type CheckpointOutput struct {
	Action      string                   `json:"action"`
	Checkpoint  *staterepo.Checkpoint    `json:"checkpoint,omitempty"`
	Checkpoints []staterepo.Checkpoint   `json:"checkpoints,omitempty"`
	Restore     *staterepo.RestoreResult `json:"restore,omitempty"`
}

// Text renders the result for the model.
func (o CheckpointOutput) Text() string {
	switch o.Action {
	case "create":
		return fmt.Sprintf("Checkpoint %s saved (state %s, jj op %s). planq_checkpoint restore brings back notes and code.", o.Checkpoint.Name, jj.ShortID(o.Checkpoint.StateCommit), orNone(jj.ShortID(o.Checkpoint.JJOp)))
	case "restore":
		r := o.Restore
		msg := fmt.Sprintf("Restored %s: %d state files changed; code %s. The previous state is checkpoint %s.", r.Restored.Name, len(r.Changed), r.JJ, r.Auto.Name)
		n := 0
		for _, ids := range r.Dropped {
			n += len(ids)
		}
		if n > 0 {
			msg += fmt.Sprintf(" %d entries logged after %s left the current logs; checkpoint %s keeps them.", n, r.Restored.Name, r.Auto.Name)
		}
		return msg
	case "delete":
		return fmt.Sprintf("Checkpoint %s deleted.", o.Checkpoint.Name)
	}
	if len(o.Checkpoints) == 0 {
		return "No checkpoints."
	}
	var b strings.Builder
	for _, cp := range o.Checkpoints {
		fmt.Fprintf(&b, "- %s (%s, %s)\n", cp.Name, cp.Owner, cp.Created.Format("2006-01-02 15:04"))
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func planqCheckpointTool(d *stateDeps) server.ServerTool {
	tool := newTool[CheckpointInput, CheckpointOutput]("planq_checkpoint",
		"Save or restore your notes and the code (jj op) together. You may delete only checkpoints you made.",
		hints{destructive: true})
	tool = withEnums(tool, map[string][]string{"action": {"create", "list", "restore", "delete"}})
	return server.ServerTool{Tool: tool, Handler: stateHandler(func(ctx context.Context, in CheckpointInput) (CheckpointOutput, error) {
		out := CheckpointOutput{Action: in.Action}
		s, err := d.store()
		if err != nil {
			return out, err
		}
		if in.Action != "list" && in.Action != "create" && in.Name == "" {
			return out, userErrorf("%s needs a name; list the checkpoints with action=list", in.Action)
		}
		switch in.Action {
		case "create":
			name := in.Name
			if name == "" {
				name = "model-" + time.Now().UTC().Format("20060102-150405")
			}
			cp, err := s.CreateCheckpoint(ctx, name, staterepo.OwnerModel)
			out.Checkpoint = &cp
			return out, err
		case "list":
			out.Checkpoints, err = s.Checkpoints(ctx)
			if out.Checkpoints == nil {
				out.Checkpoints = []staterepo.Checkpoint{}
			}
			return out, err
		case "restore":
			res, err := s.RestoreCheckpoint(ctx, in.Name, staterepo.OwnerModel)
			out.Restore = &res
			return out, err
		case "delete":
			out.Checkpoint = &staterepo.Checkpoint{Name: in.Name}
			return out, s.DeleteCheckpoint(ctx, in.Name, staterepo.OwnerModel)
		}
		return out, userErrorf("action %q: use create, list, restore or delete", in.Action)
	})}
}
