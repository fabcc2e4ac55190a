package hosts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/jj"
)

// The rule of where planq's wiring lives, one home for install, planq
// doctor and jj_push: planq's wiring enters a jj change only when the user
// chose project scope. Local scope's files are this machine's alone: install
// refuses a file the repo tracks (conffile.Options.RefuseTracked), doctor
// fails when one is tracked or changed by a change of the stack to push
// (FindLeaks), and jj_push refuses to push such a change (StackLeaks).

// LocalWiring returns the files of the project (repo-relative, slashes,
// sorted) that hold some host's local-scope wiring of planq now. It reads
// the hosts' config files and the repo's info/exclude, and runs nothing.
func LocalWiring(where conffile.Options) []string {
	root := where.ProjectDir
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	var out []string
	for _, ad := range All() {
		for _, st := range ad.Installed(where) {
			if st.Scope != conffile.ScopeLocal || !st.Wired() {
				continue
			}
			for _, f := range st.Files {
				rel, err := filepath.Rel(root, f)
				if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
					continue // outside the project: ~/.claude.json
				}
				if _, err := os.Stat(f); err != nil {
					continue
				}
				if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
					out = append(out, rel)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// Leak is a file of planq's local wiring where it must not be: tracked by
// the repo, or changed by changes of the stack jj_push pushes.
type Leak struct {
	File    string   // repo-relative, slashes
	Tracked bool     // the working-copy change tracks it
	Changes []string // "<short id> \"<title>\"" of each change that changes it
	// Earlier are the short ids of those changes that are not the working
	// copy (all of them when that is not known).
	Earlier []string
}

// String says where the file is, in one line.
func (l Leak) String() string {
	var where []string
	if l.Tracked {
		where = append(where, "tracked")
	}
	if len(l.Changes) > 0 {
		where = append(where, "changed by "+strings.Join(l.Changes, ", "))
	}
	return l.File + " (" + strings.Join(where, "; ") + ")"
}

// LeakFix is what to do about leaks: keep the files to this machine, or
// share the wiring on purpose.
func LeakFix(leaks []Leak) string {
	var files, earlier []string
	for _, l := range leaks {
		files = append(files, l.File)
		for _, id := range l.Earlier {
			if !slices.Contains(earlier, id) {
				earlier = append(earlier, id)
			}
		}
	}
	fix := "to keep it to this machine: jj file untrack " + strings.Join(files, " ") + " (info/exclude ignores it) takes it out of the working-copy change"
	if len(earlier) > 0 {
		fix += "; out of an earlier change (" + strings.Join(earlier, ", ") + "): jj restore -c CHANGE " + strings.Join(files, " ") + ", then planq mcp install writes it back untracked"
	}
	return fix + "; or, to share planq's wiring with the repo, planq mcp install --scope project"
}

// FindLeaks returns where the files of planq's local wiring (LocalWiring's)
// are in the jj repo c works in: tracked by @ (after a snapshot), or
// changed by a change of trunk()..@. Two jj processes, and one more for
// each change that changes one of them.
func FindLeaks(ctx context.Context, c *jj.Client, root string, files []string) ([]Leak, error) {
	if len(files) == 0 {
		return nil, nil
	}
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i] = filepath.Join(root, filepath.FromSlash(f))
	}
	tracked, err := conffile.Tracked(ctx, root, c.Bin, true, abs...)
	if err != nil {
		return nil, err
	}
	changes, err := c.Log(ctx, "(trunk()..@) & files("+jj.RootFiles(files...)+")")
	if err != nil {
		return nil, fmt.Errorf("find the changes that hold planq's local wiring: %w", err)
	}
	var stack []jj.StackChange
	wc := ""
	for _, ch := range changes {
		fs, err := c.DiffSummary(ctx, ch.CommitID)
		if err != nil {
			return nil, err
		}
		stack = append(stack, jj.StackChange{ChangeID: ch.ChangeID, Title: ch.Title(), Files: fs})
		if ch.WorkingCopy {
			wc = ch.ChangeID
		}
	}
	leaks := StackLeaks(files, stack)
	for i := range leaks {
		leaks[i].Earlier = slices.DeleteFunc(leaks[i].Earlier, func(id string) bool { return wc != "" && id == jj.ShortID(wc) })
	}
	for _, t := range tracked {
		rel, err := filepath.Rel(root, t)
		if err != nil {
			continue
		}
		leaks = addLeak(leaks, filepath.ToSlash(rel), func(l *Leak) { l.Tracked = true })
	}
	slices.SortFunc(leaks, func(a, b Leak) int { return strings.Compare(a.File, b.File) })
	return leaks, nil
}

// StackLeaks returns the files of planq's local wiring that changes of the
// stack change: what jj_push would send. Which of them is the working copy
// is not known here (Earlier holds them all).
func StackLeaks(files []string, stack []jj.StackChange) []Leak {
	var leaks []Leak
	for _, ch := range stack {
		for _, f := range ch.Files {
			for _, p := range []string{f.Path, f.Source} {
				if p != "" && slices.Contains(files, filepath.ToSlash(p)) {
					c := fmt.Sprintf("%s %q", jj.ShortID(ch.ChangeID), ch.Title)
					leaks = addLeak(leaks, filepath.ToSlash(p), func(l *Leak) {
						if !slices.Contains(l.Changes, c) {
							l.Changes = append(l.Changes, c)
							l.Earlier = append(l.Earlier, jj.ShortID(ch.ChangeID))
						}
					})
				}
			}
		}
	}
	return leaks
}

// addLeak applies set to the leak of file, added when missing.
func addLeak(leaks []Leak, file string, set func(*Leak)) []Leak {
	for i := range leaks {
		if leaks[i].File == file {
			set(&leaks[i])
			return leaks
		}
	}
	l := Leak{File: file}
	set(&l)
	return append(leaks, l)
}
