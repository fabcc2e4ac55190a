package staterepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/internal/ignorefile"
	"github.com/planq-dev/planq/project"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// globalFiles is the first tree of the global branch.
var globalFiles = map[string]string{
	PlanFile:      "# Plan\n\nThe plan driving this project's agent sessions. Edit it by hand or through an agent.\n",
	ChangelogFile: "",
	LearningsFile: "",
	DecisionsFile: "",
	BranchesDir + "/README.md": "# Branch context\n\nOne file per code branch or jj bookmark, `<branch>.md`, holding what an agent\n" +
		"should know when it works on that branch. planq shows it in the context summary.\n",
}

// agentFiles is the first tree of an agent branch.
var agentFiles = map[string]string{
	ScratchFile:                 "",
	ContextFile:                 "",
	ChangelogFile:               "",
	LearningsFile:               "",
	DecisionsFile:               "",
	"artifacts/.gitkeep":        "",
	"notes/.gitkeep":            "",
	CheckpointDir + "/.gitkeep": "",
}

// Init creates the project's bare repo with its global branch if they do not
// exist yet; it reports whether it created anything. It is idempotent.
func (s *Store) Init(ctx context.Context) (created bool, err error) {
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return false, err
	}
	defer lk.Release()
	return s.initLocked(ctx)
}

func (s *Store) initLocked(ctx context.Context) (created bool, err error) {
	if !s.Initialized() {
		if _, err := git.PlainInit(s.Bare, true); err != nil && !errors.Is(err, git.ErrRepositoryAlreadyExists) {
			return false, fmt.Errorf("create state repo %s: %w", s.Bare, err)
		}
		// HEAD names global, so a clone of the state repo checks it out.
		if err := os.WriteFile(filepath.Join(s.Bare, "HEAD"), []byte("ref: refs/heads/"+GlobalBranch+"\n"), 0o644); err != nil {
			return false, err
		}
		created = true
		s.warnUnclaimedLegacy()
	}
	if err := project.RecordOwner(s.Bare, project.MainRoot(s.Root)); err != nil {
		return false, err
	}
	r, err := s.openRepo()
	if err != nil {
		return false, err
	}
	made, err := s.createBranch(ctx, r, GlobalBranch, globalFiles, "init: global branch for project "+s.Project)
	return created || made, err
}

// warnUnclaimedLegacy warns, when a project gets a new state repo, about an
// older one named after the same directory that no repo is using and
// nothing ties to this one: planq named projects that way before names were
// unique, so it may be this project's.
func (s *Store) warnUnclaimedLegacy() {
	if s.ProjectSource != project.FromDerived {
		return
	}
	main := project.MainRoot(s.Root)
	legacy := config.SanitizeName(filepath.Base(main))
	bare := project.StateRepo(s.Home, legacy)
	if _, err := os.Stat(filepath.Join(bare, "HEAD")); err != nil || len(project.InUseBy(bare, main)) > 0 {
		return
	}
	s.warn(fmt.Sprintf("created %s for this repo; an older state repo %s, named after the directory as planq did before, is used by no repo now. "+
		"If it is this project's, `planq state init --project %s` switches to it (what is written here meanwhile stays in %s)", s.Bare, bare, legacy, s.Bare))
}

// createBranch makes an orphan branch holding files, unless it exists. A
// branch that existed and was deleted, or whose ref is damaged, is restored
// from its reflog or refused (restoreBranch), never started over.
func (s *Store) createBranch(ctx context.Context, r *gitstore.Repo, branch string, files map[string]string, msg string) (bool, error) {
	head, err := r.Head(branch)
	if err != nil && !errors.Is(err, ErrDamaged) {
		return false, err
	}
	if err == nil && !head.IsZero() {
		if _, cerr := r.Commit(head); cerr == nil {
			return false, nil
		} else {
			err = fmt.Errorf("it points at commit %s, which %s", gitstore.Short(head), missingOrDamaged(cerr))
		}
	}
	if restored, err := s.restoreBranch(ctx, r, branch, err); err != nil || restored {
		return false, err
	}
	edits := map[string]gitstore.Edit{}
	for p, content := range files {
		h, err := r.WriteBlob([]byte(content))
		if err != nil {
			return false, err
		}
		edits[p] = gitstore.Edit{Hash: h}
	}
	tree, err := r.EditTree(plumbing.ZeroHash, edits)
	if err != nil {
		return false, err
	}
	c, err := r.WriteCommit(tree, nil, msg, s.signature())
	if err != nil {
		return false, err
	}
	return true, r.UpdateRef(ctx, gitstore.RefUpdate{Name: gitstore.BranchRef(branch), New: c, Msg: "planq: " + msg, Sig: s.signature()})
}

