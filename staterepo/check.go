package staterepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// CheckBudget is how long `planq state status` and `planq doctor` spend
// checking the state repo's objects; a bigger repo is checked newest
// history first, and the result says how far the check got.
const CheckBudget = 2 * time.Second

// Damage is one problem with the state repo, with what to do about it.
type Damage struct {
	What string `json:"what"` // what is wrong, naming the file or ref
	Fix  string `json:"fix"`  // what repairs it: planq itself, or the commands to run
}

// Health is what Check found.
type Health struct {
	Damage   []Damage `json:"damage,omitempty"`
	Complete bool     `json:"complete"`        // false: the budget ran out before every object was checked
	Objects  int      `json:"objects_checked"` // objects checked
	Seconds  float64  `json:"seconds"`
}

// Check looks for damage in the state repo the way `git fsck` does — ref
// files, packed-refs, packs, loose objects, objects the refs reach — for
// at most budget (see gitstore.Repo.Check), and this code repo's worktree
// registration, and says for each problem what repairs it: the next write
// (which restores branches from their reflogs, repairs packed-refs and
// registers the worktree again), `planq state gc` (which moves damaged
// loose objects a pack holds a good copy of aside), or the commands to run.
// It reads only (but for gitstore.VerifiedPacksFile, its record of the
// packs it hashed).
func (s *Store) Check(ctx context.Context, budget time.Duration) (Health, error) {
	var h Health
	if !s.Initialized() {
		h.Complete = true
		return h, nil
	}
	r, err := s.openRepo()
	if err != nil {
		return h, err
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, budget)
	res := r.Check(cctx)
	cancel()
	h.Complete, h.Objects = res.Complete, res.Objects
	h.Damage = s.explain(r, res.Problems)
	if _, err := gitstore.WorktreeAt(s.Bare, s.Worktree); errors.Is(err, gitstore.ErrUnregistered) {
		if b := s.matchingBranch(r); b != "" {
			h.Damage = append(h.Damage, Damage{What: fmt.Sprintf("%s is linked to a registration in the state repo that is gone (deleted by hand?)", s.Worktree),
				Fix: fmt.Sprintf("the next planq write registers it again with branch %s, whose files it holds", b)})
		} else {
			what, fix, _ := strings.Cut(err.Error(), "; move it aside")
			h.Damage = append(h.Damage, Damage{What: what, Fix: "move it aside" + fix})
		}
	}
	h.Seconds = time.Since(start).Seconds()
	return h, nil
}

// explain turns gitstore's problems into damage reports with their fixes,
// one per problem, except that objects missing under one ref (a deleted
// pack) are reported together.
func (s *Store) explain(r *gitstore.Repo, probs []gitstore.Problem) []Damage {
	var out []Damage
	missing := map[string][]gitstore.Problem{}
	var refs []string
	for _, p := range probs {
		switch p.Kind {
		case gitstore.ProblemPackedRefs:
			out = append(out, Damage{What: fmt.Sprintf("%s %s", p.File, p.Detail),
				Fix: "the next planq write (or `planq state gc`) saves the file beside it and keeps its valid lines; a branch it loses is restored from its reflog"})
		case gitstore.ProblemRef:
			out = append(out, Damage{What: p.Detail, Fix: s.refFix(r, p.Ref)})
		case gitstore.ProblemPack:
			out = append(out, Damage{What: p.Detail, Fix: s.packFix(p)})
		case gitstore.ProblemObject:
			out = append(out, Damage{What: fmt.Sprintf("object %s (%s) %s", gitstore.Short(p.Object), p.File, strings.TrimPrefix(p.Detail, "object ")), Fix: s.objectFix(r, p)})
		case gitstore.ProblemMissing:
			if _, ok := missing[p.Ref]; !ok {
				refs = append(refs, p.Ref)
			}
			missing[p.Ref] = append(missing[p.Ref], p)
		}
	}
	sort.Strings(refs)
	for _, ref := range refs {
		ps := missing[ref]
		var ids []string
		for i, p := range ps {
			if i == 3 {
				ids = append(ids, fmt.Sprintf("and %d more", len(ps)-3))
				break
			}
			ids = append(ids, p.Type+" "+gitstore.Short(p.Object))
		}
		what := fmt.Sprintf("%d objects that %s reaches are missing (%s)", len(ps), ref, strings.Join(ids, ", "))
		if len(ps) == 1 {
			what = ps[0].Detail
		}
		fix := "bring the missing objects back: " + s.copyObjectsHint()
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			if h, _, err := r.ReadRef(ref); err == nil && ps[0].Object == h {
				fix = s.refFix(r, ref)
			} else {
				fix = fmt.Sprintf("the branch %s reads, but older history is gone; %s", b, fix)
			}
		}
		out = append(out, Damage{What: what, Fix: fix})
	}
	return out
}

