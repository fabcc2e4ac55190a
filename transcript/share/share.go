// Package share carries a project's agent sessions between machines
// through its state repo: Export writes this machine's new transcript lines
// (redacted, see package redact) and session records to the lineage refs
// (staterepo, "Shared session lineages"), Push and Pull move those refs
// with the state remote, and Import appends what other machines shared to
// the local transcript store, kept apart from this machine's own lines
// (transcript.Store.Import), so a teammate's query_ancestor, resume and
// ui read them like their own.
package share

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/transcript/redact"
)

// MaxSegment bounds one transcript segment (and what one commit of a
// lineage adds): a larger backlog is shared in several commits.
const MaxSegment = 16 << 20

// Sharer moves one project's sessions between its transcript store and its
// state repo.
type Sharer struct {
	State  *staterepo.Store
	TS     *transcript.Store
	Origin string // this machine's origin id
	// Warn receives what a person should know about a lineage that was
	// skipped (a bad shared record); nil drops it.
	Warn func(string)
	// redactor, when set (tests and benchmarks seeding a store), replaces
	// the gitleaks redaction.
	redactor func() (lineRedactor, error)
}

type lineRedactor interface {
	Lines(data []byte, first int64) ([]byte, []redact.Finding)
}

// New returns the sharer of st's project.
func New(st *staterepo.Store) (*Sharer, error) {
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		return nil, err
	}
	origin, err := transcript.Origin(st.Home)
	if err != nil {
		return nil, err
	}
	return &Sharer{State: st, TS: ts, Origin: origin}, nil
}

func (sh *Sharer) warn(msg string) {
	if sh.Warn != nil {
		sh.Warn(msg)
	}
}

func (sh *Sharer) newRedactor() (lineRedactor, error) {
	if sh.redactor != nil {
		return sh.redactor()
	}
	return redact.New()
}

// Shared is what an export shared of one lineage.
type Shared struct {
	Root       string `json:"root"`
	Task       string `json:"task,omitempty"`
	Lines      int64  `json:"lines"`      // new transcript lines
	Bytes      int64  `json:"bytes"`      // their size before redaction
	Redactions int    `json:"redactions"` // secrets taken out of them
	Record     bool   `json:"record"`     // the record changed
}

// own reports whether this machine has anything of its own in the lineage:
// it recorded the lineage, ran a session in it, or wrote lines to it.
func own(sess *transcript.Session, o transcript.Own) bool {
	if sess.Origin == "" {
		return true
	}
	for _, a := range sess.Agents {
		if a.Origin == "" {
			return true
		}
	}
	var imported int64
	for _, sp := range o.Spans {
		imported += sp.End - sp.Start
	}
	return o.Size > imported
}

// ownBytesAfter counts the own bytes of o past off.
func ownBytesAfter(o transcript.Own, off int64) int64 {
	n := max(0, o.Size-off)
	for _, sp := range o.Spans {
		s, e := max(sp.Start, off), min(sp.End, o.Size)
		if e > s {
			n -= e - s
		}
	}
	return n
}

// stamp is the record's version as shared.json remembers it.
func stamp(sess *transcript.Session) string { return sess.Updated.UTC().Format(time.RFC3339Nano) }

// Pending lists the lineages whose next export shares something, and how
// many bytes of transcript each would share (before redaction), without
// reading the state repo: what `planq state status` reports. A lineage
// whose stamp is the one its last export saw (ShareState.Seen) has nothing
// new, and its record and states are not read: with a thousand lineages
// that was most of what status spent on them.
func (sh *Sharer) Pending() ([]Shared, error) {
	roots, err := sh.TS.RootNames()
	errs := []error{err}
	var sessions []*transcript.Session // those with something to share
	shared := map[string]Shared{}
	for _, root := range roots {
		hint := sh.TS.ShareState(root)
		if hint.Seen != nil {
			if now, err := sh.TS.Stamp(root); err == nil && now == *hint.Seen {
				continue
			}
		}
		sess, err := sh.TS.Load(root)
		switch {
		case errors.Is(err, transcript.ErrNoSession):
			continue
		case err != nil:
			errs = append(errs, err)
			continue
		}
		o, err := sh.TS.OwnState(root)
		if err != nil || !own(sess, o) {
			continue
		}
		b := ownBytesAfter(o, hint.Offset)
		rec := hint.Record != stamp(sess)
		if b > 0 || rec {
			sessions = append(sessions, sess)
			shared[root] = Shared{Root: root, Task: sess.Task, Bytes: b, Record: rec}
		}
	}
	transcript.SortNewestFirst(sessions)
	var out []Shared
	for _, sess := range sessions {
		out = append(out, shared[sess.Root])
	}
	return out, errors.Join(errs...)
}

