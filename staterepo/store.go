// Package staterepo keeps an AI agent's memory in a git repository outside the
// code repository: one bare repo per project under PLANQ_HOME, a shared
// "global" branch, one "agent-NAME" branch per agent, and a linked worktree of
// an agent's branch at <code repo>/.planq/agent/.
//
// Layout and rules:
//
//   - PLANQ_HOME (default ~/.planq) holds state-repos/<project>.git. The
//     project name is the code repo's .planq/config.yaml "project:", else
//     what its state worktree links to, else the repo directory's name
//     made unique with a hash of its path (package project), so two repos
//     that are not the same project never share a state repo.
//   - The global branch holds plan.md, changelog.md (every agent's promoted
//     log), learnings.md, decisions.md and branches/. Its HEAD names global,
//     so a clone checks it out.
//   - An agent branch is an orphan branch holding scratch.md, context.md,
//     changelog.md, learnings.md, decisions.md, branches/, artifacts/, notes/
//     and checkpoints/. Agents read global through planq and add to it with
//     Promote, a union merge of entries.
//   - changelog.md, learnings.md and decisions.md are append-only files of
//     changelog entries, kept in segments: when an append would take the
//     live file past SegmentSize, its content moves unchanged to
//     archive/<name>-NNNNNN.md (free in git: the blob is reused). So a write
//     never rewrites a big blob, and readers take the tail of the live file.
//   - Every write is one commit on the agent's branch, made under a
//     cross-process lock (flock on <bare>/planq.lock, waited for with the
//     context and a timeout) held across read-modify-commit, so concurrent
//     writers never lose an entry. The commit is built from the changed
//     blobs and trees only (no worktree scan), its objects fsynced before
//     the branch moves; refs are updated with git's own lock-file protocol
//     and reflogs; worktrees that have the branch checked out get the
//     changed files and their index entries rewritten, so `git status`
//     there stays clean and git's own commands keep working. Once the
//     branch has moved the write has succeeded; what a killed or failed
//     write leaves behind, the next one clears first (recover.go).
//   - Maintenance (maintain.go) is git's repack, in the background after
//     writes and in `planq state gc`, never under the write lock.
//   - Files in the worktree are read and written without following links.
//
// The git plumbing — objects, packs, refs and reflogs, git's lock files,
// linked worktrees, their index and link-safe file access — is package
// staterepo/internal/gitstore; this package is the porcelain built on it:
// the Store and its transactions (tx.go), entries and scratch (entries.go),
// checkpoints, the context summary and its budget (context.go,
// budget.go), search, push and pull (remote.go), promotion, gc and
// recovery.
//   - The worktree is registered the way `git worktree add` does it
//     (<bare>/worktrees/<id>/{HEAD,commondir,gitdir,index} and a .git file),
//     so `git worktree list`, `git fsck` and hand commits work. The code repo
//     ignores it through the info/exclude of the git directory behind it
//     (EnsureIgnored), or .gitignore when asked or when no git directory
//     backs it.
//   - The current agent is Options.Agent, else PLANQ_AGENT, else the config's
//     "agent:", else the agent whose branch .planq/agent has checked out,
//     else "main"; its branch and worktree are created by the first write.
//   - A code repo has one worktree. Writes always go to the current agent's
//     branch, whatever the worktree holds; planq never switches the worktree
//     implicitly, because two sessions with different agents may share one
//     code repo. `planq create NAME` switches it (refusing while it has
//     uncommitted changes), and `planq state status` reports a mismatch.
//   - Hand edits in the worktree are respected: a write that changes a file
//     with uncommitted edits builds on (and commits) the edited copy; a copy
//     left stale by a writer that died mid-way is ignored in favour of the
//     branch, and a file edited on such a stale copy is refused with advice
//     that keeps both versions.
//   - Checkpoints are checkpoints/<name>.yaml on the agent branch: the state
//     commit, the code repo's jj operation, the owner (user or model). A
//     restore saves an automatic checkpoint, runs `jj op restore`, then
//     commits the old files on top (history is never rewritten).
//   - Push and pull go through go-git to a URL or a local path; pull
//     fast-forwards, or merges diverged branches (logs as a union of entries,
//     other files when one side changed them), and updates checked-out
//     worktrees in the same step or refuses when they hold edits in the way.
package staterepo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/project"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// Branch and directory names.
const (
	GlobalBranch = "global"       // the shared branch every agent promotes to
	AgentPrefix  = "agent-"       // prefix of an agent's branch name
	DefaultAgent = "main"         // the agent used when none is configured
	WorktreeDir  = ".planq/agent" // the worktree's path relative to the code repo root
	lockFile     = "planq.lock"   // flock'd file inside the bare repo
)

