package staterepo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// Append-only files are kept in segments so that an append never rewrites
// more than SegmentSize bytes: changelog.md (and learnings.md,
// decisions.md) holds the newest entries, and when an append would take it
// past SegmentSize its content moves, unchanged, to
// archive/<name>-NNNNNN.md and the live file starts over. In git the move
// costs nothing (the blob is reused); readers go through the archive newest
// first when the live file has too few entries.
//
// Every write stores the live file again as a new blob, so SegmentSize
// bounds what one entry costs before maintenance packs it: at 256 KiB an
// average write stored a 128 KiB blob (~40 KiB compressed) and 100,000
// entries made 3.1 GB of loose objects; at 32 KiB it is ~16 KiB (~5 KiB
// compressed), and the live file still holds the ~50 newest entries the
// context summary reads. Repos written with bigger segments read the same;
// their live file rolls over at the next append.
const (
	SegmentSize = 32 << 10  // the live file's size past which an append rolls it over
	ArchiveDir  = "archive" // where rolled-over segments go
)

// segmentSize is SegmentSize; tests lower it.
var segmentSize = SegmentSize

// archiveName returns the path of segment n of file ("changelog.md" →
// "archive/changelog-000001.md").
func archiveName(file string, n int) string {
	return fmt.Sprintf("%s/%s-%06d.md", ArchiveDir, strings.TrimSuffix(file, ".md"), n)
}

// archiveNumber parses the segment number of an archive path of file; ok is
// false for other paths.
func archiveNumber(file, p string) (int, bool) {
	rest, ok := strings.CutPrefix(p, ArchiveDir+"/"+strings.TrimSuffix(file, ".md")+"-")
	if !ok {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, ".md")
	if !ok || len(rest) != 6 {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

// archivesIn lists file's archive segments among the archive tree's
// entries, oldest first.
func archivesIn(file string, entries []object.TreeEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Mode == filemode.Dir {
			continue
		}
		p := ArchiveDir + "/" + e.Name
		if _, ok := archiveNumber(file, p); ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// archiveList returns file's archive segments on the tree, oldest first.
func archiveList(r *gitstore.Repo, tree plumbing.Hash, file string) ([]string, error) {
	e, ok, err := r.FileEntry(tree, ArchiveDir)
	if err != nil || !ok || e.Mode != filemode.Dir {
		return nil, err
	}
	t, err := r.Tree(e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read archive tree: %w", err)
	}
	return archivesIn(file, t.Entries), nil
}

// appendSegmented appends data to file, first moving the live file to the
// next archive segment when the append would take it past SegmentSize.
func appendSegmented(tx *Tx, file string, data []byte) error {
	old, _, err := tx.Read(file)
	if err != nil {
		return err
	}
	if len(old) == 0 || len(old)+len(data) <= segmentSize {
		return tx.Append(file, data)
	}
	files, err := tx.Files(ArchiveDir)
	if err != nil {
		return err
	}
	next := 1
	for _, p := range files {
		if n, ok := archiveNumber(file, p); ok && n >= next {
			next = n + 1
		}
	}
	if err := tx.Write(archiveName(file, next), old); err != nil {
		return err
	}
	return tx.Write(file, data)
}

// allEntries parses file and its archive segments on branch, oldest first.
func (rd *reader) allEntries(branch, file string) ([]changelog.Entry, []changelog.Problem, error) {
	t, err := rd.tree(branch)
	if err != nil {
		return nil, nil, err
	}
	segs, err := archiveList(rd.r, t, file)
	if err != nil {
		return nil, nil, err
	}
	var out []changelog.Entry
	var probs []changelog.Problem
	for _, p := range append(segs, file) {
		data, _, err := rd.file(branch, p)
		if err != nil {
			return nil, nil, err
		}
		es, ps := changelog.ParseBytes(data)
		out = append(out, es...)
		for _, pr := range ps {
			pr.File = p
			probs = append(probs, pr)
		}
	}
	return out, probs, nil
}

// tailEntriesOf returns the newest n entries of file on branch, newest
// first, reading archive segments only when the live file has fewer, and
// the problems found in what it read.
func (rd *reader) tailEntriesOf(branch, file string, n int) ([]changelog.Entry, []changelog.Problem, error) {
	es, probs, err := rd.tail(branch, file, n)
	if err != nil || len(es) >= n {
		return es, probs, err
	}
	t, err := rd.tree(branch)
	if err != nil {
		return nil, nil, err
	}
	segs, err := archiveList(rd.r, t, file)
	if err != nil {
		return nil, nil, err
	}
	for i := len(segs) - 1; i >= 0 && len(es) < n; i-- {
		more, ps, err := rd.tail(branch, segs[i], n-len(es))
		if err != nil {
			return nil, nil, err
		}
		es = append(es, more...)
		probs = append(probs, ps...)
	}
	return es, probs, nil
}