// Export shares what this machine recorded since the last export, of every
// lineage (of those in roots, when it is not nil): its new transcript
// lines, redacted, as new segments of its directory in the lineage's ref,
// and its record. Before that it copies what the hosts' transcripts gained
// since the hooks last did (the vault's catch-up). A lineage that fails is
// named in the error; the others are exported all the same.
func (sh *Sharer) Export(ctx context.Context, roots []string) ([]Shared, error) {
	sessions, err := sh.TS.Roots()
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	want := map[string]bool{}
	for _, r := range roots {
		want[r] = true
	}
	var out []Shared
	for _, sess := range sessions {
		if roots != nil && !want[sess.Root] {
			continue
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if _, err := sh.TS.CatchUp(ctx, sess.Root, transcript.CopyOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("lineage %s: %w", sess.Root, err))
		}
		res, err := sh.exportLineage(ctx, sess)
		if err != nil {
			errs = append(errs, fmt.Errorf("share lineage %s: %w", sess.Root, err))
			continue
		}
		if res.Lines > 0 || res.Record {
			out = append(out, res)
		}
	}
	return out, errors.Join(errs...)
}

// exportLineage shares one lineage's news, in as many commits as its
// backlog needs (MaxSegment each).
func (sh *Sharer) exportLineage(ctx context.Context, sess *transcript.Session) (Shared, error) {
	res := Shared{Root: sess.Root, Task: sess.Task}
	root := sess.Root
	// The stamp first, then what it stamps, read again: what changes after
	// the stamp is news to the next Pending.
	seen, serr := sh.TS.Stamp(root)
	if serr == nil {
		if s, err := sh.TS.Load(root); err == nil {
			sess = s
		}
	}
	o, err := sh.TS.OwnState(root)
	if err != nil {
		return res, err
	}
	hint := sh.TS.ShareState(root)
	if !own(sess, o) || hint.Offset >= o.Size && hint.Record == stamp(sess) && hint.Commit != "" {
		// Nothing of this machine's, or nothing new since the last export:
		// remember that it saw this much.
		if serr == nil && (hint.Seen == nil || *hint.Seen != seen) {
			return res, sh.TS.UpdateShareState(ctx, root, func(st *transcript.ShareState) { st.Seen = &seen })
		}
		return res, nil
	}
	var done *transcript.Stamp // what the last commit of this export has seen, all of it shared
	if serr == nil {
		done = &seen
	}
	lt, ok, err := sh.State.ReadLineage(root)
	if err != nil {
		return res, err
	}
	parent, shared := "", int64(0)
	var prev Record
	if ok {
		parent, shared = lt.Commit, lt.SharedLines(sh.Origin)
		if data, ok, err := lt.Read(sh.Origin + "/" + staterepo.LineageRecordFile); err == nil && ok {
			prev, _ = parseRecord(data, root, sh.Origin)
		}
	}
	// Where this machine's line shared+1 starts: the hint, caught up (or
	// started over) when the ref says otherwise.
	off, at := hint.Offset, hint.Lines
	if at > shared || hint.Offset > o.Size {
		off, at = 0, 0
	}
	red, err := sh.newRedactor()
	if err != nil {
		return res, err
	}
	rec := recordOf(sess, sh.Origin)
	rec.Redactions = prev.Redactions
	for {
		var chunk bytes.Buffer
		skip := shared - at
		end := off
		err := sh.TS.ReadOwn(ctx, root, o, off, func(line []byte, e int64) bool {
			if skip > 0 {
				skip--
				at++
				off, end = e, e
				return true
			}
			if chunk.Len() > 0 && chunk.Len()+len(line) > MaxSegment {
				return false
			}
			chunk.Write(line)
			end = e
			return true
		})
		if err != nil {
			return res, err
		}
		n := int64(bytes.Count(chunk.Bytes(), []byte{'\n'}))
		rec.Lines = shared + n
		files := map[string][]byte{}
		var findings []redact.Finding
		if n > 0 {
			data, f := red.Lines(chunk.Bytes(), shared+1)
			findings = f
			rec.Redactions += len(f)
			files[staterepo.SegmentPath(sh.Origin, shared+1, n)] = data
		}
		recData := rec.encode()
		if ok && n == 0 {
			if cur, _, _ := lt.Read(sh.Origin + "/" + staterepo.LineageRecordFile); bytes.Equal(cur, recData) {
				return res, sh.remember(ctx, root, end, shared, stamp(sess), parent, parent, done)
			}
		}
		files[sh.Origin+"/"+staterepo.LineageRecordFile] = recData
		commit, err := sh.State.CommitLineage(ctx, root, parent, files, commitMessage(sh.Origin, shared+1, n, findings))
		if err != nil {
			return res, err
		}
		last := end >= o.Size || n == 0
		var seenAll *transcript.Stamp
		if last {
			seenAll = done
		}
		if err := sh.remember(ctx, root, end, shared+n, stamp(sess), commit, parent, seenAll); err != nil {
			return res, err
		}
		res.Lines += n
		res.Bytes += int64(chunk.Len())
		res.Redactions += len(findings)
		res.Record = true
		if last {
			return res, nil
		}
		parent, shared, off, at, ok = commit, shared+n, end, shared+n, true
		if lt, err = sh.State.ReadLineageAt(root, commit); err != nil {
			return res, err
		}
	}
}