// ensureAgentLocked makes sure the state repo, agent's branch and — when
// this code repo has no state worktree yet — the worktree exist. The caller
// holds the lock.
func (s *Store) ensureAgentLocked(ctx context.Context, agent string) error {
	if _, err := s.initLocked(ctx); err != nil {
		return err
	}
	r, err := s.openRepo()
	if err != nil {
		return err
	}
	branch := AgentBranch(agent)
	if _, err := s.createBranch(ctx, r, branch, agentFiles, "create agent "+agent); err != nil {
		return err
	}
	w, err := gitstore.WorktreeAt(s.Bare, s.Worktree)
	if err != nil || w != nil {
		return err
	}
	if others, err := gitstore.WorktreesOn(s.Bare, branch); err != nil || len(others) > 0 {
		return err // checked out in another code repo: write to the branch only
	}
	if _, err := r.AddWorktree(ctx, s.Worktree, branch); err != nil {
		return err
	}
	return EnsureIgnored(s.Root, false)
}

// CreateResult says what Create did.
type CreateResult struct {
	Agent    string // the new agent
	Branch   string // its branch
	Worktree string // where it is checked out
	Switched string // the agent the worktree had checked out before, if any
}

// Create makes agent name's branch and checks it out in this code repo's
// worktree, switching the worktree away from another agent when it has no
// uncommitted changes. A name that exists, or is unsafe as a ref and path
// component, is refused.
func (s *Store) Create(ctx context.Context, name string, gitignore bool) (CreateResult, error) {
	res := CreateResult{Agent: name, Branch: AgentBranch(name), Worktree: s.Worktree}
	if err := ValidAgentName(name); err != nil {
		return res, err
	}
	lk, r, err := s.lockInitOpen(ctx)
	if err != nil {
		return res, err
	}
	defer lk.Release()
	if h, err := r.Head(res.Branch); err != nil {
		return res, err
	} else if !h.IsZero() {
		return res, fmt.Errorf("agent %q already exists (branch %s); pick another name, or set PLANQ_AGENT=%s to use it", name, res.Branch, name)
	}
	w, err := gitstore.WorktreeAt(s.Bare, s.Worktree)
	if err != nil {
		return res, err
	}
	if w != nil {
		if err := checkClean(r, w); err != nil {
			return res, fmt.Errorf("cannot switch %s to agent %s: %w", s.Worktree, name, err)
		}
	}
	if _, err := s.createBranch(ctx, r, res.Branch, agentFiles, "create agent "+name); err != nil {
		return res, err
	}
	if w != nil {
		res.Switched = strings.TrimPrefix(w.Branch, AgentPrefix)
		if err := r.SwitchWorktree(ctx, w, res.Branch); err != nil {
			return res, err
		}
	} else if _, err := r.AddWorktree(ctx, s.Worktree, res.Branch); err != nil {
		return res, err
	}
	return res, EnsureIgnored(s.Root, gitignore)
}

// checkClean fails when the worktree has uncommitted changes to tracked
// files, with advice that loses nothing.
func checkClean(r *gitstore.Repo, w *gitstore.Worktree) error {
	tree := gitstore.EmptyTree
	if w.Branch != "" {
		var err error
		if _, tree, err = r.HeadTree(w.Branch); err != nil {
			return err
		}
	}
	dirty, stale, err := r.DirtyPaths(w, tree)
	if err != nil {
		return err
	}
	if len(stale) > 0 {
		return conflictError(w, stale[0])
	}
	if len(dirty) > 0 {
		more := ""
		if len(dirty) > 3 {
			more = fmt.Sprintf(" and %d more", len(dirty)-3)
			dirty = dirty[:3]
		}
		return fmt.Errorf("it has uncommitted changes (%s%s); commit them first (git -C %s commit -am \"...\")", strings.Join(dirty, ", "), more, w.Path)
	}
	return nil
}

