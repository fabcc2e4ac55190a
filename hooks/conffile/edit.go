package conffile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/internal/atomicfile"
)

// FileEdit is one file an install changes (or would change).
type FileEdit struct {
	Path   string
	Before []byte // nil: the file did not exist
	After  []byte // nil: the file is removed
	Mode   fs.FileMode
	// PruneUpTo, when set, is a directory above the file: removing the
	// file removes the directories between that it leaves empty (a
	// .claude/ or .opencode/plugin/ planq made), PruneUpTo itself kept.
	PruneUpTo string
}

// Changed reports whether the edit changes the file.
func (e FileEdit) Changed() bool {
	return !bytes.Equal(e.Before, e.After) || (e.Before == nil) != (e.After == nil)
}

// Apply writes the edit: atomically replaces the file, or removes it.
func Apply(e FileEdit) error {
	if !e.Changed() {
		return nil
	}
	if e.After == nil {
		if err := os.Remove(e.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", e.Path, err)
		}
		pruneEmpty(filepath.Dir(e.Path), e.PruneUpTo)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(e.Path), err)
	}
	target := e.Path
	if real, err := filepath.EvalSymlinks(e.Path); err == nil {
		target = real // a symlinked config (a dotfiles repo's) stays a symlink: its file is written
	}
	if err := atomicfile.Write(target, e.After, e.Mode); err != nil {
		return fmt.Errorf("write %s: %w", e.Path, err)
	}
	return nil
}

// pruneEmpty removes dir and the directories above it, up to stop (not
// included), while they are empty; nothing when stop is not above dir.
func pruneEmpty(dir, stop string) {
	if stop == "" {
		return
	}
	for {
		rel, err := filepath.Rel(stop, dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return
		}
		if os.Remove(dir) != nil { // only an empty directory goes
			return
		}
		dir = filepath.Dir(dir)
	}
}

// ReadOrNil reads path; a missing file is nil, an empty one non-nil.
func ReadOrNil(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// LoadJSON reads the JSON document at path for editing: the edit starts
// with After = Before (missing file: nil, and an empty document), keeping
// the file's mode (mode for a new file).
func LoadJSON(path string, mode fs.FileMode) (FileEdit, *Object, error) {
	e, err := ReadEdit(path, mode)
	if err != nil {
		return e, nil, err
	}
	doc, err := Parse(e.Before)
	if err != nil {
		return e, nil, fmt.Errorf("%s is not valid JSON, even allowing comments and trailing commas (%v); fix or move it, then rerun", path, err)
	}
	return e, doc, nil
}

// EditJSON is LoadJSON for one of a host's JSON files o's install edits
// (a new one is 0644); doc is nil when there is nothing to edit, as when
// uninstalling from a file that is not there.
func (o Options) EditJSON(path string) (FileEdit, *Object, error) {
	e, doc, err := LoadJSON(path, 0o644)
	if err != nil {
		return e, nil, err
	}
	if o.Uninstall && e.Before == nil {
		return e, nil, nil
	}
	return e, doc, nil
}

// SetJSON sets the edit's After to what doc says: Before edited in place
// (Patch: every byte planq does not own is kept), or, for a new or blank
// file, doc with two-space indentation and a final newline.
func (e *FileEdit) SetJSON(doc *Object) error {
	if len(bytes.TrimSpace(e.Before)) == 0 {
		e.After = append(Encode(doc), '\n')
		return nil
	}
	out, err := Patch(e.Before, doc)
	if err != nil {
		return fmt.Errorf("%s: %w", e.Path, err)
	}
	e.After = out
	return nil
}

// Int is a JSON integer.
func Int(n int) any { return Number(fmt.Sprint(n)) }

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in file order.
func (o *Object) Keys() []string { return append([]string(nil), o.keys...) }

// Path returns the object at the nested keys, creating each level when
// create is set; it returns nil when one is missing and create is not set,
// and an error naming the key when one holds something else.
func (o *Object) Path(file string, create bool, keys ...string) (*Object, error) {
	cur := o
	for _, key := range keys {
		v, exists := cur.Get(key)
		if !exists || v == nil {
			if !create {
				return nil, nil
			}
			c := NewObject()
			cur.Set(key, c)
			cur = c
			continue
		}
		c, ok := v.(*Object)
		if !ok {
			return nil, fmt.Errorf("%s: %q is not an object; fix the file by hand", file, key)
		}
		cur = c
	}
	return cur, nil
}

// Same reports whether a and b say the same as JSON: key order does not
// count, as it does not for a host reading the file.
func Same(a, b any) bool {
	ca, errA := json.Marshal(plain(a))
	cb, errB := json.Marshal(plain(b))
	return errA == nil && errB == nil && bytes.Equal(ca, cb)
}

// plain is v with every Object a map, which encoding/json writes with
// sorted keys.
func plain(v any) any {
	switch t := v.(type) {
	case *Object:
		m := make(map[string]any, len(t.keys))
		for _, k := range t.keys {
			m[k] = plain(t.vals[k])
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

// Has reports whether k is set to something other than null.
func (o *Object) Has(k string) bool { v, ok := o.vals[k]; return ok && v != nil }