// Files on an agent branch and on global.
const (
	ScratchFile   = "scratch.md"   // the agent's working notes, replaced or appended to
	ContextFile   = "context.md"   // the agent's current focus
	ChangelogFile = "changelog.md" // log entries and handoffs, append-only
	LearningsFile = "learnings.md" // learnings, append-only
	DecisionsFile = "decisions.md" // decisions, append-only
	PlanFile      = "plan.md"      // the project's plan, on global
	BranchesDir   = "branches"     // branches/<code branch>.md: context per code branch or bookmark
	CheckpointDir = "checkpoints"  // checkpoints/<name>.yaml, on an agent branch
)

// Where the current agent's name came from (Store.AgentSource), in order of
// precedence.
const (
	SourceOption    = "--agent"                     // Options.Agent
	SourceEnv       = "PLANQ_AGENT"                 // the environment
	SourceConfig    = config.File + " agent"        // .planq/config.yaml
	SourceWorktree  = "the worktree " + WorktreeDir // the branch .planq/agent has checked out
	SourceWorkspace = "the jj workspace"            // WorkspaceAgent
	SourceDefault   = "default"                     // DefaultAgent
)

// WorkspaceAgent is the agent of a jj workspace added to the repo at root:
// its directory's name, made a valid agent name.
func WorkspaceAgent(root string) string { return config.SanitizeName(filepath.Base(root)) }

// ErrNotInitialized reports that the project's state repo does not exist yet.
var ErrNotInitialized = errors.New("state repo not initialised")

// ErrNoAgent reports that an agent branch does not exist.
var ErrNoAgent = errors.New("no such agent")

// Options says where a Store lives; zero values mean the defaults.
type Options struct {
	Dir         string              // a directory inside the code repo (required)
	Home        string              // PLANQ_HOME; default $PLANQ_HOME, else ~/.planq
	Agent       string              // the current agent; default $PLANQ_AGENT, else config, else "main"
	Project     string              // the project; default project.Name (config, worktree link, derived)
	Getenv      func(string) string // environment lookup; default os.Getenv
	LockTimeout time.Duration       // how long a write waits for the lock; default 30s
	Now         func() time.Time    // clock; default time.Now
	// Warn receives what a person should know about a command that
	// succeeded (a repair made, a stale lock removed, a worktree left for
	// the next write to finish); default: a "planq: warning:" line on stderr.
	Warn func(string)
	// Maintainer is the planq binary, which writes start as `planq state gc
	// --auto` to maintain the repo in the background; empty: writes run
	// that maintenance themselves (see maintain.go).
	Maintainer string
}

// Store is one code repo's view of its project's state repo.
type Store struct {
	Root    string // the code repo's root directory
	Home    string // PLANQ_HOME
	Project string // the project name, naming the bare repo
	// ProjectSource says how the name was found (see package project).
	ProjectSource project.Source
	Agent         string        // the current agent's name (branch AgentPrefix+Agent)
	Bare          string        // the bare repo's path
	Worktree      string        // Root/.planq/agent
	Config        config.Config // the code repo's .planq/config.yaml
	// AgentSource says where Agent came from: "--agent", "PLANQ_AGENT",
	// the config file, the worktree's checked-out branch, or "default".
	AgentSource string

	lockTimeout time.Duration
	now         func() time.Time
	getenv      func(string) string
	warnf       func(string)
	maintainer  string
	// beforePush, when set (by tests), runs between a push's fetch and its
	// update of the remote.
	beforePush func()
}

// warn reports something a person should know about a command that
// succeeded.
func (s *Store) warn(msg string) { s.warnf(msg) }

// debugf prints a line on stderr when PLANQ_DEBUG is set.
func (s *Store) debugf(format string, args ...any) {
	if s.getenv("PLANQ_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "planq: debug: "+format+"\n", args...)
	}
}

// locate resolves the project of the code repo at root as project.Locate
// does, taking o.Home and o.Project when given (a caller that resolved
// them already, a test's PLANQ_HOME).
func locate(root string, o Options, getenv func(string) string) (project.Location, error) {
	if o.Home == "" && o.Project == "" {
		return project.Locate(root, getenv)
	}
	home := o.Home
	if home == "" {
		var err error
		if home, err = config.StateHome(getenv); err != nil {
			return project.Location{}, err
		}
	}
	return project.LocateIn(root, home, o.Project)
}