// remember records in shared.json how far the lineage is shared; an
// import that was up to date with parent is up to date with commit too.
func (sh *Sharer) remember(ctx context.Context, root string, off, lines int64, rec, commit, parent string, seen *transcript.Stamp) error {
	return sh.TS.UpdateShareState(ctx, root, func(st *transcript.ShareState) {
		st.Offset, st.Lines, st.Record, st.Commit, st.Seen = off, lines, rec, commit, seen
		if st.Imported == parent || parent == "" {
			st.Imported = commit
		}
	})
}

// commitMessage says what a lineage commit shares and where it redacted.
func commitMessage(origin string, first, n int64, findings []redact.Finding) string {
	var b strings.Builder
	if n == 0 {
		fmt.Fprintf(&b, "%s: session record", origin)
	} else {
		fmt.Fprintf(&b, "%s: transcript lines %d-%d", origin, first, first+n-1)
	}
	if len(findings) > 0 {
		fmt.Fprintf(&b, ", %d secrets redacted\n\nRedacted (line: rule):\n", len(findings))
		for i, f := range findings {
			if i == 50 {
				fmt.Fprintf(&b, "… and %d more\n", len(findings)-50)
				break
			}
			fmt.Fprintf(&b, "%d: %s\n", f.Line, f.Rule)
		}
	}
	return b.String()
}

// Imported is what an import brought of one lineage.
type Imported struct {
	Root  string `json:"root"`
	Lines int64  `json:"lines"` // transcript lines appended
}

// Import takes into the transcript store what other machines shared of
// each lineage whose ref moved since its last import (of those in roots,
// when it is not nil): their transcript lines, appended after what the
// store has (never twice), and their records, merged into the lineage's.
func (sh *Sharer) Import(ctx context.Context, roots []string) ([]Imported, error) {
	refs, err := sh.State.LineageRefs()
	if err != nil {
		return nil, err
	}
	if roots != nil {
		only := map[string]string{}
		for _, r := range roots {
			if c, ok := refs[r]; ok {
				only[r] = c
			}
		}
		refs = only
	}
	var out []Imported
	var errs []error
	for root, commit := range refs {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if transcript.ValidChangeID(root) != nil || sh.TS.ShareState(root).Imported == commit {
			continue
		}
		n, err := sh.importLineage(ctx, root, commit)
		if err != nil {
			errs = append(errs, fmt.Errorf("import lineage %s: %w", root, err))
			continue
		}
		if n > 0 {
			out = append(out, Imported{Root: root, Lines: n})
		}
	}
	return out, errors.Join(errs...)
}

// importLineage imports one commit of a lineage.
func (sh *Sharer) importLineage(ctx context.Context, root, commit string) (int64, error) {
	lt, err := sh.State.ReadLineageAt(root, commit)
	if err != nil {
		return 0, err
	}
	var lines int64
	for _, origin := range lt.Origins() {
		if origin == sh.Origin || transcript.ValidOrigin(origin) != nil {
			continue
		}
		have, err := sh.TS.Imported(root, origin)
		if err != nil {
			return lines, err
		}
		for _, g := range lt.Segments(origin) {
			if g.End() <= have {
				continue
			}
			data, _, err := lt.Read(g.Path)
			if err != nil {
				return lines, err
			}
			if int64(bytes.Count(data, []byte{'\n'})) != g.Lines || len(data) == 0 || data[len(data)-1] != '\n' {
				return lines, fmt.Errorf("segment %s does not hold the %d lines its name says", g.Path, g.Lines)
			}
			res, err := sh.TS.Import(ctx, root, origin, g.First, data)
			if err != nil {
				return lines, err
			}
			lines += res.Lines
		}
		data, ok, err := lt.Read(origin + "/" + staterepo.LineageRecordFile)
		if err != nil {
			return lines, err
		}
		if !ok {
			continue
		}
		rec, err := parseRecord(data, root, origin)
		if err != nil {
			sh.warn(fmt.Sprintf("session lineage %s: %s's record skipped: %v", root, origin, err))
			continue
		}
		_, lerr := sh.TS.Load(root)
		fresh := errors.Is(lerr, transcript.ErrNoSession)
		if _, err := sh.TS.Update(ctx, root, func(sess *transcript.Session) error {
			merge(sess, rec, fresh)
			return nil
		}); err != nil {
			return lines, err
		}
	}
	return lines, sh.TS.UpdateShareState(ctx, root, func(st *transcript.ShareState) { st.Imported = commit })
}
