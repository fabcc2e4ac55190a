package main

import (
	"fmt"
	"strings"

	"github.com/planq-dev/planq/transcript"
)

// maxBadNamed bounds the bad session records doctor's detail names.
const maxBadNamed = 5

// sessionsCheck reads every session record of the project at root, as
// `planq ui` and the hooks do, and fails naming those that are not valid
// (hand-edited or foreign): planq skips them, and says which to fix or
// remove. ok is false when the project's store cannot be located (no check).
func sessionsCheck(root string, getenv func(string) string) (check, bool) {
	ts, err := projectStore(root, getenv)
	if err != nil {
		return check{}, false
	}
	ls, err := ts.Roots()
	bad := transcript.BadRecords(err)
	if err != nil && len(bad) == 0 {
		return check{Name: "sessions", Detail: err.Error(), Fix: "check the permissions of " + ts.ProjectDir()}, true
	}
	if len(bad) == 0 {
		return check{Name: "sessions", OK: true, Detail: fmt.Sprintf("%d session lineage record(s), all valid", len(ls))}, true
	}
	var names, paths []string
	for i, b := range bad {
		if i < maxBadNamed {
			names = append(names, b.Path+": "+b.Problem)
			paths = append(paths, b.Path)
		}
	}
	detail := fmt.Sprintf("%d session record(s) are not valid and are skipped: %s", len(bad), strings.Join(names, "; "))
	if len(bad) > maxBadNamed {
		detail += fmt.Sprintf("; and %d more (planq doctor names them once these are fixed)", len(bad)-maxBadNamed)
	}
	return check{Name: "sessions", Detail: detail, Fix: "fix or remove " + strings.Join(paths, " ")}, true
}
