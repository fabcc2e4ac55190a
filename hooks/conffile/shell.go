package conffile

import (
	"strings"

	"mvdan.cc/sh/v3/shell"
	"mvdan.cc/sh/v3/syntax"
)

// Quote quotes s for a POSIX shell when it needs quoting, with mvdan.cc/sh's
// syntax.Quote: hosts run hook commands with sh (Git Bash on Windows, so
// C:\ paths with spaces work too).
func Quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangPOSIX)
	if err != nil {
		// Control characters: POSIX has no escapes for them, but single
		// quotes keep every byte but the quote itself.
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}

// Line renders argv as a command line a shell runs as those words.
func Line(argv ...string) string {
	out := make([]string, len(argv))
	for i, w := range argv {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}

// Fields splits a command line into words the way a POSIX shell would
// (quotes and escapes removed, with mvdan.cc/sh), without running one:
// $NAME is kept as written, not expanded. It returns nil for a line that is
// not valid shell syntax.
func Fields(s string) []string {
	f, err := shell.Fields(s, func(name string) string { return "$" + name })
	if err != nil {
		return nil
	}
	return f
}