// refFix says what happens to a branch whose ref is damaged or whose
// commit is missing: the reflog commit the next write restores, or the
// commands that recover it.
func (s *Store) refFix(r *gitstore.Repo, ref string) string {
	b, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return fmt.Sprintf("delete it (`git -C %s update-ref -d %s`) or point it at a commit the repo has", s.Bare, ref)
	}
	for _, log := range r.ReflogsOf(ref) {
		es, _ := gitstore.ReadReflog(log)
		for i := len(es) - 1; i >= 0; i-- {
			if r.Complete(es[i].New) == nil {
				return fmt.Sprintf("the next planq write (or `planq state gc`) restores %s to %s, its last good commit in the reflog %s", b, gitstore.Short(es[i].New), log)
			}
		}
	}
	return fmt.Sprintf("no reflog names a good commit of %s: bring the missing objects back (%s), or find its last commit with `git -C %s fsck --lost-found` and run `git -C %s update-ref %s COMMIT`",
		b, s.copyObjectsHint(), s.Bare, s.Bare, ref)
}

// packFix says how to repair a pack problem.
func (s *Store) packFix(p gitstore.Problem) string {
	name := filepath.Base(p.File)
	switch {
	case strings.HasSuffix(name, ".idx"):
		return fmt.Sprintf("restore %s from a backup, or bring its objects back (%s); then remove the index left alone: `rm %s`",
			strings.TrimSuffix(p.File, ".idx")+".pack", s.copyObjectsHint(), p.File)
	case strings.Contains(p.Detail, "has no index"):
		return fmt.Sprintf("rebuild its index: `git -C %s index-pack %s`", s.Bare, p.File)
	}
	return fmt.Sprintf("move it aside (`mv %s %s.damaged`) and bring its objects back: %s", strings.TrimSuffix(p.File, ".pack")+".{pack,idx}", filepath.Join(s.Bare, "objects", "pack"), s.copyObjectsHint())
}

// objectFix says how to repair a damaged loose object: `planq state gc`
// moves it aside when a pack holds a good copy; otherwise it has to come
// back from the state remote or a backup.
func (s *Store) objectFix(r *gitstore.Repo, p gitstore.Problem) string {
	if r.Packed(p.Object) {
		return fmt.Sprintf("a pack holds a good copy: `planq state gc` moves the damaged file to %s", filepath.Join(s.Bare, damagedDir))
	}
	id := p.Object.String()
	if u := s.Config.State.Remote; u != "" {
		return fmt.Sprintf("move it aside (`mkdir -p %[1]s && mv %[2]s %[1]s/`), then copy it back from the state remote: "+
			"`git clone --mirror %[3]s /tmp/planq-state-copy && T=$(git -C /tmp/planq-state-copy cat-file -t %[4]s) && git -C /tmp/planq-state-copy cat-file $T %[4]s | git -C %[5]s hash-object -w -t $T --stdin`",
			filepath.Join(s.Bare, damagedDir), p.File, u, id, s.Bare)
	}
	return fmt.Sprintf("move it aside (`mkdir -p %[1]s && mv %[2]s %[1]s/`) and restore %[2]s from a backup; without one, the history that needs it is lost (`git -C %[3]s fsck` lists what)",
		filepath.Join(s.Bare, damagedDir), p.File, s.Bare)
}

// damagedDir is where `planq state gc` moves damaged loose objects that a
// pack holds a good copy of (never deleted: they are someone's evidence).
const damagedDir = "planq-damaged"

// quarantineDamaged moves aside the loose objects that do not decompress
// or hash to their name and that a pack holds a good copy of, so git's
// repack does not stop at them; it returns those it moved, and an error
// naming the first damaged object no pack has, with its fix.
func (s *Store) quarantineDamaged(r *gitstore.Repo) (moved []string, err error) {
	for _, p := range r.DamagedLoose() {
		if !r.Packed(p.Object) {
			return moved, fmt.Errorf("object %s (%s) %s, and no pack holds a copy; %s", gitstore.Short(p.Object), p.File, p.Detail, s.objectFix(r, p))
		}
		dir := filepath.Join(s.Bare, damagedDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return moved, err
		}
		dst := filepath.Join(dir, p.Object.String()+"-"+s.now().UTC().Format("20060102T150405Z"))
		if err := os.Rename(p.File, dst); err != nil {
			return moved, fmt.Errorf("move the damaged object %s aside: %w", p.File, err)
		}
		moved = append(moved, fmt.Sprintf("%s (to %s)", p.File, dst))
	}
	return moved, nil
}

// damagedHead reports whether commit h (a branch head) is missing or
// unreadable: status then shows no worktree diff against it.
func damagedHead(r *gitstore.Repo, h plumbing.Hash) bool {
	if h.IsZero() {
		return false
	}
	_, err := r.Commit(h)
	return err != nil
}
