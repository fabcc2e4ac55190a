package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
)

// StatusInput is jj_status's input: none.
type StatusInput struct{}

// StatusOutput is jj_status's result.
type StatusOutput struct {
	IsRepo            bool            `json:"is_repo"`
	ChangeID          string          `json:"change_id,omitempty"`
	CommitID          string          `json:"commit_id,omitempty"`
	Description       string          `json:"description"`
	ParentChangeID    string          `json:"parent_change_id,omitempty"`
	ParentDescription string          `json:"parent_description,omitempty"`
	Files             []jj.FileChange `json:"files"`
	Conflict          bool            `json:"conflict"`
	GateLocked        bool            `json:"gate_locked"`
	SessionRoot       string          `json:"session_root,omitempty"`
}

// Text renders the result for the model.
func (o StatusOutput) Text() string {
	if !o.IsRepo {
		return "Not a jj repo; the gate is locked. Call jj_git_init, then jj_init."
	}
	var b strings.Builder
	desc := text.FirstLine(o.Description)
	if desc == "" {
		desc = "(no description)"
	}
	fmt.Fprintf(&b, "@ %s: %s\n", jj.ShortID(o.ChangeID), desc)
	if o.ParentChangeID != "" {
		fmt.Fprintf(&b, "parent %s: %s\n", jj.ShortID(o.ParentChangeID), text.FirstLine(o.ParentDescription))
	}
	if o.SessionRoot != "" {
		fmt.Fprintf(&b, "session root %s\n", jj.ShortID(o.SessionRoot))
	}
	fmt.Fprintf(&b, "%d files changed", len(o.Files))
	for i, f := range o.Files {
		if i == 20 {
			fmt.Fprintf(&b, "\n  … %d more", len(o.Files)-20)
			break
		}
		fmt.Fprintf(&b, "\n  %s %s", f.Status, f.Path)
	}
	if o.Conflict {
		b.WriteString("\nThe change has conflicts.")
	}
	if o.GateLocked {
		b.WriteString("\nGate: locked. Call jj_init with what you will do before editing.")
	} else {
		b.WriteString("\nGate: unlocked.")
	}
	return b.String()
}

func jjStatusTool(d *deps) server.ServerTool {
	tool := newTool[StatusInput, StatusOutput]("jj_status",
		"Current and parent change, changed files, gate state.",
		readOnly)
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, _ StatusInput) (StatusOutput, error) {
		if _, ok := jj.FindRoot(d.dir); !ok {
			return StatusOutput{Files: []jj.FileChange{}, GateLocked: true}, nil
		}
		cur, err := d.jj.Current(ctx)
		if err != nil {
			return StatusOutput{}, err
		}
		files, err := d.jj.DiffSummary(ctx, "@")
		if err != nil {
			return StatusOutput{}, err
		}
		out := StatusOutput{
			IsRepo: true, ChangeID: cur.ChangeID, CommitID: cur.CommitID, Description: cur.Description,
			Files: nonNil(files), Conflict: cur.Conflict, GateLocked: isLocked(cur),
		}
		if len(cur.Parents) > 0 {
			parent, err := d.jj.Show(ctx, "@-")
			if err == nil {
				out.ParentChangeID, out.ParentDescription = parent.ChangeID, parent.Description
			}
		}
		out.SessionRoot = d.sessionRoot(cur)
		return out, nil
	})}
}

// isLocked reports whether the gate is locked with ch as @.
func isLocked(ch jj.Change) bool { return !ch.Declared() }

// sessionRoot returns the session root of ch's lineage when one is recorded.
func (d *deps) sessionRoot(ch jj.Change) string {
	if root, ok := jj.SessionRoot(ch.Description); ok {
		return root
	}
	if ch.Declared() {
		return ch.ChangeID
	}
	return ""
}
