package staterepo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// AgentInfo describes one agent branch.
type AgentInfo struct {
	Name         string    `json:"name"`                     // the agent
	Branch       string    `json:"branch"`                   // its branch
	Head         string    `json:"head"`                     // the branch's commit
	LastCommit   time.Time `json:"last_commit"`              // when that commit was made
	LastMessage  string    `json:"last_message"`             // that commit's first message line
	CheckedOutAt string    `json:"checked_out_at,omitempty"` // the worktree holding it, if any
	Remote       string    `json:"remote,omitempty"`         // vs the remote as last fetched: up to date, ahead, behind, diverged, not pushed
}

// Status is the state repo as `planq state status` shows it.
type Status struct {
	Project      string      `json:"project"`                 // the project
	Home         string      `json:"home"`                    // PLANQ_HOME
	Bare         string      `json:"bare"`                    // the bare repo's path
	Initialized  bool        `json:"initialized"`             // whether the bare repo exists
	Agent        string      `json:"agent"`                   // the current agent
	AgentSource  string      `json:"agent_source"`            // where Agent came from (Store.AgentSource)
	Worktree     string      `json:"worktree"`                // this code repo's worktree path
	CheckedOut   string      `json:"checked_out,omitempty"`   // the agent the worktree holds
	Dirty        []string    `json:"dirty,omitempty"`         // uncommitted changes in the worktree
	Remote       string      `json:"remote,omitempty"`        // the configured remote
	Global       string      `json:"global,omitempty"`        // global's head
	GlobalRemote string      `json:"global_remote,omitempty"` // global vs the remote as last fetched
	Agents       []AgentInfo `json:"agents"`                  // every agent branch, last written first
	Notes        []string    `json:"notes,omitempty"`         // things a person should act on
	RemoteBehind []string    `json:"remote_behind,omitempty"` // never set: AgentInfo.Remote and GlobalRemote say which branches are behind
	Objects      *Objects    `json:"objects,omitempty"`       // what the objects take on disk
	// Health is what the integrity check found, when the caller ran it
	// (Check; `planq state status` does, the ui does not).
	Health *Health `json:"health,omitempty"`
}

// Damaged reports whether the check found damage.
func (st Status) Damaged() bool { return st.Health != nil && len(st.Health.Damage) > 0 }

// Objects is what the repo's objects take on disk.
type Objects struct {
	Loose int   `json:"loose"` // loose object files
	Packs int   `json:"packs"` // pack files
	Bytes int64 `json:"bytes"` // bytes under objects/
}

// Status reports the state repo's branches, worktree and remote.
func (s *Store) Status(ctx context.Context) (Status, error) {
	st := Status{Project: s.Project, Home: s.Home, Bare: s.Bare, Agent: s.Agent, AgentSource: s.AgentSource,
		Worktree: s.Worktree, Remote: s.Config.State.Remote, Agents: []AgentInfo{}}
	if !s.Initialized() {
		st.Notes = append(st.Notes, "no state repo yet: run `planq state init`, or let the first write create it")
		return st, nil
	}
	st.Initialized = true
	r, err := s.openRepo()
	if err != nil {
		return st, err
	}
	wts, err := gitstore.ListWorktrees(s.Bare)
	if err != nil {
		return st, err
	}
	branches, err := r.Branches()
	if err != nil {
		st.Notes = append(st.Notes, err.Error())
	}
	for _, b := range branches {
		h, err := r.Head(b)
		if err != nil {
			st.Notes = append(st.Notes, err.Error())
			continue
		}
		if b == GlobalBranch {
			st.Global = h.String()
			st.GlobalRemote = remoteState(r, b, h, st.Remote != "")
			continue
		}
		name, ok := strings.CutPrefix(b, AgentPrefix)
		if !ok {
			continue
		}
		info := AgentInfo{Name: name, Branch: b, Head: h.String(), Remote: remoteState(r, b, h, st.Remote != "")}
		if c, err := r.Commit(h); err == nil {
			info.LastCommit = c.Committer.When
			info.LastMessage = text.FirstLine(c.Message)
		} else {
			info.LastMessage = "(its commit cannot be read)"
		}
		for _, w := range wts {
			if w.Branch == b {
				info.CheckedOutAt = w.Path
			}
		}
		st.Agents = append(st.Agents, info)
	}
	sort.Slice(st.Agents, func(i, j int) bool { return st.Agents[i].LastCommit.After(st.Agents[j].LastCommit) })
	w, err := gitstore.WorktreeAt(s.Bare, s.Worktree)
	switch {
	case errors.Is(err, gitstore.ErrUnregistered):
		// Check reports it, with what repairs it
	case err != nil:
		st.Notes = append(st.Notes, err.Error())
	case w != nil:
		st.CheckedOut = strings.TrimPrefix(w.Branch, AgentPrefix)
		h, herr := r.Head(w.Branch)
		if herr != nil || damagedHead(r, h) {
			break // no diff against a commit that cannot be read; Check says why
		}
		var tree = gitstore.EmptyTree
		if !h.IsZero() {
			if tree, err = r.CommitTree(h); err != nil {
				break
			}
		}
		var stale []string
		if st.Dirty, stale, err = r.DirtyPaths(w, tree); err != nil {
			st.Notes = append(st.Notes, err.Error())
			break
		}
		if st.CheckedOut != s.Agent {
			st.Notes = append(st.Notes, fmt.Sprintf("the worktree holds agent %s but the current agent is %s (%s): writes go to branch %s, which is not checked out here; `planq create NAME` switches the worktree to a new agent", st.CheckedOut, s.Agent, s.AgentSource, s.Branch()))
		}
		switch {
		case syncPending(w):
			st.Notes = append(st.Notes, fmt.Sprintf("an update of %s was interrupted; the next planq write finishes it (committing there by hand before then would undo newer entries)", WorktreeDir))
		case len(stale) > 0:
			st.Notes = append(st.Notes, conflictError(w, stale[0]).Error())
		case len(st.Dirty) > 0:
			st.Notes = append(st.Notes, fmt.Sprintf("uncommitted changes in %s; the next planq write commits those of its files, `git -C %s commit -am ...` commits all", WorktreeDir, s.Worktree))
		}
	}
	if st.Remote == "" {
		st.Notes = append(st.Notes, "no remote: `planq state remote URL` sets one for push and pull")
	}
	if h, err := r.Head(s.Branch()); err == nil && h.IsZero() {
		if es, _ := gitstore.ReadReflog(filepath.Join(s.Bare, "logs", "refs", "heads", s.Branch())); len(es) > 0 {
			st.Notes = append(st.Notes, fmt.Sprintf("branch %s is missing; the next write restores it from its reflog", s.Branch()))
		}
	}
	o := &Objects{Loose: countLoose(s.Bare)}
	o.Packs, o.Bytes = objectSizes(s.Bare)
	st.Objects = o
	if p := maintenanceProblem(s.Bare); p != "" {
		st.Notes = append(st.Notes, "the last background maintenance failed: "+p+"; `planq state gc` runs it in the foreground and shows why")
	}
	return st, nil
}

