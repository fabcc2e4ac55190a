package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

// WorkspacesDir is where planq makes the jj workspaces of parallel agents,
// under the repo's main working copy, which (with jj and git) ignores it.
const WorkspacesDir = ".planq/workspaces"

// NewWorkspace says which workspace to make for a parallel agent, from the
// repo of Options.Dir (the creating session's directory).
type NewWorkspace struct {
	Name string // the workspace's name, and its directory's under WorkspacesDir
	// Base is where its change starts: session.BaseFresh (trunk(), the
	// default) or session.BaseHead (the creating session's @).
	Base string
	// Subagent makes the change a child of the creating session's @,
	// described as part of that session's lineage.
	Subagent bool
	// SessionID is the creating session, Host its agent host.
	SessionID string
	Host      session.Host
	// Wire gives the workspace ws of the repo whose main working copy is
	// mainRoot the planq wiring (MCP server, hooks) of every agent host
	// wired there (hosts.WireWorkspace), so a parallel agent there is
	// gated too. Nil wires nothing.
	Wire func(ctx context.Context, mainRoot, ws string) error
}

// Workspace is a jj workspace planq made or found.
type Workspace struct {
	Name   string
	Path   string
	Change jj.Change
	// Existed says the workspace was there already (a session going back
	// into its worktree), so nothing was made.
	Existed bool
}

// CreateWorkspace makes a jj workspace for a parallel agent at
// WorkspacesDir/NAME of the repo's main working copy, on a change of its
// own, wired for every agent host the main working copy is wired for. A
// workspace of that name already there is returned as it is.
func CreateWorkspace(ctx context.Context, o Options, n NewWorkspace) (Workspace, error) {
	name := strings.TrimSpace(n.Name)
	if err := ValidWorkspaceName(name); err != nil {
		return Workspace{}, err
	}
	root, ok := jj.FindRoot(o.Dir)
	if !ok {
		return Workspace{}, fmt.Errorf("%s is not in a jj repo: parallel agents get jj workspaces, so run `jj git init --colocate` there first", o.Dir)
	}
	mainRoot, err := jj.MainRoot(root)
	if err != nil {
		return Workspace{}, err
	}
	main := o.jj(mainRoot)
	dest := filepath.Join(mainRoot, filepath.FromSlash(WorkspacesDir), name)

	if existing, err := main.WorkspaceNamed(ctx, name); err == nil {
		if existing.Root != "" && jj.SamePath(existing.Root, dest) {
			return Workspace{Name: name, Path: dest, Change: existing.Change, Existed: true}, n.wire(ctx, mainRoot, dest)
		}
		return Workspace{}, fmt.Errorf("jj already has a workspace named %q at %s; pick another name, or `planq agents remove %s`", name, existing.Root, name)
	}
	if _, err := os.Lstat(dest); err == nil {
		return Workspace{}, fmt.Errorf("%s already exists and is no jj workspace of this repo; move it away or pick another name", dest)
	}
	edit, err := conffile.ExcludeEdit(ctx, mainRoot, o.JJBin, "jj workspaces of parallel agents, made by planq", "/"+WorkspacesDir+"/")
	if err != nil {
		return Workspace{}, err
	}
	if err := conffile.Apply(edit); err != nil {
		return Workspace{}, err
	}

	opts := jj.WorkspaceAddOptions{Name: name, Colocate: colocate(ctx, main, mainRoot)}
	var (
		lineage string
		ts      *transcript.Store
	)
	switch {
	case n.Subagent || n.Base == session.BaseHead:
		cur, err := o.jj(root).Current(ctx)
		if err != nil {
			return Workspace{}, fmt.Errorf("jj: %w", err)
		}
		opts.Parents = []string{cur.CommitID}
		if n.Subagent {
			lineage, ts = o.lineageOf(root, n.SessionID, cur)
			opts.Message = subagentDescription(name, cur, lineage)
		}
	default:
		opts.Parents = []string{"trunk()"}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return Workspace{}, err
	}
	ws, err := main.WorkspaceAdd(ctx, dest, opts)
	if err != nil {
		return Workspace{}, fmt.Errorf("jj workspace add: %w", err)
	}
	out := Workspace{Name: name, Path: dest, Change: ws.Change}
	if err := n.wire(ctx, mainRoot, dest); err != nil {
		// A workspace the host cannot gate is worse than none.
		_, rerr := RemoveWorkspace(ctx, o, dest)
		return Workspace{}, errors.Join(fmt.Errorf("wire planq into the new workspace: %w", err), rerr)
	}
	if lineage != "" {
		// A failure here only costs the report to the parent session.
		_, _ = ts.Update(ctx, lineage, func(sess *transcript.Session) error {
			sess.AddWorkspace(transcript.Workspace{Name: name, Path: dest, Change: ws.Change.ChangeID,
				By: n.SessionID, Subagent: n.Subagent, Created: o.now().UTC()})
			return nil
		})
	}
	return out, nil
}

// Removed is what RemoveWorkspace did.
type Removed struct {
	Name   string
	Change jj.Change // the workspace's change, which stays in the graph
	// KeptDir says the directory was left (it is not one planq made, or
	// it holds files jj does not track); Why says which.
	KeptDir bool
	Why     string
}

