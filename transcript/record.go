package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrBadRecord marks a stored session record planq does not use: it is not
// valid JSON, or it names ids that are not what jj or an agent host writes
// (a hand-edited or foreign session.json, a lineage directory not named by
// a change id). Readers skip such a record and report it; nothing in it is
// ever passed to jj.
var ErrBadRecord = errors.New("invalid session record")

// BadRecord is the error about one such record: the file and what is wrong.
type BadRecord struct {
	Path    string // the session.json (or lineage directory) at fault
	Problem string // what is wrong, in a few words
}

func (e *BadRecord) Error() string {
	return fmt.Sprintf("%s: %s; planq skips it: fix or remove it", e.Path, e.Problem)
}

// Is makes errors.Is(err, ErrBadRecord) hold.
func (e *BadRecord) Is(target error) bool { return target == ErrBadRecord }

// BadRecords lists the bad records an error names: one for a *BadRecord,
// each of them for an error joining several (as Roots returns).
func BadRecords(err error) []*BadRecord {
	var out []*BadRecord
	var walk func(error)
	walk = func(err error) {
		var b *BadRecord
		switch e := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, err := range e.Unwrap() {
				walk(err)
			}
		default:
			if errors.As(err, &b) {
				out = append(out, b)
			}
		}
	}
	walk(err)
	return out
}

// check reports what makes the record of the lineage rooted at root
// invalid: a root other than its directory's name, or a change or session
// id jj or a host would never write. Load applies it to what it reads and
// Update to what it writes, so neither a hand edit nor a caller can put a
// bad id in front of jj.
func (sess *Session) check(root string) error {
	if sess.Root != root {
		return fmt.Errorf("its root %q is not the change id its directory is named by (%s)", sess.Root, root)
	}
	if err := ValidChangeID(sess.Root); err != nil {
		return fmt.Errorf("root: %w", err)
	}
	for _, c := range sess.Changes {
		if err := ValidChangeID(c); err != nil {
			return fmt.Errorf("change: %w", err)
		}
	}
	for _, a := range sess.Agents {
		if err := ValidSessionID(a.ID); err != nil {
			return fmt.Errorf("agent session: %w", err)
		}
		if a.Change != "" {
			if err := ValidChangeID(a.Change); err != nil {
				return fmt.Errorf("agent session %s: change: %w", a.ID, err)
			}
		}
	}
	if sess.Origin != "" {
		if err := ValidOrigin(sess.Origin); err != nil {
			return fmt.Errorf("origin: %w", err)
		}
	}
	for _, a := range sess.Agents {
		if a.Origin != "" {
			if err := ValidOrigin(a.Origin); err != nil {
				return fmt.Errorf("agent session %s: origin: %w", a.ID, err)
			}
		}
	}
	for _, w := range sess.Workspaces {
		if w.Change != "" {
			if err := ValidChangeID(w.Change); err != nil {
				return fmt.Errorf("workspace %s: change: %w", w.Name, err)
			}
		}
	}
	return nil
}

// CheckDir reports an entry of the project's sessions directory
// (ProjectDir) that holds a session record but is not named by a change id
// (a copied or foreign lineage): its record is never read. Index
// directories, stray files and directories without a record are no
// lineages and pass; so does a lineage directory, whose record Load checks.
func (s *Store) CheckDir(e fs.DirEntry) error {
	name := e.Name()
	if !e.IsDir() || name == bySessionDir || name == byChangeDir || ValidChangeID(name) == nil {
		return nil
	}
	dir := filepath.Join(s.ProjectDir(), name)
	if _, err := os.Lstat(filepath.Join(dir, SessionFile)); err != nil {
		return nil
	}
	return fmt.Errorf("transcript: %w", &BadRecord{Path: dir, Problem: "a lineage directory not named by a jj change id"})
}
