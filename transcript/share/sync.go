package share

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// Enabled reports whether the project shares its sessions
// (state.sessions: shared).
func Enabled(c config.Config) bool { return c.State.Sessions == config.SessionsShared }

// PushResult is what Push did.
type PushResult struct {
	Shared []Shared `json:"shared,omitempty"` // what the export added
	staterepo.LineageSync
	Imported []Imported `json:"imported,omitempty"` // lineages the remote had moved, taken in
}

// Push exports this machine's news and sends the remote every lineage ref
// that is ahead of it. A lineage a teammate moved meanwhile is fetched and
// merged first, and its new lines imported.
func (sh *Sharer) Push(ctx context.Context) (PushResult, error) {
	var out PushResult
	shared, eerr := sh.Export(ctx, nil)
	out.Shared = shared
	sync, perr := sh.State.PushLineages(ctx, nil)
	out.LineageSync = sync
	var ierr error
	if len(sync.Moved) > 0 {
		out.Imported, ierr = sh.Import(ctx, sync.Moved)
	}
	return out, errors.Join(eerr, perr, ierr)
}

// PullResult is what Pull did.
type PullResult struct {
	staterepo.LineageSync
	Imported []Imported `json:"imported,omitempty"`
}

// Pull fetches the lineages the remote has that differ here (only roots,
// when not nil) and imports what other machines shared of them. It also
// finishes the import of a lineage whose ref a killed pull had moved.
func (sh *Sharer) Pull(ctx context.Context, roots []string) (PullResult, error) {
	var out PullResult
	sync, perr := sh.State.PullLineages(ctx, roots)
	out.LineageSync = sync
	imported, ierr := sh.Import(ctx, roots)
	out.Imported = imported
	if perr != nil && errors.Is(perr, staterepo.ErrNoRemote) {
		return out, perr
	}
	return out, errors.Join(perr, ierr)
}

// Fetch is the lazy pull of the lineages rooted at roots, for a query or a
// resume that needs one this machine does not have (or has behind): found
// says whether any of them is on the remote.
func (sh *Sharer) Fetch(ctx context.Context, roots []string) (found bool, err error) {
	roots = slices.Compact(slices.Sorted(slices.Values(roots)))
	res, err := sh.Pull(ctx, roots)
	if err != nil {
		return false, fmt.Errorf("fetch session lineages %v from the state remote: %w", roots, err)
	}
	return len(res.Missing) < len(roots), nil
}

// NeedsFetch reports the lineage to fetch from the state remote (remote,
// the project's state.remote; "" for none) for a query or resume of ch: the lineage ch belongs to when this machine lacks its
// record, or has one that does not know ch yet (a teammate pushed ch since
// the last pull); ch itself when it is in no lineage here (it may root one
// elsewhere). It is "" when there is no remote, or nothing to fetch.
func NeedsFetch(remote string, ch jj.Change, lin transcript.Lineage, inLineage bool) string {
	if remote == "" {
		return ""
	}
	switch {
	case !inLineage:
		return ch.ChangeID
	case lin.Session == nil || !slices.Contains(lin.Session.Changes, ch.ChangeID):
		return lin.Root
	}
	return ""
}

// maxAncestors bounds the ancestors FetchFor looks through for the root of
// a change's lineage.
const maxAncestors = 500

// maxLineageTries bounds the lineages FetchFor fetches looking for the one
// that records a change.
const maxLineageTries = 3

// FetchFor is the lazy fetch a query or resume of ch makes when NeedsFetch
// says root: that lineage when the remote has it. When it does not and root
// is ch itself (ch is in no lineage here and names none: a change a
// teammate's agent made after its session's root, without a Session
// trailer), it is the lineage of ch's nearest ancestor (c, ch's repo) that
// roots one on the remote and records ch, trying the nearest few. found
// says whether a lineage was fetched.
func (sh *Sharer) FetchFor(ctx context.Context, c *jj.Client, ch jj.Change, root string) (found bool, err error) {
	if found, err = sh.Fetch(ctx, []string{root}); found || err != nil || root != ch.ChangeID || c == nil {
		return found, err
	}
	rev := ch.CommitID
	if rev == "" {
		rev = ch.ChangeID
	}
	ids, err := c.AncestorIDs(ctx, rev, maxAncestors)
	if err != nil {
		return false, fmt.Errorf("find the session lineage of change %s: %w", jj.ShortID(ch.ChangeID), err)
	}
	remote, err := sh.State.RemoteLineages(ctx)
	if err != nil {
		return false, err
	}
	tries := 0
	for _, id := range ids {
		if id == ch.ChangeID || !remote[id] {
			continue
		}
		if ok, err := sh.Fetch(ctx, []string{id}); err != nil || !ok {
			return false, err
		}
		if r, err := sh.TS.RootOfChange(ch.ChangeID); err == nil && r == id {
			return true, nil
		}
		if tries++; tries == maxLineageTries {
			break
		}
	}
	return false, nil
}
