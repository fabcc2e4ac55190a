package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/metrics"
)

// InitInput is jj_init's input.
type InitInput struct {
	Description string `json:"description" jsonschema:"One line: what you are about to do"`
	Base        string `json:"base,omitempty" jsonschema:"Start revision; default trunk(), else @"`
}

// InitOutput is jj_init's result.
type InitOutput struct {
	ChangeID     string `json:"change_id"`
	CommitID     string `json:"commit_id"`
	Description  string `json:"description"`
	Base         string `json:"base"`
	InPlace      bool   `json:"in_place"`
	GateUnlocked bool   `json:"gate_unlocked"`
	// Notes say what happened to the work that was in the working copy.
	Notes []string `json:"notes,omitempty"`
	// ChangedWhileLocked are the files that changed in the working copy
	// while the gate was locked (gate.CheckDeclared): none should have.
	ChangedWhileLocked []string `json:"changed_while_locked,omitempty"`
	Warning            string   `json:"warning,omitempty"`

	escapes *gate.Escapes // the check, for the metrics; nil when none ran
}

// Text renders the result for the model.
func (o InitOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Change %s created on %s: %s\nThe gate is unlocked: you may edit files now. Keep the description current with jj_describe; checkpoint with jj_new; push with jj_push.", jj.ShortID(o.ChangeID), o.Base, text.FirstLine(o.Description))
	if o.InPlace && len(o.Notes) == 0 {
		b.WriteString("\n(@ was empty and undescribed, so it was described in place.)")
	}
	for _, n := range o.Notes {
		b.WriteString("\n" + n)
	}
	if o.escapes != nil {
		if note := o.escapes.Note(); note != "" {
			b.WriteString("\n" + note)
		}
	}
	if o.Warning != "" {
		b.WriteString("\nWarning: " + o.Warning)
	}
	return b.String()
}

func jjInitTool(d *deps) server.ServerTool {
	tool := newTool[InitInput, InitOutput]("jj_init",
		"Declare the change before editing: fetch, then jj new <base> -m description. Unlocks the gate.",
		hints{openWorld: true})
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, in InitInput) (InitOutput, error) {
		desc, err := d.describeHere(in.Description)
		if err != nil {
			return InitOutput{}, err
		}
		res, err := jj.Declare(ctx, d.jj, desc, strings.TrimSpace(in.Base))
		if err != nil {
			return InitOutput{}, err
		}
		out := InitOutput{
			ChangeID: res.Change.ChangeID, CommitID: res.Change.CommitID,
			Description: res.Change.Description, Base: res.Base, InPlace: res.InPlace,
			GateUnlocked: res.Change.Declared(), Notes: res.Notes(),
		}
		if res.FetchWarn != "" {
			out.Warning = jj.FetchWarning(res.FetchWarn)
		}
		// The declaration recorded the files as they were: check what
		// changed while the gate was locked.
		if root, ok := jj.FindRoot(d.dir); ok {
			esc, err := gate.CheckDeclared(ctx, d.jj, root)
			switch {
			case err != nil:
				out.Warning = strings.TrimSpace(out.Warning + " " + err.Error())
			case esc.Checked:
				out.escapes, out.ChangedWhileLocked = &esc, esc.Files
			}
		}
		return out, nil
	})}
}

func (o InitOutput) metricsRecords() []metrics.Record {
	if o.escapes == nil {
		return nil
	}
	return []metrics.Record{metrics.EscapesRecord("jj_init", "", "", o.escapes.Files)}
}

// maxDescription bounds a change description.
const maxDescription = 64 << 10

// describeHere validates a description given by the model for a change in
// the server's repo, which must be a jj repo.
func (d *deps) describeHere(s string) (string, error) {
	desc, err := requireDescription(s)
	if err != nil {
		return "", err
	}
	return desc, d.requireRepo()
}

// requireDescription validates a description given by the model.
func requireDescription(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", userError{"description is empty: give one line saying what the change does (e.g. \"Add rate limiting to the API\")"}
	}
	if len(s) > maxDescription {
		return "", userErrorf("description is %d bytes; keep it under %d (a summary, not a transcript)", len(s), maxDescription)
	}
	if strings.ContainsRune(s, 0) {
		return "", userError{"description contains a NUL byte; remove it"}
	}
	return s, nil
}
