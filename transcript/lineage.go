package transcript

import (
	"context"
	"fmt"
	"strings"

	"github.com/planq-dev/planq/jj"
)

// Lineage is where a change stands in its session lineage. Store.Lineage is
// the one rule for whether a lineage is still whole; query_ancestor, resume
// and session-start all read it from there.
type Lineage struct {
	Change  jj.Change // the change asked about
	Root    string    // the lineage's root change
	Session *Session  // the recorded lineage; nil when none is stored
	// RootGone says the root no longer exists (abandoned): the session
	// cannot be resumed, though its transcript is kept.
	RootGone bool
	// RebasedAway says no other change of the lineage is an ancestor of
	// Change any more: it was rebased onto an unrelated parent.
	RebasedAway bool
}

// Whole reports whether the lineage has no discontinuity.
func (l Lineage) Whole() bool { return !l.RootGone && !l.RebasedAway }

// Notes says each discontinuity in one sentence, for a person or a model.
func (l Lineage) Notes() []string {
	var notes []string
	if l.RebasedAway {
		parents := make([]string, len(l.Change.Parents))
		for i, p := range l.Change.Parents {
			parents[i] = jj.ShortID(p)
		}
		notes = append(notes, fmt.Sprintf("Discontinuity: change %s was rebased away from its session root %s onto an unrelated parent (%s); the lineage's transcript was recorded before the rebase, and the parent's own history is elsewhere",
			jj.ShortID(l.Change.ChangeID), jj.ShortID(l.Root), strings.Join(parents, ", ")))
	}
	if l.RootGone {
		notes = append(notes, fmt.Sprintf("its session root %s no longer exists (abandoned), so the session cannot be resumed; its transcript is kept", jj.ShortID(l.Root)))
	}
	return notes
}

// Lineage finds the lineage ch belongs to (see RootFor) and checks it
// against the change graph with c. It records the root's fate in the
// session (NonResumable set when the root is gone, cleared when it is back,
// as after `jj undo`; best effort: a failed record changes no answer). ok is
// false when ch belongs to no lineage. When jj cannot answer a check, the
// lineage is taken as whole on that point.
func (s *Store) Lineage(ctx context.Context, c *jj.Client, ch jj.Change) (l Lineage, ok bool) {
	root, ok := s.RootFor(ch.ChangeID, ch.Description)
	if !ok {
		return Lineage{}, false
	}
	l = Lineage{Change: ch, Root: root}
	l.Session, _ = s.Load(root)
	if root != ch.ChangeID {
		l.RootGone, l.RebasedAway = s.breaks(ctx, c, ch, root, l.Session)
	}
	if l.Session != nil && l.Session.NonResumable != l.RootGone {
		if sess, err := s.MarkRootGone(ctx, root, l.RootGone); err == nil {
			l.Session = sess
		}
	}
	return l, true
}

// breaks checks a change that is not its lineage's root: whether the root
// is gone, and whether the change was rebased away from every other change
// of the lineage.
func (s *Store) breaks(ctx context.Context, c *jj.Client, ch jj.Change, root string, sess *Session) (rootGone, rebasedAway bool) {
	if exists, err := c.Exists(ctx, root); err == nil {
		rootGone = !exists
	}
	members := []string{root}
	if sess != nil {
		members = sess.Changes
	}
	var others []string
	for _, id := range members {
		if id != ch.ChangeID && ValidChangeID(id) == nil {
			others = append(others, id)
		}
	}
	rev := ch.CommitID
	if rev == "" {
		rev = ch.ChangeID
	}
	if len(others) > 0 {
		if anc, err := c.AnyAncestor(ctx, others, rev); err == nil {
			rebasedAway = !anc
		}
	}
	return rootGone, rebasedAway
}

// MarkRootGone records whether the root of the lineage rooted at root is
// gone (abandoned), which makes the session not resumable, and returns the
// updated session.
func (s *Store) MarkRootGone(ctx context.Context, root string, gone bool) (*Session, error) {
	reason := ""
	if gone {
		reason = fmt.Sprintf("its root change %s was abandoned", jj.ShortID(root))
	}
	return s.Update(ctx, root, func(r *Session) error {
		r.NonResumable, r.Reason = gone, reason
		return nil
	})
}
