package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/server"
	"github.com/planq-dev/planq/jj"
)

// SquashInput is jj_squash's input.
type SquashInput struct {
	From string `json:"from" jsonschema:"Change id to fold in"`
	Into string `json:"into,omitempty" jsonschema:"Change that takes its edits (default @)"`
}

// SquashOutput is jj_squash's result.
type SquashOutput struct {
	From          string   `json:"from"`      // the folded change's id
	FromTitle     string   `json:"-"`         // the first line of its description
	Into          string   `json:"into"`      // the change that took its edits
	Files         []string `json:"files"`     // the files moved
	Conflicts     bool     `json:"conflicts"` // the result has conflicts
	IntoIsCurrent bool     `json:"-"`         // the result is the working-copy change
}

// Text renders the result for the model.
func (o SquashOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Folded %s (%q, %d files) into %s.", jj.ShortID(o.From), o.FromTitle, len(o.Files), jj.ShortID(o.Into))
	if o.Conflicts {
		b.WriteString(" The result has conflicts: resolve them (jj_status lists the files) before jj_push.")
	}
	if o.IntoIsCurrent {
		b.WriteString(" Update the living summary with jj_describe so Done: mentions the folded work.")
	}
	return b.String()
}

func jjSquashTool(d *deps) server.ServerTool {
	tool := newTool[SquashInput, SquashOutput]("jj_squash",
		"Fold another change (a subagent's, another workspace's) into @; it keeps @'s description.",
		hints{destructive: true})
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, in SquashInput) (SquashOutput, error) {
		from, into := strings.TrimSpace(in.From), strings.TrimSpace(in.Into)
		if from == "" {
			return SquashOutput{}, userErrorf("from is empty: give the change id of the change to fold in (query_ancestor or planq agents lists them)")
		}
		if into == "" {
			into = "@"
		}
		if err := d.requireRepo(); err != nil {
			return SquashOutput{}, err
		}
		src, err := d.jj.Show(ctx, from)
		if err != nil {
			return SquashOutput{}, err
		}
		if snapped, err := snapshotWorkspaceOf(ctx, d.jj, src); err != nil {
			return SquashOutput{}, err
		} else if snapped {
			if src, err = d.jj.Show(ctx, src.ChangeID); err != nil {
				return SquashOutput{}, err
			}
		}
		dst, err := d.jj.Show(ctx, into)
		if err != nil {
			return SquashOutput{}, err
		}
		if src.ChangeID == dst.ChangeID {
			return SquashOutput{}, userErrorf("from and into are the same change (%s): name another change to fold in", jj.ShortID(src.ChangeID))
		}
		for _, ch := range []jj.Change{src, dst} {
			if ch.Immutable {
				return SquashOutput{}, userErrorf("%s is immutable (pushed or on trunk): only changes not yet pushed can be folded", jj.ShortID(ch.ChangeID))
			}
		}
		files, err := d.jj.DiffSummary(ctx, src.CommitID)
		if err != nil {
			return SquashOutput{}, err
		}
		if err := d.jj.Squash(ctx, src.CommitID, dst.CommitID, ""); err != nil {
			return SquashOutput{}, err
		}
		res, err := d.jj.Show(ctx, dst.ChangeID)
		if err != nil {
			return SquashOutput{}, err
		}
		return SquashOutput{From: src.ChangeID, FromTitle: src.Title(), Into: res.ChangeID,
			Files: nonNil(paths(files)), Conflicts: res.Conflict, IntoIsCurrent: res.WorkingCopy}, nil
	})}
}

// snapshotWorkspaceOf snapshots the working copy of another workspace
// whose @ is ch (a subagent's, a parallel agent's), so the edits not yet
// recorded there are folded in too; it reports whether it did.
func snapshotWorkspaceOf(ctx context.Context, c *jj.Client, ch jj.Change) (bool, error) {
	all, err := c.Workspaces(ctx)
	if err != nil {
		return false, err
	}
	for _, w := range all {
		if w.Change.ChangeID != ch.ChangeID || w.Change.WorkingCopy || w.Root == "" {
			continue
		}
		other := &jj.Client{Dir: w.Root, Bin: c.Bin, Env: c.Env}
		if _, err := other.Current(ctx); err != nil {
			return false, fmt.Errorf("snapshot workspace %s: %w", w.Name, err)
		}
		return true, nil
	}
	return false, nil
}
