package conffile

import (
	"context"

	"github.com/planq-dev/planq/internal/ignorefile"
)

// ExcludeEdit returns the edit that adds patterns, under a comment line, to
// the repo's own exclude file (ignorefile.Exclude: info/exclude in the git
// directory behind the jj or git repo at dir, which jj reads too), so that
// nothing in the working copy, .gitignore included, changes. A pattern the
// file already covers (ignorefile.Covers) is not added again; it is no
// edit when every pattern is covered, or when dir is in no git or jj repo.
// It reads files only (ctx and jjBin are unused).
func ExcludeEdit(_ context.Context, dir, _, comment string, patterns ...string) (FileEdit, error) {
	path, ok, err := ignorefile.Exclude(dir)
	if err != nil || !ok {
		return FileEdit{}, err
	}
	e, err := ReadEdit(path, 0o644)
	if err != nil {
		return e, err
	}
	e.After = ignorefile.Add(e.Before, comment, patterns...)
	return e, nil
}

// ExcludeRemoval returns the edit that takes out of the repo's exclude file
// (as ExcludeEdit finds it) the lines ExcludeEdit added: a comment line
// that is one of comments and the lines right after it that are patterns
// (ignorefile.Remove). Every other line stays as it was; a file left empty
// is removed (planq made it). It is no edit when there are no such lines.
func ExcludeRemoval(_ context.Context, dir, _ string, comments []string, patterns ...string) (FileEdit, error) {
	path, ok, err := ignorefile.Exclude(dir)
	if err != nil || !ok {
		return FileEdit{}, err
	}
	e, err := ReadEdit(path, 0o644)
	if err != nil || e.Before == nil {
		return e, err
	}
	after := ignorefile.Remove(e.Before, comments, patterns...)
	if len(after) == len(e.Before) { // Remove only takes lines out
		return e, nil
	}
	e.After = after
	if len(after) == 0 {
		e.After = nil
	}
	return e, nil
}
