package staterepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// wtRoot is a state worktree opened for reading and writing its files
// without following symbolic links. The worktree sits inside the code repo,
// where the model can create links (scratch.md → /etc/passwd, checkpoints →
// another directory), so:
//
//   - every path is resolved inside an os.Root, which never leaves the
//     worktree, even through a link created meanwhile;
//   - every component below the worktree's top is checked with Lstat, and a
//     link is refused with an error naming it;
//   - a file is opened only after Lstat saw a regular file, and the opened
//     file must be that same file (a link swapped in between is caught);
//   - files are replaced by a rename, which replaces a link rather than
//     writing through it.
//
// The worktree's top and its parent (.planq) must be real directories.
type wtRoot struct {
	path string
	root *os.Root
}

// tmpPrefix starts the names of planq's temporary files in a worktree.
const tmpPrefix = ".planq-tmp-"

// openWorktree opens the worktree at path.
func openWorktree(path string) (*wtRoot, error) {
	if err := checkWorktreeDir(path); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("open the state worktree %s: %w", path, err)
	}
	return &wtRoot{path: path, root: root}, nil
}

// Close releases the worktree's directory handle.
func (w *wtRoot) Close() error { return w.root.Close() }

// checkWorktreeDir refuses a worktree whose top or parent directory is a
// link (or not a directory); a missing one is fine.
func checkWorktreeDir(p string) error {
	for _, d := range []string{filepath.Dir(p), p} {
		st, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link; planq keeps its state worktree in a real directory and never follows links there: remove the link (it leaves the target alone) and run planq again", d)
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory; move it away and run planq again", d)
		}
	}
	return nil
}

// full returns rel's path for messages.
func (w *wtRoot) full(rel string) string { return filepath.Join(w.path, filepath.FromSlash(rel)) }

// linkError refuses a link inside the worktree.
func linkError(full string) error {
	return fmt.Errorf("%s is a symbolic link; planq never follows links inside its state worktree: remove it (rm %s) and retry", full, full)
}

// check refuses rel when one of its components is a link, or a parent is
// not a directory. Missing components are fine.
func (w *wtRoot) check(rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		st, err := w.root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.full(sub), err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return linkError(w.full(sub))
		}
		if i < len(parts)-1 && !st.IsDir() {
			return fmt.Errorf("%s is not a directory; move it away", w.full(sub))
		}
	}
	return nil
}

// Lstat describes rel without following a link; a link in a parent
// directory is refused.
func (w *wtRoot) Lstat(rel string) (fs.FileInfo, error) {
	if dir := path.Dir(rel); dir != "." {
		if err := w.check(dir); err != nil {
			return nil, err
		}
	}
	return w.root.Lstat(rel)
}

// Open opens the regular file rel for reading, refusing links.
func (w *wtRoot) Open(rel string) (*os.File, fs.FileInfo, error) {
	if err := w.check(rel); err != nil {
		return nil, nil, err
	}
	st, err := w.root.Lstat(rel)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file; move it away", w.full(rel))
	}
	f, err := w.root.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	got, err := f.Stat()
	if err != nil || !os.SameFile(st, got) {
		f.Close()
		return nil, nil, fmt.Errorf("%s changed while planq opened it (a link swapped in?); retry", w.full(rel))
	}
	return f, got, nil
}

// ReadFile reads the regular file rel, refusing links.
func (w *wtRoot) ReadFile(rel string) ([]byte, error) {
	f, st, err := w.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrTooLarge, w.full(rel), st.Size(), MaxFileSize)
	}
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+512))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", w.full(rel), err)
	}
	return buf.Bytes(), nil
}

// WriteFile replaces rel with data: a temporary file beside it, renamed
// into place, so rel is always either the old or the new content.
func (w *wtRoot) WriteFile(rel string, data []byte) error {
	if err := w.check(rel); err != nil {
		return err
	}
	dir := path.Dir(rel)
	if dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := w.check(dir); err != nil {
			return err
		}
	}
	tmp := path.Join(dir, fmt.Sprintf("%s%016x", tmpPrefix, rand.Uint64()))
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	crashPoint("worktree-tmp")
	if err == nil {
		err = f.Chmod(0o644) // whatever the umask, as git checks files out
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.root.Rename(tmp, rel)
	}
	if err != nil {
		_ = w.root.Remove(tmp)
		return fmt.Errorf("write %s: %w", w.full(rel), err)
	}
	return nil
}

// Append adds extra to the end of rel when it still holds size bytes,
// which costs a fraction of replacing the file (no file is created or
// renamed). A failed write is cut back to size; appended reports whether it
// happened. A reader never sees a half-written append: the worktree is
// marked pending while it is updated (see syncMarker).
func (w *wtRoot) Append(rel string, size int64, extra []byte) (appended bool, err error) {
	f, st, err := w.Open(rel)
	if err != nil {
		return false, nil
	}
	f.Close()
	if st.Size() != size {
		return false, nil
	}
	af, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false, nil
	}
	defer af.Close()
	got, err := af.Stat()
	if err != nil || !os.SameFile(st, got) || got.Size() != size {
		return false, nil
	}
	if len(extra) > 1 && crashing("worktree-append") {
		_, _ = af.Write(extra[:len(extra)/2]) // a write cut short, as by a full disk
		crashPoint("worktree-append")
	}
	if _, err := af.Write(extra); err != nil {
		if terr := af.Truncate(size); terr != nil {
			return false, fmt.Errorf("append to %s: %w; cutting it back failed too: %v", w.full(rel), err, terr)
		}
		return false, fmt.Errorf("append to %s: %w", w.full(rel), err)
	}
	return true, nil
}

// Remove deletes rel (a missing file is fine) and the directories it
// leaves empty.
func (w *wtRoot) Remove(rel string) error {
	if err := w.check(rel); err != nil {
		return err
	}
	if err := w.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", w.full(rel), err)
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if w.root.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// removeTemps deletes planq's temporary files that killed writers left in
// the worktree; the caller holds the store's lock, so none is in use.
func (w *wtRoot) removeTemps() (int, error) {
	n := 0
	err := fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p == ".git" {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), tmpPrefix) {
			if w.root.Remove(p) == nil {
				n++
			}
		}
		return nil
	})
	return n, err
}
