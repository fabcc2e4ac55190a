package staterepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"gopkg.in/yaml.v3"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// Owner is who made a checkpoint, which decides who may delete it.
type Owner string

// The owners: checkpoints made from the CLI belong to the user, those made
// through planq_checkpoint to the model.
const (
	OwnerUser  Owner = "user"  // made from the CLI; the model may not delete it
	OwnerModel Owner = "model" // made through planq_checkpoint
)

// Checkpoint is a named save point of an agent's state and of the code: the
// state branch's commit and the code repo's jj operation. It is stored as
// checkpoints/<name>.yaml on the agent's branch, so it has history, travels
// with push and pull, and a person can read it.
type Checkpoint struct {
	Name        string    `yaml:"name" json:"name"`                     // its name, unique on the branch
	Owner       Owner     `yaml:"owner" json:"owner"`                   // who made it
	Agent       string    `yaml:"agent" json:"agent"`                   // whose state it saved
	StateCommit string    `yaml:"state_commit" json:"state_commit"`     // the agent branch's commit when it was made
	JJOp        string    `yaml:"jj_op,omitempty" json:"jj_op"`         // the code repo's jj operation id; empty outside jj repos
	Created     time.Time `yaml:"created" json:"created"`               // when it was made
	Note        string    `yaml:"note,omitempty" json:"note,omitempty"` // e.g. what an automatic checkpoint preceded
}

// ErrNoCheckpoint reports a checkpoint name that does not exist.
var ErrNoCheckpoint = errors.New("no such checkpoint")

// ErrNotOwner reports a model trying to delete a user's checkpoint.
var ErrNotOwner = errors.New("checkpoint belongs to the user")

func checkpointPath(name string) string { return CheckpointDir + "/" + name + ".yaml" }

// jjOpHead returns the code repo's current jj operation, or "" when the
// code repo is not a jj repo.
func (s *Store) jjOpHead(ctx context.Context) (string, error) {
	if _, err := os.Stat(filepath.Join(s.Root, ".jj")); err != nil {
		return "", nil
	}
	op, err := jj.New(s.Root).OpHead(ctx)
	if err != nil {
		return "", fmt.Errorf("read the code repo's jj operation: %w", err)
	}
	return op, nil
}

// CreateCheckpoint records the agent's state and the code repo's jj
// operation under name, owned by owner.
func (s *Store) CreateCheckpoint(ctx context.Context, name string, owner Owner) (Checkpoint, error) {
	if err := validCheckpointName(name); err != nil {
		return Checkpoint{}, err
	}
	if owner != OwnerUser && owner != OwnerModel {
		return Checkpoint{}, fmt.Errorf("checkpoint owner %q: use user or model", owner)
	}
	op, err := s.jjOpHead(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	var cp Checkpoint
	_, err = s.Update(ctx, fmt.Sprintf("checkpoint: create %q (%s)", name, owner), func(tx *Tx) error {
		if _, ok, err := tx.Read(checkpointPath(name)); err != nil {
			return err
		} else if ok {
			return fmt.Errorf("checkpoint %q already exists; pick another name or delete it first", name)
		}
		cp = Checkpoint{Name: name, Owner: owner, Agent: s.Agent, StateCommit: tx.Head().String(), JJOp: op, Created: s.now().UTC()}
		return writeCheckpoint(tx, cp)
	})
	return cp, err
}

func writeCheckpoint(tx *Tx, cp Checkpoint) error {
	data, err := yaml.Marshal(cp)
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	return tx.Write(checkpointPath(cp.Name), data)
}

// validCheckpointName checks a checkpoint name like an agent name.
func validCheckpointName(name string) error {
	if err := config.ValidName(name); err != nil {
		return fmt.Errorf("checkpoint name: %w", err)
	}
	return nil
}

// Checkpoints lists the agent's checkpoints, oldest first.
func (s *Store) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	if !s.Initialized() {
		return nil, nil
	}
	r, err := s.openRepo()
	if err != nil {
		return nil, err
	}
	return checkpointsOn(r, s.Branch())
}

