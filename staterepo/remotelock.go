package staterepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

// A push whose git receive-pack on the state remote was killed while it
// held a ref's lock leaves that lock file on the remote, and git refuses
// every later update of the ref ("failed to update ref") until a person
// removes it. planq reads which file from the remote's messages: a lock on
// a remote that is a local path, older than staleRemoteLockAge, is removed
// (the push is then tried again); any other is named in a one-line error
// that says how to remove it.

// staleRemoteLockAge is how old a lock file on a local state remote must be
// for a push to remove it. Other clones may push to that remote too, so
// planq's own lock does not cover it; but git holds a ref's lock for
// milliseconds (and packed-refs.lock for one pack-refs), so a lock this old
// was left by a killed process.
const staleRemoteLockAge = 10 * time.Second

// remoteLockRe finds, in receive-pack's messages, the lock file it could
// not create.
var remoteLockRe = regexp.MustCompile(`Unable to create '([^'\n]+\.lock)': File exists`)

// remoteLockFile returns the lock file the remote's messages say blocked
// an update, "" for none.
func remoteLockFile(messages string) string {
	m := remoteLockRe.FindStringSubmatch(messages)
	if m == nil {
		return ""
	}
	return filepath.Clean(m[1])
}

// askProgress asks a receive-pack for its messages (on the side band, when
// it has one), so that a refused update says why.
func askProgress(req *packp.ReferenceUpdateRequest, caps *capability.List, to *lockedBuffer) {
	switch {
	case caps.Supports(capability.Sideband64k):
		_ = req.Capabilities.Set(capability.Sideband64k)
	case caps.Supports(capability.Sideband):
		_ = req.Capabilities.Set(capability.Sideband)
	default:
		return
	}
	req.Progress = to
}

// errRemoteLocked is a push refused because a lock file on the remote
// exists.
var errRemoteLocked = errors.New("a lock file on the state remote blocks the update")

// remoteLocked turns a push refused by a lock file on the remote (named in
// messages) into what to do. retry is true when the lock was stale on a
// local remote and is removed now (with a warning): the push may be tried
// again. Otherwise err, when not nil, is the one-line error that names the
// lock file and its fix; nil means the push failed for another reason.
func (s *Store) remoteLocked(url string, messages string) (retry bool, err error) {
	lock := remoteLockFile(messages)
	if lock == "" {
		return false, nil
	}
	_, local, _ := s.remoteURL()
	if local {
		st, serr := os.Lstat(lock)
		switch {
		case errors.Is(serr, fs.ErrNotExist):
			return true, nil // gone meanwhile
		case serr == nil && time.Since(st.ModTime()) > staleRemoteLockAge:
			if rerr := os.Remove(lock); rerr == nil || errors.Is(rerr, fs.ErrNotExist) {
				s.warn(fmt.Sprintf("removed the stale lock file %s on the state remote (left by a killed git process)", lock))
				return true, nil
			}
		}
		return false, fmt.Errorf("push to %s: %w: %s exists (left by a killed git process, or a push running now); if no push to %s is running, remove it (`rm %s`) and run `planq state push` again",
			url, errRemoteLocked, lock, url, lock)
	}
	return false, fmt.Errorf("push to %s: %w: %s exists on the remote's host (left by a killed git process, or a push running now); if no push to %s is running, remove that file there and run `planq state push` again",
		url, errRemoteLocked, lock, url)
}

// lockedBuffer collects a remote's messages; a side-band demuxer may write
// them from another goroutine than the one that reads them.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
