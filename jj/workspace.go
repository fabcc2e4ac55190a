package jj

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/planq-dev/planq/internal/jjrepo"
)

// StaleNote is what planq says after updating a stale working copy.
const StaleNote = "This workspace's working copy was stale (another workspace's jj operation rewrote its change); planq ran `jj workspace update-stale`, so the files now match the change."

// Notes collects what jj commands did on their own during one call (a
// stale working copy brought up to date), for the caller to pass on.
type Notes struct {
	mu   sync.Mutex
	list []string
}

type notesKey struct{}

// WithNotes returns a context whose jj commands record their notes in the
// returned Notes.
func WithNotes(ctx context.Context) (context.Context, *Notes) {
	n := &Notes{}
	return context.WithValue(ctx, notesKey{}, n), n
}

// List returns the notes, each once, in the order they were made.
func (n *Notes) List() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

func noteFrom(ctx context.Context, msg string) {
	n, _ := ctx.Value(notesKey{}).(*Notes)
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range n.list {
		if m == msg {
			return
		}
	}
	n.list = append(n.list, msg)
}

// ErrStale is a workspace whose working copy another workspace's
// operation left behind ("The working copy is stale").
var ErrStale = errors.New("the working copy is stale")

// Workspace is one of a repo's jj workspaces: its name, where its working
// copy is, and its working-copy change.
type Workspace struct {
	Name   string `json:"name"`
	Root   string `json:"root"` // absolute; empty for workspaces made before jj 0.38
	Change Change `json:"change"`
}

// workspaceTemplate renders one workspace of `jj workspace list` as JSON
// (built on first use, as changeTemplate).
var workspaceTemplate = sync.OnceValue(func() string {
	return `"{" ++ ` +
		`"\"name\":" ++ json(name) ++ "," ++ ` +
		`"\"root\":" ++ json(if(root, root, "")) ++ "," ++ ` +
		`"\"change\":" ++ ` + changeJSONOf(`target`) + ` ++ "}\n"`
})

// Workspaces lists the repo's workspaces.
func (c *Client) Workspaces(ctx context.Context) ([]Workspace, error) {
	return c.workspaces(ctx, workspaceTemplate())
}

// WorkspaceDetail is a workspace with what has happened in it.
type WorkspaceDetail struct {
	Workspace
	Stat    string    `json:"stat"`    // its change's diff stat (width 80), as of its last snapshot
	Updated time.Time `json:"updated"` // when its working-copy commit was last rewritten
}

// workspaceDetailTemplate is workspaceTemplate with the diff stat and the
// committer's time.
var workspaceDetailTemplate = sync.OnceValue(func() string {
	return strings.TrimSuffix(workspaceTemplate(), ` ++ "}\n"`) +
		` ++ ",\"stat\":" ++ json(stringify(target.diff().stat(80)))` +
		` ++ ",\"updated\":" ++ json(target.committer().timestamp().format("%Y-%m-%dT%H:%M:%S%:z")) ++ "}\n"`
})

// WorkspaceDetails lists the repo's workspaces with their diff stats and
// times, in one jj process.
func (c *Client) WorkspaceDetails(ctx context.Context) ([]WorkspaceDetail, error) {
	out, err := c.run(ctx, false, "workspace", "list", "-T", workspaceDetailTemplate())
	if err != nil {
		return nil, err
	}
	all, err := parseLines[WorkspaceDetail](out, "jj workspace list")
	for i := range all {
		all[i].Change.Description = strings.TrimSuffix(all[i].Change.Description, "\n")
		all[i].Stat = strings.TrimSuffix(all[i].Stat, "\n")
	}
	return all, err
}

func (c *Client) workspaces(ctx context.Context, tmpl string) ([]Workspace, error) {
	out, err := c.run(ctx, false, "workspace", "list", "-T", tmpl)
	if err != nil {
		return nil, err
	}
	all, err := parseLines[Workspace](out, "jj workspace list")
	for i := range all {
		all[i].Change.Description = strings.TrimSuffix(all[i].Change.Description, "\n")
	}
	return all, err
}

// WorkspaceAddOptions says how to make a workspace.
type WorkspaceAddOptions struct {
	Name string // the workspace's name; default the directory's base name
	// Parents are the revisions its new working-copy change sits on; none
	// means on @'s parents, as jj does.
	Parents []string
	Message string // the new change's description
	// Colocate asks for a git worktree beside it (needs git >= 2.42);
	// false asks for none, whatever jj's git.colocate says.
	Colocate bool
}

