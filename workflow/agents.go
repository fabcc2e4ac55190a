package workflow

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/planq-dev/planq/jj"
)

// AgentStatus is one workspace of the repo, as `planq agents` shows it.
type AgentStatus struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Main     bool   `json:"main"`     // the repo's main working copy
	Change   string `json:"change"`   // its working-copy change
	Declared bool   `json:"declared"` // the gate is open: the change is declared
	Summary  string `json:"summary"`  // the first line of its description
	// Description is its whole description (the living summary), for planq
	// ui; `planq agents --json` keeps to the first line.
	Description string `json:"-"`
	DiffStat    string `json:"diff_stat"`
	// Conflicts are the files with conflicts in its change.
	Conflicts []string  `json:"conflicts"`
	Updated   time.Time `json:"last_activity"` // its change's last rewrite (snapshot)
}

// Agents lists every workspace of the repo at o.Dir, the main one first,
// with its change, gate state, summary, diff stat and conflicts as of its
// last snapshot, in one jj process.
func Agents(ctx context.Context, o Options) ([]AgentStatus, error) {
	root, ok := jj.FindRoot(o.Dir)
	if !ok {
		return nil, fmt.Errorf("%s is not in a jj repo", o.Dir)
	}
	mainRoot, err := jj.MainRoot(root)
	if err != nil {
		return nil, err
	}
	c := o.jj(mainRoot)
	all, err := c.WorkspaceDetails(ctx)
	if err != nil {
		return nil, fmt.Errorf("jj: %w", err)
	}
	var out []AgentStatus
	for _, w := range all {
		a := AgentStatus{Name: w.Name, Path: w.Root, Main: w.Root != "" && jj.SamePath(w.Root, mainRoot),
			Change: w.Change.ChangeID, Declared: w.Change.Declared(), Summary: w.Change.Title(), Description: w.Change.Description,
			DiffStat: statSummary(w.Stat), Conflicts: nonNil(w.Change.ConflictedFiles), Updated: w.Updated}
		out = append(out, a)
	}
	slices.SortStableFunc(out, func(a, b AgentStatus) int {
		switch {
		case a.Main != b.Main && a.Main:
			return -1
		case a.Main != b.Main:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// statSummary is the last line of a jj diff stat: "2 files changed, …".
func statSummary(stat string) string {
	lines := strings.Split(strings.TrimSpace(stat), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
