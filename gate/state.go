package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/planq-dev/planq/internal/atomicfile"
	"github.com/planq-dev/planq/jj"
)

// Status is the gate's state for one directory.
type Status struct {
	IsJJRepo    bool   `json:"is_jj_repo"`
	Root        string `json:"root,omitempty"` // the jj workspace root
	Locked      bool   `json:"locked"`         // modifying calls are held back
	ChangeID    string `json:"change_id,omitempty"`
	Description string `json:"description,omitempty"` // @'s description
	// FromCache says the status came from the cache, without running jj.
	FromCache bool `json:"-"`
}

// CacheFile is the gate's cache, inside the workspace's .jj directory.
const CacheFile = "planq-gate.json"

// cacheVersion changes whenever the cache's meaning does.
const cacheVersion = 2

type cacheEntry struct {
	Version     int    `json:"version"`
	Key         string `json:"key"` // the operation heads it was read at
	ChangeID    string `json:"change_id"`
	Description string `json:"description"`
	// Sig signs the entry and the workspace it is for with the gate's key
	// (KeyFile): an entry written by anything but planq does not verify.
	Sig string `json:"sig"`
}

// signed returns the fields an entry's signature covers, for the
// workspace at root.
func (e cacheEntry) signed(root string) []string {
	return []string{fmt.Sprint(e.Version), root, e.Key, e.ChangeID, e.Description}
}

// State reports whether the gate is locked for dir: it is unlocked exactly
// when dir is in a jj repo whose working-copy change @ has a non-empty
// description, however it got one (jj_init, jj describe, jj new -m). A
// subagent in the same working copy therefore sees the same state.
//
// Finding the repo is a filesystem walk. @ is read with one jj process only
// when jj's operation heads changed since the last read; the answer is cached
// in .jj/planq-gate.json, signed with the gate's key (KeyFile): a cache that
// does not verify, forged or copied from another workspace, is ignored.
func State(ctx context.Context, dir string) (Status, error) {
	root, ok := jj.FindRoot(dir)
	if !ok {
		return Status{Locked: true}, nil
	}
	st := Status{IsJJRepo: true, Root: root}
	cachePath := filepath.Join(root, ".jj", CacheFile)
	secret, secretErr := stateKey()
	key, keyErr := jj.OpHeadsKey(root)
	if keyErr == nil && secretErr == nil {
		if e, ok := readCache(cachePath, secret, root); ok && e.Key == key {
			st.ChangeID, st.Description, st.FromCache = e.ChangeID, e.Description, true
			st.Locked = !jj.IsDeclared(st.Description)
			return st, nil
		}
	}
	// A snapshot of the working copy never changes a description, so @ is
	// read as the last operation recorded it, without one.
	cur, err := jj.New(root).CurrentRecorded(ctx)
	if err != nil {
		return Status{}, fmt.Errorf("read the working-copy change: %w", err)
	}
	st.ChangeID, st.Description = cur.ChangeID, cur.Description
	st.Locked = !cur.Declared()
	if st.Locked {
		MarkLocked(root) // jj moved and the gate is locked: a declaration by hand is worth a check
	}
	// Cache the answer only when no operation landed while jj read it: jj
	// may have read @ before an operation that moved it (a concurrent jj_init
	// or jj new) and the heads be read after, and an entry keyed on the new
	// heads with the old @ would hold the gate in the wrong state until the
	// next operation. Unchanged heads mean jj read @ at exactly that key.
	if after, err := jj.OpHeadsKey(root); err == nil && keyErr == nil && after == key && secretErr == nil {
		e := cacheEntry{Version: cacheVersion, Key: key, ChangeID: cur.ChangeID, Description: cur.Description}
		e.Sig = sign(secret, CacheFile, e.signed(root)...)
		writeCache(cachePath, e)
	}
	return st, nil
}

// readCache returns the cache entry at path when it is planq's own, for
// the workspace at root.
func readCache(path string, secret []byte, root string) (cacheEntry, bool) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<20 {
		return cacheEntry{}, false
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil || e.Version != cacheVersion || e.Key == "" {
		return cacheEntry{}, false
	}
	if !verify(secret, e.Sig, CacheFile, e.signed(root)...) {
		return cacheEntry{}, false
	}
	return e, true
}

// writeCache replaces the cache file atomically, so a concurrent hook reads
// the old entry or the new one, never half of one. It is best effort:
// without a cache the next call runs jj again. It does not fsync; a cache
// lost in a crash costs one jj run.
func writeCache(path string, e cacheEntry) {
	if data, err := json.Marshal(e); err == nil {
		_ = atomicfile.WriteUnsynced(path, data, 0o600)
	}
}
