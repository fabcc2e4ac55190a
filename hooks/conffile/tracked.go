package conffile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/jj"
)

// Tracked returns those of files (absolute paths) that the repo at dir
// tracks: in jj's working-copy change (after a snapshot of the working
// copy when snapshot is set; else as jj last recorded it, so no file is
// taken in by asking), or, in a git repo without jj, in git's index. An
// info/exclude line does not untrack a tracked file, so such a file
// cannot keep planq's wiring to this machine. Outside a repo nothing is
// tracked.
func Tracked(ctx context.Context, dir, jjBin string, snapshot bool, files ...string) ([]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	if root, ok := jj.FindRoot(dir); ok {
		c := jj.New(root)
		if jjBin != "" {
			c.Bin = jjBin
		}
		rels, err := relPaths(root, files)
		if err != nil {
			return nil, err
		}
		got, err := c.TrackedFiles(ctx, "@", snapshot, rels...)
		if err != nil {
			return nil, fmt.Errorf("ask jj which of planq's files it tracks: %w", err)
		}
		return absPaths(root, got), nil
	}
	// A git repo without jj: dir is its root (a linked worktree's too).
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return nil, nil
	}
	root := dir
	rels, err := relPaths(root, files)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root, "ls-files", "-z", "--"}, rels...)...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ask git which of planq's files it tracks: %w", err)
	}
	var got []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			got = append(got, string(f))
		}
	}
	return absPaths(root, got), nil
}

// relPaths returns files relative to root, with slashes.
func relPaths(root string, files []string) ([]string, error) {
	out := make([]string, 0, len(files))
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s is not in the repo %s", f, root)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// absPaths returns the slash paths rels under root.
func absPaths(root string, rels []string) []string {
	out := make([]string, 0, len(rels))
	for _, r := range rels {
		out = append(out, filepath.Join(root, filepath.FromSlash(r)))
	}
	return out
}

// RefuseTracked refuses local scope when the project's repo tracks one of
// files, which planq's local wiring would then go into (and be pushed
// with): it names the file and the scopes that work. Outside local scope,
// and when uninstalling, it refuses nothing.
func (o Options) RefuseTracked(ctx context.Context, host string, files ...string) error {
	if o.Scope != ScopeLocal || o.Uninstall {
		return nil
	}
	tracked, err := Tracked(ctx, o.ProjectDir, o.JJBin, false, files...)
	if err != nil || len(tracked) == 0 {
		return err
	}
	return fmt.Errorf("%s is part of the repo (jj or git tracks it, and an info/exclude line does not untrack a file), so local scope cannot keep planq's wiring out of your changes: use --scope project to share the wiring with the repo, or --scope user (planq mcp install --host %s --scope user)", tracked[0], host)
}
