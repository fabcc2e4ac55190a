package gitstore

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

	"github.com/planq-dev/planq/staterepo/internal/crash"
)

// MaxFileSize is the largest state file planq writes (64 MiB). A write that
// would make a file larger is refused before anything is written, and a
// worktree file larger than this is not read.
const MaxFileSize = 64 << 20

// ErrTooLarge reports content over a size limit.
var ErrTooLarge = errors.New("content too large")

// Root is a state worktree opened for reading and writing its files
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
type Root struct {
	path string   // the worktree's top directory
	root *os.Root // the handle every path is resolved in
}

// tmpPrefix starts the names of planq's temporary files in a worktree.
const tmpPrefix = ".planq-tmp-"

// OpenRoot opens the worktree at path.
func OpenRoot(path string) (*Root, error) {
	if err := CheckWorktreeDir(path); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, fmt.Errorf("open the state worktree %s: %w", path, err)
	}
	return &Root{path: path, root: root}, nil
}

// Close releases the worktree's directory handle.
func (w *Root) Close() error { return w.root.Close() }

// CheckWorktreeDir refuses a worktree whose top or parent directory is a
// link (or not a directory); a missing one is fine.
func CheckWorktreeDir(p string) error {
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

// Full returns rel's path for messages.
func (w *Root) Full(rel string) string { return filepath.Join(w.path, filepath.FromSlash(rel)) }

// LinkError refuses a link inside the worktree.
func LinkError(full string) error {
	return fmt.Errorf("%s is a symbolic link; planq never follows links inside its state worktree: remove it (rm %s) and retry", full, full)
}

// Check refuses rel when one of its components is a link, or a parent is
// not a directory. Missing components are fine.
func (w *Root) Check(rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		st, err := w.root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", w.Full(sub), err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return LinkError(w.Full(sub))
		}
		if i < len(parts)-1 && !st.IsDir() {
			return fmt.Errorf("%s is not a directory; move it away", w.Full(sub))
		}
	}
	return nil
}

// Lstat describes rel without following a link; a link in a parent
// directory is refused.
func (w *Root) Lstat(rel string) (fs.FileInfo, error) {
	if dir := path.Dir(rel); dir != "." {
		if err := w.Check(dir); err != nil {
			return nil, err
		}
	}
	return w.root.Lstat(rel)
}

// Open opens the regular file rel for reading, refusing links.
func (w *Root) Open(rel string) (*os.File, fs.FileInfo, error) {
	if err := w.Check(rel); err != nil {
		return nil, nil, err
	}
	st, err := w.root.Lstat(rel)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file; move it away", w.Full(rel))
	}
	f, err := w.root.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	got, err := f.Stat()
	if err != nil || !os.SameFile(st, got) {
		f.Close()
		return nil, nil, fmt.Errorf("%s changed while planq opened it (a link swapped in?); retry", w.Full(rel))
	}
	return f, got, nil
}

// ReadFile reads the regular file rel, refusing links.
func (w *Root) ReadFile(rel string) ([]byte, error) {
	f, st, err := w.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%w: %s is %d bytes (limit %d)", ErrTooLarge, w.Full(rel), st.Size(), MaxFileSize)
	}
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+512))
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, fmt.Errorf("read %s: %w", w.Full(rel), err)
	}
	return buf.Bytes(), nil
}

// WriteFile replaces rel with data: a temporary file beside it, renamed
// into place, so rel is always either the old or the new content.
func (w *Root) WriteFile(rel string, data []byte) error {
	if err := w.Check(rel); err != nil {
		return err
	}
	dir := path.Dir(rel)
	if dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := w.Check(dir); err != nil {
			return err
		}
	}
	tmp := path.Join(dir, fmt.Sprintf("%s%016x", tmpPrefix, rand.Uint64()))
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	crash.Point("worktree-tmp")
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
		return fmt.Errorf("write %s: %w", w.Full(rel), err)
	}
	return nil
}

// Append adds extra to the end of rel when it still holds size bytes,
// which costs a fraction of replacing the file (no file is created or
// renamed). A failed write is cut back to size; appended reports whether it
// happened. A reader never sees a half-written append: the worktree is
// marked pending while it is updated (see syncMarker).
func (w *Root) Append(rel string, size int64, extra []byte) (appended bool, err error) {
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
	if len(extra) > 1 && crash.Armed("worktree-append") {
		_, _ = af.Write(extra[:len(extra)/2]) // a write cut short, as by a full disk
		crash.Point("worktree-append")
	}
	if _, err := af.Write(extra); err != nil {
		if terr := af.Truncate(size); terr != nil {
			return false, fmt.Errorf("append to %s: %w; cutting it back failed too: %v", w.Full(rel), err, terr)
		}
		return false, fmt.Errorf("append to %s: %w", w.Full(rel), err)
	}
	return true, nil
}

// Remove deletes rel (a missing file is fine) and the directories it
// leaves empty.
func (w *Root) Remove(rel string) error {
	if err := w.Check(rel); err != nil {
		return err
	}
	if err := w.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", w.Full(rel), err)
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if w.root.Remove(dir) != nil {
			break
		}
	}
	return nil
}

// RemoveTemps deletes planq's temporary files that killed writers left in
// the worktree and returns how many; the caller holds planq's own lock, so
// none is in use.
func (w *Root) RemoveTemps() (int, error) {
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