// ReleaseWorktree deletes this code directory's state worktree (its files
// and git's admin directory), whatever agent it has checked out, when
// everything in it is in the state repo; the branch stays. It is for a
// working copy about to go (a parallel agent's jj workspace). No worktree
// is no error.
func (s *Store) ReleaseWorktree(ctx context.Context) error {
	if !s.Initialized() {
		return nil
	}
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return err
	}
	defer lk.Release()
	w, err := gitstore.WorktreeAt(s.Bare, s.Worktree)
	if err != nil || w == nil {
		return err
	}
	r, err := s.openRepo()
	if err != nil {
		return err
	}
	if err := checkClean(r, w); err != nil {
		return fmt.Errorf("kept %s: %w", s.Worktree, err)
	}
	return w.Remove()
}

// Remove deletes agent name's worktree in this code repo (its files and
// git's admin directory). The branch stays until `planq state gc`. A
// worktree with uncommitted changes is kept unless force is set.
func (s *Store) Remove(ctx context.Context, name string, force bool) error {
	if err := ValidAgentName(name); err != nil {
		return err
	}
	if !s.Initialized() {
		return fmt.Errorf("%w for project %s; nothing to remove", ErrNotInitialized, s.Project)
	}
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return err
	}
	defer lk.Release()
	r, err := s.openRepo()
	if err != nil {
		return err
	}
	branch := AgentBranch(name)
	if h, err := r.Head(branch); err != nil {
		return err
	} else if h.IsZero() {
		return fmt.Errorf("%w: %q (no branch %s); `planq state status` lists the agents", ErrNoAgent, name, branch)
	}
	w, err := gitstore.WorktreeAt(s.Bare, s.Worktree)
	if err != nil {
		return err
	}
	if w == nil || w.Branch != branch {
		if others, _ := gitstore.WorktreesOn(s.Bare, branch); len(others) > 0 {
			return fmt.Errorf("agent %s is checked out at %s, not here; run `planq remove %s` in that repo", name, others[0].Path, name)
		}
		return fmt.Errorf("agent %s has no worktree here (%s); its branch %s stays until `planq state gc`", name, s.Worktree, branch)
	}
	if !force {
		if err := checkClean(r, w); err != nil {
			return fmt.Errorf("not removing %s: %w, or pass --force", s.Worktree, err)
		}
	}
	return w.Remove()
}

// ignoreLine is the pattern that keeps the state worktree out of the code
// repo, under the comment ignoreComment.
const (
	ignoreLine    = "/" + WorktreeDir + "/"
	ignoreComment = "planq state worktree (agent memory, kept in its own git repo)"
)

// EnsureIgnored makes the code repo at root ignore .planq/agent/: in its
// exclude file (ignorefile.Exclude: info/exclude of the git directory
// behind it, which jj reads in every workspace and git in every linked
// worktree), else — or when gitignore is set — in .gitignore, which is
// part of the working copy. A line that covers it already is enough; the
// file keeps every other byte and is replaced atomically.
func EnsureIgnored(root string, gitignore bool) error {
	target := filepath.Join(root, ".gitignore")
	if !gitignore {
		if p, ok, err := ignorefile.Exclude(root); err == nil && ok {
			target = p
		}
	}
	if err := ignorefile.Ensure(target, ignoreComment, ignoreLine); err != nil {
		return fmt.Errorf("ignore %s: %w", WorktreeDir, err)
	}
	return nil
}

// ClaimProject records in root's .planq/config.yaml the project the code
// repo at root belongs to, and returns it: name when given, else the one
// already recorded, else the one it has (project.Name: what its state
// worktree links to, else the directory's name made unique). home is
// PLANQ_HOME. A repo recorded for another project is refused, never
// renamed.
func ClaimProject(root, name, home string) (string, error) {
	loc, err := project.LocateIn(root, home, name)
	if err != nil {
		return "", err
	}
	if err := loc.Usable(); err != nil {
		return "", err
	}
	if loc.Config.Project == loc.Name {
		return loc.Name, nil
	}
	if loc.Config.Project != "" {
		return "", fmt.Errorf("this repo already belongs to project %q (%s); edit that file to rename it", loc.Config.Project, config.File)
	}
	if err := config.Set(root, "project", loc.Name); err != nil {
		return "", err
	}
	return loc.Name, nil
}
