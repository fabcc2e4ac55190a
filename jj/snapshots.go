package jj

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Snapshots is what the working copy's snapshots since an operation say:
// the files that changed on disk, behind jj's back, while @ was undeclared.
type Snapshots struct {
	// Files changed in the working copy between two jj operations while
	// its change @ had no description, in the order first seen (oldest
	// snapshot first), repo-relative with forward slashes.
	Files []string
	// Head is the newest operation read: the next check starts after it.
	Head string
	// Complete is false when the operation since which to look was not
	// found among the newest operations read (it was never recorded, or
	// more than maxOps operations ran since): Files covers those only.
	Complete bool
}

// A check reads the newest firstOps operations, and up to maxOps when the
// one it starts after is not among them; it lists the files of at most
// maxSnapshots snapshots.
const (
	firstOps     = 64
	maxOps       = 2048
	maxSnapshots = 200
)

// opLine is one operation as opLogTemplate renders it.
type opLine struct {
	ID       string `json:"id"`
	Snapshot bool   `json:"snapshot"`
}

const opLogTemplate = `"{\"id\":" ++ json(id) ++ ",\"snapshot\":" ++ json(snapshot) ++ "}\n"`

// evoLine is one version of a change as evologTemplate renders it.
type evoLine struct {
	Op          string   `json:"op"`
	Snapshot    bool     `json:"snapshot"`
	Description string   `json:"description"`
	Files       []string `json:"files"`
}

// evologTemplate renders a version of a change made by a snapshot with the
// files that snapshot changed (both ends of a rename), and any other
// version with its operation only.
const evologTemplate = `"{\"op\":" ++ json(operation.id()) ++
  ",\"snapshot\":" ++ json(operation.snapshot()) ++
  ",\"description\":" ++ json(commit.description()) ++
  ",\"files\":[" ++ if(operation.snapshot(), self.inter_diff().files().map(|f| json(f.source().path()) ++ "," ++ json(f.path())).join(",")) ++ "]}\n"`

// SnapshotsSince lists what changed in this workspace's working copy, on
// disk and not through jj, while its change @ was undeclared, in the
// operations after since (the operation heads when the session started or
// the last check ran; with none, nothing is listed). It reads jj's records
// as they are (--ignore-working-copy): a caller that wants the files as
// they are now runs it after a jj command that snapshots, such as the
// declaration itself.
//
// Every jj command except those run with --ignore-working-copy first
// records the files as they are on disk ("snapshot working copy"), and
// records an operation only when something changed. So each snapshot
// operation's change to @ is a set of files written by something other
// than jj; and a snapshot never changes a description, so @'s description
// in it says whether the gate was locked while they were written. What jj
// itself does to the files (checking out another change, a rebase, an
// undo) is no snapshot and is not listed. Snapshots of other workspaces
// are not listed either: their @ is not this one.
func (c *Client) SnapshotsSince(ctx context.Context, since []string) (Snapshots, error) {
	var out Snapshots
	var ops []opLine
	if len(since) == 0 {
		return out, nil
	}
	for _, limit := range []int{firstOps, maxOps} {
		raw, err := c.run(ctx, false, "op", "log", "--ignore-working-copy", "--no-graph", "--limit", fmt.Sprint(limit), "-T", opLogTemplate)
		if err != nil {
			return out, err
		}
		if ops, err = parseLines[opLine](raw, "jj op log"); err != nil {
			return out, err
		}
		out.Complete = false
		if len(ops) > 0 {
			out.Head = ops[0].ID
		}
		for i, op := range ops {
			if slices.Contains(since, op.ID) {
				ops, out.Complete = ops[:i], true
				break
			}
		}
		if out.Complete || len(ops) < limit {
			break
		}
	}
	snaps := map[string]bool{}
	var revs []string
	for _, op := range ops {
		if op.Snapshot && len(revs) < maxSnapshots {
			snaps[op.ID] = true
			revs = append(revs, "at_operation("+op.ID+", @)")
		}
	}
	if len(revs) == 0 {
		return out, nil
	}
	raw, err := c.run(ctx, false, "evolog", "--ignore-working-copy", "--no-graph", "--limit", fmt.Sprint(maxOps),
		"-r", strings.Join(revs, " | "), "-T", evologTemplate)
	if err != nil {
		return out, err
	}
	versions, err := parseLines[evoLine](raw, "jj evolog")
	if err != nil {
		return out, err
	}
	// evolog lists the newest versions first; report the oldest first.
	seen := map[string]bool{}
	done := map[string]bool{}
	for _, v := range slices.Backward(versions) {
		if !v.Snapshot || !snaps[v.Op] || done[v.Op] || IsDeclared(v.Description) {
			continue
		}
		done[v.Op] = true
		for _, f := range v.Files {
			if !seen[f] {
				seen[f] = true
				out.Files = append(out.Files, f)
			}
		}
	}
	return out, nil
}
