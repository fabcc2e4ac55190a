// Package unified renders planq's edits of a user's files as unified diffs,
// for `planq mcp install --dry-run` and tests. It is apart from conffile,
// which every host adapter links, so that the hook binaries do not link the
// diff library, whose start-up (a regular expression compiled before main)
// every hook process paid for.
package unified

import (
	"bytes"

	"github.com/aymanbagabas/go-udiff"

	"github.com/planq-dev/planq/hooks/conffile"
)

// Edit returns e as a unified diff ("" when nothing changes).
func Edit(e conffile.FileEdit) string {
	if !e.Changed() {
		return ""
	}
	return Diff(e.Path, e.Before, e.After)
}

// Diff renders the change from a to b as a unified diff with three lines of
// context, labelled a<path> and b<path> (/dev/null for a nil a, a new file,
// or a nil b, a removed one). It returns "" when a and b are equal.
func Diff(path string, a, b []byte) string {
	if bytes.Equal(a, b) && (a == nil) == (b == nil) {
		return ""
	}
	from, to := "a"+path, "b"+path
	if a == nil {
		from = "/dev/null"
	}
	if b == nil {
		to = "/dev/null"
	}
	return udiff.Unified(from, to, string(a), string(b))
}