// checkpointsOn lists the checkpoints on branch, oldest first.
func checkpointsOn(r *gitstore.Repo, branch string) ([]Checkpoint, error) {
	files, err := r.BranchFiles(branch)
	if err != nil {
		return nil, err
	}
	var out []Checkpoint
	for p, e := range files {
		name, ok := strings.CutPrefix(p, CheckpointDir+"/")
		if !ok || !strings.HasSuffix(name, ".yaml") || strings.Contains(name, "/") {
			continue
		}
		data, err := r.Blob(e.Hash)
		if err != nil {
			return nil, err
		}
		cp, err := parseCheckpoint(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, cp)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

func parseCheckpoint(data []byte) (Checkpoint, error) {
	var cp Checkpoint
	if err := yaml.Unmarshal(data, &cp); err != nil {
		return cp, fmt.Errorf("malformed checkpoint: %w", err)
	}
	if cp.Name == "" || plumbing.NewHash(cp.StateCommit).IsZero() {
		return cp, errors.New("malformed checkpoint: name or state_commit missing")
	}
	if cp.Owner != OwnerUser && cp.Owner != OwnerModel {
		cp.Owner = OwnerUser // unknown owners are protected
	}
	return cp, nil
}

// DeleteCheckpoint deletes a checkpoint. The model (by == OwnerModel) may
// delete only its own; the user may delete any.
func (s *Store) DeleteCheckpoint(ctx context.Context, name string, by Owner) error {
	if err := validCheckpointName(name); err != nil {
		return err
	}
	if !s.Initialized() {
		return fmt.Errorf("%w: %q (there is no state repo yet)", ErrNoCheckpoint, name)
	}
	_, err := s.Update(ctx, fmt.Sprintf("checkpoint: delete %q (by %s)", name, by), func(tx *Tx) error {
		data, ok, err := tx.Read(checkpointPath(name))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %q; list them with planq_checkpoint action=list or `planq checkpoint list`", ErrNoCheckpoint, name)
		}
		cp, err := parseCheckpoint(data)
		if err != nil {
			return err
		}
		if by == OwnerModel && cp.Owner != OwnerModel {
			return fmt.Errorf("%w: %q was made by the user; the model may list and restore it but not delete it", ErrNotOwner, name)
		}
		return tx.Delete(checkpointPath(name))
	})
	return err
}

// RestoreResult says what a restore did.
type RestoreResult struct {
	Restored Checkpoint `json:"restored"`          // the checkpoint brought back
	Auto     Checkpoint `json:"auto"`              // the checkpoint of the state before the restore
	Commit   string     `json:"commit"`            // the agent branch's new head
	JJ       string     `json:"jj"`                // what happened to the code: restored, unchanged, or not a jj repo
	Changed  []string   `json:"changed,omitempty"` // state files the restore changed
	// Dropped lists, per log file, the ids of the entries the current log
	// has and the checkpoint's lacks: they leave the current log and stay in
	// the automatic checkpoint (Auto), whose restore brings them back.
	Dropped map[string][]string `json:"dropped,omitempty"`
}

// RestoreCheckpoint brings back a checkpoint: first it saves the current
// state as an automatic checkpoint (owned by "by"), then runs
// `jj op restore` to the checkpoint's operation in the code repo, then
// commits the checkpoint's state files on top of the agent branch — a new
// commit, never a rewrite; checkpoints/ itself is kept as it is now. A
// worktree with uncommitted edits to files the restore changes is refused
// before anything happens.
func (s *Store) RestoreCheckpoint(ctx context.Context, name string, by Owner) (RestoreResult, error) {
	var res RestoreResult
	if err := validCheckpointName(name); err != nil {
		return res, err
	}
	if !s.Initialized() {
		return res, fmt.Errorf("%w: %q (there is no state repo yet)", ErrNoCheckpoint, name)
	}
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return res, err
	}
	defer lk.Release()
	r, err := s.openRepo()
	if err != nil {
		return res, err
	}
	branch := s.Branch()
	head, headTree, err := r.HeadTree(branch)
	if err != nil {
		return res, err
	}
	cp, cpTree, err := loadCheckpoint(r, headTree, name)
	res.Restored = cp
	if err != nil {
		return res, err
	}
	cur, err := r.TreeFiles(headTree)
	if err != nil {
		return res, err
	}
	tx := s.newTx(r, branch, head, headTree)
	defer tx.close()
	if res.Changed, err = stageRestore(tx, cur, cpTree); err != nil {
		return res, err
	}
	// Refuse before changing anything if a worktree has edits in the way.
	wts, err := gitstore.WorktreesOn(s.Bare, branch)
	if err != nil {
		return res, err
	}
	if err := refuseEditsBeforeRestore(r, wts, headTree, tx); err != nil {
		return res, err
	}
	if res.Dropped, err = droppedEntries(r, headTree, cpTree); err != nil {
		return res, err
	}
	op, err := s.jjOpHead(ctx)
	if err != nil {
		return res, err
	}
	res.Auto = Checkpoint{Name: autoCheckpointName(name, s.now(), cur), Owner: by, Agent: s.Agent, StateCommit: head.String(), JJOp: op,
		Created: s.now().UTC(), Note: "saved automatically before restoring " + name}
	if err := writeCheckpoint(tx, res.Auto); err != nil {
		return res, err
	}
	// The code first: if jj fails, nothing has changed.
	if res.JJ, err = s.restoreCode(ctx, cp.JJOp, op); err != nil {
		return res, err
	}
	tx.wts = wts
	tx.SetMessage(fmt.Sprintf("checkpoint: restore %q (state of %s; saved the previous state as %q)", name, jj.ShortID(cp.StateCommit), res.Auto.Name))
	h, err := tx.commit(ctx, "")
	if err != nil {
		if strings.HasPrefix(res.JJ, "restored") {
			return res, fmt.Errorf("the code was restored but the state was not: %w; `jj op restore %s` undoes the code", err, jj.ShortID(op))
		}
		return res, err
	}
	res.Commit = h.String()
	return res, nil
}

