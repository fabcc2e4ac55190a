// Package statusline renders planq's one-line status for an agent host's
// status bar (Claude Code's statusLine): the working-copy change's short
// id, the gate's state, the first line of the change's living summary and
// how many "Left to do" items remain, in that order of importance, fitted to
// the width the host gives. Hosts run it every few seconds, so it reads the
// gate's cache (gate.State) and starts no jj process while jj's operation
// heads are unchanged. The host's own input is decoded by its adapter
// (hooks/claude); this package is host-neutral and links nothing heavier
// than the gate, so the planq-hook binary serves it.
package statusline

import (
	"context"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/jj"
)

// Input is what a host tells the status line.
type Input struct {
	Dir   string // the session's working directory
	Width int    // the columns the line may take; 0: DefaultWidth
}

// DefaultWidth is the width used when the host gives none.
const DefaultWidth = 80

// Prefix starts the lines that are not a change's status (not a jj repo,
// an error), so a reader knows who is talking.
const Prefix = "planq: "

// Render returns the status line for in.Dir, without a newline. It never
// fails: what went wrong is the line.
func Render(ctx context.Context, in Input) string {
	cols := columns(in.Width)
	st, err := gate.State(ctx, in.Dir)
	switch {
	case err != nil:
		return Problem(cols, "cannot read the change: "+firstLine(err.Error()))
	case !st.IsJJRepo:
		return Fit([]Part{{Text: Prefix + "not in a jj repo"}, {Text: "jj git init --colocate starts one", Min: 12}}, cols)
	}
	return Fit(Parts(st, gateMode(st.Root)), cols)
}

// Parts are the parts of a jj repo's status line, most important first:
// the change id, the gate (with its mode from .planq/config.yaml), the
// summary's first line (or, with no description, what to do), and the
// count of "Left to do" items when the summary has that section.
func Parts(st gate.Status, mode string) []Part {
	parts := []Part{{Text: jj.ShortID(st.ChangeID)}}
	switch {
	case mode == config.ModeOff:
		parts = append(parts, Part{Text: "gate off"})
	case !st.Locked:
		parts = append(parts, Part{Text: "gate open"})
	case mode == config.ModeWarn:
		parts = append(parts, Part{Text: "gate warns"})
	default:
		parts = append(parts, Part{Text: "gate locked"})
	}
	task := jj.TaskLine(st.Description)
	if task == "" {
		parts = append(parts, Part{Text: "no change declared: jj_init first", Min: 10})
		return parts
	}
	parts = append(parts, Part{Text: task, Min: 10})
	if items, ok := jj.SectionItems(st.Description, "Left to do:"); ok {
		parts = append(parts, Part{Text: fmt.Sprintf("%d left to do", len(items))})
	}
	return parts
}

// Problem is the line that says what went wrong, within cols columns
// (0: DefaultWidth).
func Problem(cols int, what string) string {
	return Fit([]Part{{Text: Prefix + what, Min: 1}}, columns(cols))
}

// columns is the width to fit a line in: w, or DefaultWidth when the host
// gave none.
func columns(w int) int {
	if w <= 0 {
		return DefaultWidth
	}
	return w
}

// gateMode is the gate's mode in the repo at root; a missing or broken
// config is the default (strict), as the gate itself reads it.
func gateMode(root string) string {
	c, err := config.Load(root)
	if err != nil {
		return config.ModeStrict
	}
	return c.Gate.Mode
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}