// WorkspaceAdd makes a workspace at dest (a new or empty directory) and
// returns it.
func (c *Client) WorkspaceAdd(ctx context.Context, dest string, o WorkspaceAddOptions) (Workspace, error) {
	args := []string{"workspace", "add"}
	if o.Name != "" {
		args = append(args, "--name", o.Name)
	}
	for _, p := range o.Parents {
		args = append(args, "-r", p)
	}
	if o.Message != "" {
		args = append(args, "-m", o.Message)
	}
	if o.Colocate {
		args = append(args, "--colocate")
	} else {
		args = append(args, "--config", "git.colocate=false")
	}
	args = append(args, "--", dest)
	if _, err := c.run(ctx, true, args...); err != nil {
		return Workspace{}, err
	}
	name := o.Name
	if name == "" {
		name = filepath.Base(dest)
	}
	return c.WorkspaceNamed(ctx, name)
}

// WorkspaceNamed returns the workspace called name.
func (c *Client) WorkspaceNamed(ctx context.Context, name string) (Workspace, error) {
	all, err := c.Workspaces(ctx)
	if err != nil {
		return Workspace{}, err
	}
	for _, w := range all {
		if w.Name == name {
			return w, nil
		}
	}
	return Workspace{}, fmt.Errorf("no jj workspace named %q", name)
}

// CurrentWorkspace returns the workspace the client's directory is in.
func (c *Client) CurrentWorkspace(ctx context.Context) (Workspace, error) {
	root, err := c.Root(ctx)
	if err != nil {
		return Workspace{}, err
	}
	all, err := c.Workspaces(ctx)
	if err != nil {
		return Workspace{}, err
	}
	for _, w := range all {
		if w.Root != "" && SamePath(w.Root, root) {
			return w, nil
		}
	}
	for _, w := range all {
		if w.Change.WorkingCopy {
			return w, nil
		}
	}
	return Workspace{}, fmt.Errorf("jj lists no workspace at %s", root)
}

// WorkspaceForget makes jj forget the named workspaces; their changes stay
// in the graph and their directories on disk.
func (c *Client) WorkspaceForget(ctx context.Context, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	_, err := c.run(ctx, true, append([]string{"workspace", "forget", "--"}, names...)...)
	return err
}

// UpdateStale brings a stale working copy up to date with its change.
func (c *Client) UpdateStale(ctx context.Context) error {
	_, err := c.run(ctx, true, "workspace", "update-stale")
	return err
}

// SamePath reports whether a and b name the same path: equal once cleaned,
// or once their symbolic links are resolved (macOS's /tmp is /private/tmp).
func SamePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// isStale reports whether jj's message says the working copy is stale.
func isStale(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "working copy is stale")
}

// Squash moves all of from's changes into into and abandons from, emptied.
// message, when set, becomes into's description; otherwise into keeps its
// own and from's is dropped.
func (c *Client) Squash(ctx context.Context, from, into, message string) error {
	args := []string{"squash", "--from", from, "--into", into}
	if message != "" {
		args = append(args, "-m", message)
	} else {
		args = append(args, "--use-destination-message")
	}
	_, err := c.run(ctx, true, args...)
	return err
}

// RepoDir returns the .jj/repo directory that the workspace at root uses:
// root/.jj/repo itself in the repo's first workspace, or the one its
// .jj/repo file names in a workspace added later. It reads files only
// (package jjrepo, which the sandbox's entry point links alone).
func RepoDir(root string) (string, error) { return jjrepo.Dir(root) }

// MainRoot returns the root of the workspace that holds the repo the
// workspace at root belongs to (root itself unless root is a workspace
// added later): the directory that names the project.
func MainRoot(root string) (string, error) {
	repo, err := RepoDir(root)
	if err != nil {
		return "", err
	}
	return filepath.Dir(filepath.Dir(repo)), nil
}

// IsSecondaryWorkspace reports whether root is a workspace added to a repo
// that lives in another directory.
func IsSecondaryWorkspace(root string) bool {
	st, err := os.Stat(filepath.Join(root, ".jj", "repo"))
	return err == nil && !st.IsDir()
}

// BackingGitDir returns the git directory backing the jj repo of the
// workspace at root, whose info/exclude jj reads in every workspace. It
// reads files only; ok is false for a repo with another backend.
func BackingGitDir(root string) (dir string, ok bool) {
	repo, err := RepoDir(root)
	if err != nil {
		return "", false
	}
	store := filepath.Join(repo, "store")
	data, err := os.ReadFile(filepath.Join(store, "git_target"))
	if err != nil {
		return "", false
	}
	target := strings.TrimSpace(string(data))
	if !filepath.IsAbs(target) {
		target = filepath.Join(store, target)
	}
	if st, err := os.Stat(target); err != nil || !st.IsDir() {
		return "", false
	}
	return filepath.Clean(target), true
}