// loadCheckpoint reads checkpoint name from the tree of the agent branch's
// head and returns it with the tree of the state commit it saved (the
// checkpoint comes back too when that commit is missing).
func loadCheckpoint(r *gitstore.Repo, headTree plumbing.Hash, name string) (Checkpoint, plumbing.Hash, error) {
	data, ok, err := r.ReadFile(headTree, checkpointPath(name))
	if err != nil {
		return Checkpoint{}, plumbing.ZeroHash, err
	}
	if !ok {
		return Checkpoint{}, plumbing.ZeroHash, fmt.Errorf("%w: %q; list them with planq_checkpoint action=list or `planq checkpoint list`", ErrNoCheckpoint, name)
	}
	cp, err := parseCheckpoint(data)
	if err != nil {
		return Checkpoint{}, plumbing.ZeroHash, err
	}
	cpTree, err := r.CommitTree(plumbing.NewHash(cp.StateCommit))
	if err != nil {
		return cp, plumbing.ZeroHash, fmt.Errorf("checkpoint %q points at a state commit this repo lacks (%s); pull first: %w", name, cp.StateCommit, err)
	}
	return cp, cpTree, nil
}

// stageRestore stages the files of the checkpoint's tree over the current
// ones (cur), keeping checkpoints/ as it is now, and returns the paths it
// changed, sorted.
func stageRestore(tx *Tx, cur map[string]object.TreeEntry, cpTree plumbing.Hash) ([]string, error) {
	old, err := tx.r.TreeFiles(cpTree)
	if err != nil {
		return nil, err
	}
	var changed []string
	for p, e := range old {
		if strings.HasPrefix(p, CheckpointDir+"/") {
			continue
		}
		if c, ok := cur[p]; ok && c.Hash == e.Hash {
			continue
		}
		blob, err := tx.r.Blob(e.Hash)
		if err != nil {
			return nil, err
		}
		tx.Write(p, blob)
		changed = append(changed, p)
	}
	for p := range cur {
		if _, ok := old[p]; !ok && !strings.HasPrefix(p, CheckpointDir+"/") {
			tx.Delete(p)
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// refuseEditsBeforeRestore fails when a worktree has uncommitted edits to a
// file the restore staged in tx, naming the first.
func refuseEditsBeforeRestore(r *gitstore.Repo, wts []gitstore.Worktree, headTree plumbing.Hash, tx *Tx) error {
	for i := range wts {
		clash, stale, err := editsInTheWay(r, &wts[i], headTree, func(p string) bool { _, staged := tx.staged[p]; return staged })
		if err != nil {
			return err
		}
		if len(clash) == 0 {
			continue
		}
		if p := clash[0]; slices.Contains(stale, p) {
			return conflictError(&wts[i], p)
		}
		return fmt.Errorf("%s has uncommitted edits to %s, which the restore replaces; commit them first (git -C %s commit -am \"...\"), so the automatic checkpoint keeps them", wts[i].Path, clash[0], wts[i].Path)
	}
	return nil
}

// droppedEntries lists, per log file, the ids of the entries logged since
// the checkpoint: they leave the current log, and the automatic checkpoint
// (the current head) keeps them. It is nil when there are none.
func droppedEntries(r *gitstore.Repo, headTree, cpTree plumbing.Hash) (map[string][]string, error) {
	var dropped map[string][]string
	for _, fam := range logFamilies {
		now, err := familyBytes(r, headTree, fam)
		if err != nil {
			return nil, err
		}
		then, err := familyBytes(r, cpTree, fam)
		if err != nil {
			return nil, err
		}
		if _, newer, _ := changelog.MergeFile(then, now); len(newer) > 0 {
			if dropped == nil {
				dropped = map[string][]string{}
			}
			for _, e := range newer {
				dropped[fam] = append(dropped[fam], e.ID)
			}
		}
	}
	return dropped, nil
}

// autoBaseMax is the longest base of an automatic checkpoint's name, so
// that with its "-YYYYMMDD-HHMMSS" stamp the name stays within the 64
// characters config.ValidName allows.
const autoBaseMax = 48

// autoCheckpointName names the automatic checkpoint saved before restoring
// name at time now: auto-before-NAME-STAMP, made unique among the
// checkpoints the branch has (cur).
func autoCheckpointName(name string, now time.Time, cur map[string]object.TreeEntry) string {
	base := "auto-before-" + name
	if len(base) > autoBaseMax {
		base = base[:autoBaseMax]
	}
	return uniqueName(strings.TrimRight(base, "-."), now.UTC().Format("20060102-150405"), func(n string) bool {
		_, ok := cur[checkpointPath(n)]
		return ok
	})
}

// restoreCode brings the code repo back to jj operation to (a checkpoint's)
// from operation now, and says what happened to the code; when jj fails,
// nothing has changed.
func (s *Store) restoreCode(ctx context.Context, to, now string) (string, error) {
	switch {
	case to == "" || now == "":
		return "not a jj repo (or no operation recorded); code unchanged", nil
	case strings.HasPrefix(now, to) || strings.HasPrefix(to, now):
		return "unchanged (already at operation " + jj.ShortID(to) + ")", nil
	}
	if err := jj.New(s.Root).OpRestore(ctx, to); err != nil {
		return "", fmt.Errorf("jj op restore %s: %w (nothing was changed)", jj.ShortID(to), err)
	}
	return "restored to operation " + jj.ShortID(to), nil
}

// uniqueName returns base-stamp, adding -2, -3, … while taken says it is.
func uniqueName(base, stamp string, taken func(string) bool) string {
	n := base + "-" + stamp
	for i := 2; taken(n); i++ {
		n = fmt.Sprintf("%s-%s-%d", base, stamp, i)
	}
	return n
}