// Open resolves the code repo root, the project, the agent and the state
// repo's paths. It reads .planq/config.yaml but writes nothing.
func Open(o Options) (*Store, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if o.Dir == "" {
		return nil, errors.New("staterepo: no directory given")
	}
	root, err := FindRoot(o.Dir)
	if err != nil {
		return nil, err
	}
	loc, err := locate(root, o, getenv)
	if err != nil {
		return nil, err
	}
	if err := loc.Usable(); err != nil {
		return nil, err
	}
	cfg, home, name, src := loc.Config, loc.Home, loc.Name, loc.Source
	agent := o.Agent
	asrc := SourceOption
	if agent == "" {
		agent, asrc = getenv("PLANQ_AGENT"), SourceEnv
	}
	// A workspace added to the repo (a parallel agent's) has its own agent
	// branch, named for its directory as jj names the workspace; the
	// project's configured agent is the main workspace's.
	secondary := jj.IsSecondaryWorkspace(root)
	if agent == "" && !secondary {
		agent, asrc = cfg.Agent, SourceConfig
	}
	worktree := filepath.Join(root, filepath.FromSlash(WorktreeDir))
	if agent == "" {
		agent, asrc = checkedOutAgent(worktree), SourceWorktree
	}
	if agent == "" && secondary {
		agent, asrc = WorkspaceAgent(root), SourceWorkspace
	}
	if agent == "" {
		agent, asrc = DefaultAgent, SourceDefault
	}
	if err := ValidAgentName(agent); err != nil {
		return nil, fmt.Errorf("%s: %w", asrc, err)
	}
	s := &Store{
		Root: root, Home: home, Project: name, ProjectSource: src, Agent: agent,
		Bare:     project.StateRepo(home, name),
		Worktree: worktree, Config: cfg, AgentSource: asrc,
		lockTimeout: o.LockTimeout, now: o.Now, getenv: getenv, warnf: o.Warn, maintainer: o.Maintainer,
	}
	if s.warnf == nil {
		s.warnf = func(msg string) { fmt.Fprintf(os.Stderr, "planq: warning: %s\n", msg) }
	}
	if s.lockTimeout <= 0 {
		s.lockTimeout = 30 * time.Second
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// checkedOutAgent returns the agent whose branch the worktree at path has
// checked out, or "" when there is none.
func checkedOutAgent(path string) string {
	agent, ok := strings.CutPrefix(gitstore.CheckedOutBranch(path), AgentPrefix)
	if !ok || ValidAgentName(agent) != nil {
		return ""
	}
	return agent
}

// AgentBranch returns the branch name of agent.
func AgentBranch(agent string) string { return AgentPrefix + agent }

// Branch returns the current agent's branch name.
func (s *Store) Branch() string { return AgentBranch(s.Agent) }

// ValidAgentName checks an agent name: config.ValidName's rules, which keep
// it safe as a ref component and a path component.
func ValidAgentName(name string) error {
	if err := config.ValidName(name); err != nil {
		return fmt.Errorf("agent name: %w", err)
	}
	return nil
}

// FindRoot returns the code repo root containing dir: the nearest ancestor
// with a .jj or .git entry, skipping the state worktree itself (a directory
// inside .planq/agent resolves to the repo that holds it).
func FindRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	abs = filepath.Clean(abs)
	// Inside <root>/.planq/agent: start above it.
	sep := string(filepath.Separator)
	marker := sep + filepath.FromSlash(WorktreeDir)
	if i := strings.Index(abs+sep, marker+sep); i >= 0 {
		abs = abs[:i]
		if abs == "" {
			abs = sep
		}
	}
	for d := abs; ; {
		for _, name := range []string{".jj", ".git"} {
			if _, err := os.Lstat(filepath.Join(d, name)); err == nil {
				return d, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("%s is not inside a jj or git repository; run planq in your code repo or pass --repo", abs)
}

// openRepo opens the project's bare repo, reporting warnings (a stale lock
// file removed) through the store.
func (s *Store) openRepo() (*gitstore.Repo, error) {
	r, err := gitstore.Open(s.Bare, s.warn)
	if err != nil {
		return nil, fmt.Errorf("%w: %s does not exist", ErrNotInitialized, s.Bare)
	}
	return r, nil
}

// ErrDamaged reports a damaged object, ref or index file; the message names
// it.
var ErrDamaged = gitstore.ErrDamaged

// ErrRefMoved reports that a branch changed under a compare-and-swap update.
var ErrRefMoved = gitstore.ErrRefMoved

// Initialized reports whether the project's bare repo exists.
func (s *Store) Initialized() bool {
	_, err := os.Stat(filepath.Join(s.Bare, "HEAD"))
	return err == nil
}