// RemoveWorkspace forgets the jj workspace at path, keeping its change with
// every edit in it (the working copy is snapshotted first), and removes its
// directory when planq made it and jj has everything in it.
func RemoveWorkspace(ctx context.Context, o Options, path string) (Removed, error) {
	root, ok := jj.FindRoot(path)
	if !ok || !jj.SamePath(root, path) {
		return Removed{}, fmt.Errorf("%s is not a jj workspace", path)
	}
	if !jj.IsSecondaryWorkspace(root) {
		return Removed{}, fmt.Errorf("%s is the repo's main working copy, not a workspace of a parallel agent", root)
	}
	in := o.jj(root)
	// Snapshot: undescribed edits become part of the workspace's change.
	ws, err := in.CurrentWorkspace(ctx)
	if err != nil {
		return Removed{}, fmt.Errorf("jj: %w", err)
	}
	out := Removed{Name: ws.Name, Change: ws.Change}
	mainRoot, err := jj.MainRoot(root)
	if err != nil {
		return out, err
	}
	// The workspace's agent state worktree goes first: its writes are all
	// in the state repo already, unless someone edited files there.
	if st, err := staterepo.Open(staterepo.Options{Dir: root, Getenv: o.Getenv, Now: o.Now}); err == nil {
		if err := st.ReleaseWorktree(ctx); err != nil {
			out.KeptDir, out.Why = true, err.Error()
		}
	}
	if err := o.jj(mainRoot).WorkspaceForget(ctx, ws.Name); err != nil {
		return out, fmt.Errorf("jj workspace forget: %w", err)
	}
	planqMade := jj.SamePath(filepath.Dir(root), filepath.Join(mainRoot, filepath.FromSlash(WorkspacesDir)))
	switch {
	case out.KeptDir:
	case !planqMade:
		out.KeptDir, out.Why = true, "planq did not make it"
	default:
		if err := os.RemoveAll(root); err != nil {
			out.KeptDir, out.Why = true, err.Error()
		}
	}
	return out, nil
}

// lineageOf returns the lineage the creating session (or cur) is in, and
// the transcript store that records it; "" and nil when there is none.
func (o Options) lineageOf(dir, sessionID string, cur jj.Change) (string, *transcript.Store) {
	o.Dir = dir
	s, err := o.scope()
	if err != nil {
		return "", nil
	}
	if root, ok := s.LineageOf(cur); ok {
		return root, s.TS
	}
	if root, ok := s.SessionRoot(session.Event{SessionID: sessionID}); ok {
		return root, s.TS
	}
	return "", nil
}

// subagentDescription declares a subagent's change as part of its parent's
// work: what it is for, and the lineage it belongs to.
func subagentDescription(name string, parent jj.Change, lineage string) string {
	task := parent.Title()
	if task == "" {
		task = "the parent session's change " + jj.ShortID(parent.ChangeID)
	}
	desc := fmt.Sprintf("Subagent %s for: %s", name, task)
	if lineage != "" {
		desc = jj.WithSessionRoot(desc, lineage)
	}
	return desc
}

// colocate says whether a new workspace gets a git worktree too: when the
// main working copy is colocated and jj's git can make one (>= 2.42).
func colocate(ctx context.Context, main *jj.Client, mainRoot string) bool {
	if st, err := os.Stat(filepath.Join(mainRoot, ".git")); err != nil || !st.IsDir() {
		return false
	}
	g, err := main.Git(ctx)
	return err == nil && g.Suitable()
}

// wire gives the workspace at ws planq's wiring, as the main working copy
// has it (NewWorkspace.Wire).
func (n NewWorkspace) wire(ctx context.Context, mainRoot, ws string) error {
	if n.Wire == nil {
		return nil
	}
	return n.Wire(ctx, mainRoot, ws)
}

// ValidWorkspaceName accepts a name that is one directory name and a valid
// jj workspace name.
func ValidWorkspaceName(name string) error {
	if name == "" {
		return errors.New("the workspace name is empty")
	}
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." || strings.HasPrefix(name, "-") {
		return fmt.Errorf("workspace name %q is not one plain directory name: use letters, digits, '.', '_' and '-'", name)
	}
	if err := config.ValidName(name); err != nil {
		return fmt.Errorf("workspace name %q: %w", name, err)
	}
	return nil
}

// RemoveAgent forgets the workspace called name (RemoveWorkspace): its
// change stays, with every edit in it.
func RemoveAgent(ctx context.Context, o Options, name string) (Removed, error) {
	root, ok := jj.FindRoot(o.Dir)
	if !ok {
		return Removed{}, fmt.Errorf("%s is not in a jj repo", o.Dir)
	}
	mainRoot, err := jj.MainRoot(root)
	if err != nil {
		return Removed{}, err
	}
	main := o.jj(mainRoot)
	ws, err := main.WorkspaceNamed(ctx, name)
	if err != nil {
		return Removed{}, fmt.Errorf("%w; `planq agents` lists them", err)
	}
	if ws.Root != "" && jj.SamePath(ws.Root, mainRoot) {
		return Removed{}, fmt.Errorf("%s is the repo's main working copy; only workspaces added for parallel agents can be removed", name)
	}
	if st, err := os.Stat(ws.Root); ws.Root == "" || err != nil || !st.IsDir() {
		// Its directory is gone already: jj only needs to forget it.
		if err := main.WorkspaceForget(ctx, name); err != nil {
			return Removed{}, fmt.Errorf("jj workspace forget: %w", err)
		}
		return Removed{Name: name, Change: ws.Change, KeptDir: false}, nil
	}
	return RemoveWorkspace(ctx, o, ws.Root)
}
