package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/transcript/share"
)

// Include values accepted by query_ancestor.
const (
	IncludeDescription = "description"
	IncludeDiff        = "diff"
	IncludeTranscript  = "transcript"
)

// MaxDiffBytes caps the git diff query_ancestor returns.
const MaxDiffBytes = 32 << 10

// TranscriptFilter narrows a transcript query.
type TranscriptFilter struct {
	Search string `json:"search,omitempty" jsonschema:"Text to match"`
	Range  []int  `json:"range,omitempty" jsonschema:"[first, last] line numbers"`
}

// AncestorInput is query_ancestor's input.
type AncestorInput struct {
	ChangeID         string            `json:"change_id" jsonschema:"jj revision: @-, change id prefix, bookmark"`
	Include          []string          `json:"include,omitempty" jsonschema:"description, diff, transcript; default description"`
	TranscriptFilter *TranscriptFilter `json:"transcript_filter,omitempty"`
}

// TranscriptLine is one line of a recorded transcript.
type TranscriptLine struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// TranscriptResult is the part of a transcript a query returned.
type TranscriptResult struct {
	SessionRoot string           `json:"session_root,omitempty"`
	Lines       []TranscriptLine `json:"lines"`
	Truncated   bool             `json:"truncated"`
	Note        string           `json:"note,omitempty"`
}

// AncestorOutput is query_ancestor's result.
type AncestorOutput struct {
	ChangeID    string            `json:"change_id"`
	CommitID    string            `json:"commit_id"`
	Description *string           `json:"description,omitempty"`
	Files       []jj.FileChange   `json:"files,omitempty"`
	Diff        *string           `json:"diff,omitempty"`
	Truncated   bool              `json:"diff_truncated,omitempty"`
	Transcript  *TranscriptResult `json:"transcript,omitempty"`
	Warning     string            `json:"warning,omitempty"`
}

// Text renders the result for the model.
func (o AncestorOutput) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Change %s (commit %s)", jj.ShortID(o.ChangeID), jj.ShortID(o.CommitID))
	if o.Warning != "" {
		b.WriteString("\nWarning: " + o.Warning)
	}
	if o.Description != nil {
		desc := strings.TrimSpace(*o.Description)
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(&b, "\n\nDescription:\n%s", desc)
	}
	if o.Diff != nil {
		fmt.Fprintf(&b, "\n\nFiles (%d):", len(o.Files))
		for _, f := range o.Files {
			fmt.Fprintf(&b, "\n  %s %s", f.Status, f.Path)
		}
		fmt.Fprintf(&b, "\n\nDiff:\n%s", *o.Diff)
	}
	if t := o.Transcript; t != nil {
		b.WriteString("\n\nTranscript:")
		if t.Note != "" {
			b.WriteString(" " + t.Note)
		}
		for _, l := range t.Lines {
			fmt.Fprintf(&b, "\n%d: %s", l.N, l.Text)
		}
	}
	return b.String()
}

