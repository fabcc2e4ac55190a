package ui

// TEMPORARY: this file stands in for the transcript and staterepo data APIs
// of /work/wt/ui-contract.md (branch uidata) until they are merged; it is
// deleted then, and the names below become calls of transcript.ReadPage,
// staterepo.Store.BranchEntries and the rest.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

type page struct {
	Lines []transcript.Line
	Start int64
	Next  int64
	Prev  int64
}

func readPage(ctx context.Context, path string, off int64, n int, render func([]byte) string) (page, error) {
	f, err := os.Open(path)
	if err != nil {
		return page{}, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return page{}, err
	}
	p := page{Start: off, Prev: -1, Next: -1}
	if off > 0 {
		p.Prev = 0
	}
	r := bufio.NewReaderSize(f, 1<<16)
	pos := off
	for len(p.Lines) < n {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			pos += int64(len(line))
			var num int64
			if off == 0 {
				num = int64(len(p.Lines) + 1)
			}
			p.Lines = append(p.Lines, transcript.Line{N: num, Text: render(bytes.TrimRight(line, "\r\n"))})
		}
		if err != nil {
			return p, nil
		}
	}
	if _, err := r.Peek(1); err == nil {
		p.Next = pos
	}
	return p, nil
}

func readPageBefore(ctx context.Context, path string, off int64, n int, render func([]byte) string) (page, error) {
	return readPage(ctx, path, 0, n, render)
}

func roots(s *transcript.Store) ([]*transcript.Session, error) {
	ents, err := os.ReadDir(s.ProjectDir())
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []*transcript.Session
	for _, e := range ents {
		if transcript.ValidChangeID(e.Name()) != nil {
			continue
		}
		if sess, err := s.Load(e.Name()); err == nil {
			out = append(out, sess)
		}
	}
	slices.SortFunc(out, func(a, b *transcript.Session) int { return b.Updated.Compare(a.Updated) })
	return out, nil
}

func gitShow(ctx context.Context, s *staterepo.Store, branch, p string) ([]byte, bool, error) {
	out, err := exec.CommandContext(ctx, "git", "--git-dir", s.Bare, "show", "refs/heads/"+branch+":"+p).Output()
	if err != nil {
		return nil, false, nil
	}
	return out, true, nil
}

func branchEntries(ctx context.Context, s *staterepo.Store, branch, file string, offset, n int) ([]changelog.Entry, int, error) {
	data, ok, err := gitShow(ctx, s, branch, file)
	if err != nil || !ok {
		return nil, 0, err
	}
	es, _ := changelog.ParseBytes(data)
	slices.Reverse(es)
	total := len(es)
	if offset > len(es) {
		offset = len(es)
	}
	es = es[offset:]
	if n > 0 && len(es) > n {
		es = es[:n]
	}
	return es, total, nil
}

func branchFile(ctx context.Context, s *staterepo.Store, branch, p string) ([]byte, bool, error) {
	return gitShow(ctx, s, branch, p)
}

func branchCheckpoints(ctx context.Context, s *staterepo.Store, branch string) ([]staterepo.Checkpoint, error) {
	out, err := exec.CommandContext(ctx, "git", "--git-dir", s.Bare, "ls-tree", "--name-only", "refs/heads/"+branch, staterepo.CheckpointDir+"/").Output()
	if err != nil {
		return nil, nil
	}
	var cps []staterepo.Checkpoint
	for _, name := range strings.Fields(string(out)) {
		data, ok, _ := gitShow(ctx, s, branch, name)
		var cp staterepo.Checkpoint
		if ok && yaml.Unmarshal(data, &cp) == nil {
			cps = append(cps, cp)
		}
	}
	return cps, nil
}

func headsKey(s *staterepo.Store) (string, error) {
	var parts []string
	_ = filepath.WalkDir(filepath.Join(s.Bare, "refs", "heads"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				parts = append(parts, fmt.Sprintf("%s@%d", p, fi.ModTime().UnixNano()))
			}
		}
		return nil
	})
	if fi, err := os.Stat(filepath.Join(s.Bare, "packed-refs")); err == nil {
		parts = append(parts, fmt.Sprintf("packed@%d", fi.ModTime().UnixNano()))
	}
	return strings.Join(parts, ","), nil
}