// LogEntries returns the current agent's changelog entries, newest first —
// the newest n when n > 0 — and the problems found parsing the file.
func (s *Store) LogEntries(ctx context.Context, n int) ([]changelog.Entry, []changelog.Problem, error) {
	if !s.Initialized() {
		return nil, nil, nil
	}
	rd, err := s.reader()
	if err != nil {
		return nil, nil, err
	}
	defer rd.close()
	if n > 0 {
		es, probs, err := rd.tailEntriesOf(s.Branch(), ChangelogFile, n)
		return es, append(probs, rd.notes...), err
	}
	es, probs, err := rd.allEntries(s.Branch(), ChangelogFile)
	if err != nil {
		return nil, nil, err
	}
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
	return es, append(probs, rd.notes...), nil
}

// Aggregate builds the session changelog across every agent branch.
func (s *Store) Aggregate(ctx context.Context) (changelog.Summary, []changelog.Problem, error) {
	sum := changelog.Summary{Project: s.Project}
	if !s.Initialized() {
		return sum, nil, nil
	}
	rd, err := s.reader()
	if err != nil {
		return sum, nil, err
	}
	defer rd.close()
	branches, err := rd.r.Branches()
	if err != nil {
		return sum, nil, err
	}
	byAgent := map[string][]changelog.Entry{}
	var problems []changelog.Problem
	for _, b := range branches {
		name, ok := strings.CutPrefix(b, AgentPrefix)
		if !ok {
			continue
		}
		es, probs, err := rd.allEntries(b, ChangelogFile)
		if err != nil {
			return sum, nil, err
		}
		byAgent[name] = es
		problems = append(problems, probs...)
	}
	sum = changelog.Aggregate(byAgent)
	sum.Project = s.Project
	return sum, append(problems, rd.notes...), nil
}

// remoteState compares a branch with its remote-tracking ref (as of the last
// push, pull or fetch); "" when there is no remote.
func remoteState(r *gitstore.Repo, branch string, local plumbing.Hash, hasRemote bool) string {
	if !hasRemote {
		return ""
	}
	theirs, ok, err := r.ReadRef("refs/remotes/" + remoteName + "/" + branch)
	if err != nil {
		return "unknown"
	}
	if !ok {
		return "not pushed"
	}
	rel, err := r.Compare(local, theirs)
	if err != nil {
		return "unknown"
	}
	return [...]string{
		gitstore.Same:     "up to date",
		gitstore.Ahead:    "ahead (push)",
		gitstore.Behind:   "behind (pull)",
		gitstore.Diverged: "diverged (pull merges)",
	}[rel]
}