func queryAncestorTool(d *deps) server.ServerTool {
	tool := newTool[AncestorInput, AncestorOutput]("query_ancestor",
		"Read an earlier change: its description, diff, or session transcript.",
		readOnly)
	return server.ServerTool{Tool: tool, Handler: toolHandler(d, func(ctx context.Context, in AncestorInput) (AncestorOutput, error) {
		rev := strings.TrimSpace(in.ChangeID)
		if rev == "" {
			return AncestorOutput{}, userError{"change_id is empty: give a jj revision such as @- or a change id prefix"}
		}
		include := in.Include
		if len(include) == 0 {
			include = []string{IncludeDescription}
		}
		for _, inc := range include {
			if !slices.Contains([]string{IncludeDescription, IncludeDiff, IncludeTranscript}, inc) {
				return AncestorOutput{}, userErrorf("include: %q is not one of description, diff, transcript", inc)
			}
		}
		if err := d.requireRepo(); err != nil {
			return AncestorOutput{}, err
		}
		ch, err := d.jj.Show(ctx, rev)
		if errors.Is(err, jj.ErrNoSuchRevision) {
			return AncestorOutput{}, userErrorf("No change %q exists in this repo (it may have been abandoned, or the id is mistyped): %s", rev, text.OneLine(jjMessage(err)))
		}
		if err != nil {
			return AncestorOutput{}, err
		}
		ts, loc, tsErr := d.transcripts()
		var lin transcript.Lineage
		inLineage := false
		var fetchNote string
		if tsErr == nil {
			lin, inLineage = ts.Lineage(ctx, d.jj, ch)
			// A change a teammate pushed: its session may be on the
			// state remote, fetched the first time it is asked for.
			if root := share.NeedsFetch(loc.Config.State.Remote, ch, lin, inLineage); root != "" && slices.Contains(include, IncludeTranscript) {
				var found bool
				if found, fetchNote = d.fetchLineage(ctx, ch, root); found {
					lin, inLineage = ts.Lineage(ctx, d.jj, ch)
				}
			}
		}
		out := AncestorOutput{ChangeID: ch.ChangeID, CommitID: ch.CommitID, Warning: d.discontinuity(ctx, ch, lin)}
		if slices.Contains(include, IncludeDescription) {
			out.Description = &ch.Description
		}
		if slices.Contains(include, IncludeDiff) {
			files, err := d.jj.DiffSummary(ctx, ch.CommitID)
			if err != nil {
				return AncestorOutput{}, err
			}
			diff, err := d.jj.DiffGit(ctx, ch.CommitID)
			if err != nil {
				return AncestorOutput{}, err
			}
			diff, out.Truncated = capText(diff, MaxDiffBytes, "diff")
			out.Files, out.Diff = nonNil(files), &diff
		}
		if slices.Contains(include, IncludeTranscript) {
			if tsErr != nil {
				return AncestorOutput{}, tsErr
			}
			t, err := transcriptPart(ctx, ts, lin, inLineage, in.TranscriptFilter)
			if err != nil {
				return AncestorOutput{}, err
			}
			if fetchNote != "" {
				t.Note = strings.TrimSpace(t.Note + " (" + fetchNote + ")")
			}
			out.Transcript = &t
		}
		return out, nil
	})}
}

// discontinuity says plainly when ch is cut off from the current work: not
// an ancestor of @ (rebased onto an unrelated parent, or another line of
// work), or its session lineage broken (lin.Notes).
func (d *deps) discontinuity(ctx context.Context, ch jj.Change, lin transcript.Lineage) string {
	var notes []string
	if ok, err := d.jj.IsAncestor(ctx, ch.CommitID, "@"); err == nil && !ok {
		notes = append(notes, fmt.Sprintf("%s is not an ancestor of @: it was rebased onto an unrelated parent or belongs to another line of work, so what it did may not be in the current change", jj.ShortID(ch.ChangeID)))
	}
	notes = append(notes, lin.Notes()...)
	return strings.Join(notes, "; ")
}

// transcriptPart answers the transcript part of a query: the lineage's
// stored transcript, filtered.
func transcriptPart(ctx context.Context, ts *transcript.Store, lin transcript.Lineage, inLineage bool, f *TranscriptFilter) (TranscriptResult, error) {
	var filter TranscriptFilter
	if f != nil {
		filter = *f
	}
	if len(filter.Range) != 0 && (len(filter.Range) != 2 || filter.Range[0] < 1 || filter.Range[1] < filter.Range[0]) {
		return TranscriptResult{}, userError{"transcript_filter.range must be [first, last] with 1 <= first <= last"}
	}
	if !inLineage {
		return TranscriptResult{Lines: []TranscriptLine{}, Note: "no transcript recorded for this change"}, nil
	}
	return transcriptOf(ctx, ts, lin.Root, filter)
}

// capText cuts s to at most max bytes at a line boundary, appending a marker
// saying how much was left out.
func capText(s string, max int, what string) (string, bool) {
	kept, cut := text.CutAtLine(s, max)
	if !cut {
		return s, false
	}
	return kept + fmt.Sprintf("[… %s truncated: %d more bytes not shown; query a narrower change or read files directly]\n", what, len(s)-len(kept)), true
}
