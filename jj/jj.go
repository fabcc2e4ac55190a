// Package jj is a typed wrapper over the Jujutsu (jj) command line.
//
// Every call takes a context, runs jj with an argument vector (never a shell
// string), non-interactively (no pager, no colour, an editor that fails), and
// parses template output rather than human-formatted text.
//
// It also holds what planq builds on jj: the living summary's sections
// (summary.go); declaring, checkpointing and pushing a change, and the
// "Session:" trailer (workflow.go); a lineage's revsets (lineage.go);
// workspaces (workspace.go); and the jj and git versions planq needs
// (version.go, git.go). Some of it reads jj's files instead of running jj,
// for the hooks: the repo root (FindRoot), its git directory
// (BackingGitDir), the operation heads (opheads.go).
package jj

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds a single jj invocation when the context has no deadline.
const DefaultTimeout = 2 * time.Minute

// Default identity used for commits when jj has no user.name / user.email.
const (
	DefaultUserName  = "planq agent"
	DefaultUserEmail = "planq@localhost"
)

// Typed errors; a *Error wraps one of them (or none) and carries jj's message.
var (
	ErrNoJJ           = errors.New("jj is not installed")
	ErrNotRepo        = errors.New("not a jj repository")
	ErrImmutable      = errors.New("commit is immutable")
	ErrPushRefused    = errors.New("push refused")
	ErrNoSuchRevision = errors.New("no such revision")
	ErrBadRevset      = errors.New("invalid revision expression")
)

// Error is a failed jj invocation: the arguments, jj's own message and, when
// recognised, the kind of failure.
type Error struct {
	Args   []string
	Stderr string
	Kind   error
}

// Error returns jj's own message, without Go error-chain decoration.
func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" && e.Kind != nil {
		msg = e.Kind.Error()
	}
	if msg == "" {
		msg = "failed"
	}
	return msg
}

// Unwrap returns the error's kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// Client runs jj in one directory.
type Client struct {
	Dir     string        // directory jj runs in (a repo or a directory to init)
	Bin     string        // jj executable; default "jj" from PATH
	Timeout time.Duration // per-call bound when ctx has none; default DefaultTimeout
	Env     []string      // extra environment (KEY=VALUE), after the defaults

	identOnce sync.Once
	identEnv  []string
}

// New returns a Client for dir.
func New(dir string) *Client { return &Client{Dir: dir} }

// Change is one jj change (a commit and its stable change id).
type Change struct {
	ChangeID    string `json:"change_id"`
	CommitID    string `json:"commit_id"`
	Description string `json:"description"`
	Empty       bool   `json:"empty"`
	Conflict    bool   `json:"conflict"`
	// ConflictedFiles are the paths with conflicts, when Conflict.
	ConflictedFiles []string  `json:"conflicted_files,omitempty"`
	Immutable       bool      `json:"immutable"`
	Root            bool      `json:"root"`
	WorkingCopy     bool      `json:"working_copy"` // this workspace's @
	Parents         []string  `json:"parents"`      // parent change ids
	Author          string    `json:"author"`
	Email           string    `json:"email"`
	Timestamp       time.Time `json:"timestamp"`
	Bookmarks       []string  `json:"bookmarks,omitempty"`
}

// ShortID returns the first 12 characters of the change id.
func (c Change) ShortID() string { return ShortID(c.ChangeID) }

// ShortID returns the first 12 characters of a change or commit id, as planq
// shows ids to people and models.
func ShortID(id string) string { return short(id, 12) }

// Title returns the first line of the description.
func (c Change) Title() string {
	t, _, _ := strings.Cut(c.Description, "\n")
	return strings.TrimSpace(t)
}

// IsDeclared reports whether a change with this description has been declared:
// the description is not blank. The gate is unlocked exactly when @ is
// declared; this is the one place that rule is written.
func IsDeclared(description string) bool { return strings.TrimSpace(description) != "" }

// Declared reports whether the change has been declared (see IsDeclared).
func (c Change) Declared() bool { return IsDeclared(c.Description) }

// FileChange is one path changed by a change.
type FileChange struct {
	Path   string `json:"path"`
	Status string `json:"status"` // added, modified, removed, renamed or copied
	Source string `json:"source,omitempty"`
}

// FindRoot walks up from dir looking for a .jj directory, without running jj.
func FindRoot(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if st, err := os.Stat(filepath.Join(dir, ".jj")); err == nil && st.IsDir() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// changeTemplate renders one change as a JSON object on a line of its own.
// It is built on first use, not when the package starts: the gate's hook
// process links package jj and runs no jj log.
var changeTemplate = sync.OnceValue(func() string { return changeJSONOf("self") + ` ++ "\n"` })

// changeJSONOf is the template of the JSON object of the commit that the
// template expression commit names ("self" in jj log, "target" in jj
// workspace list).
func changeJSONOf(commit string) string {
	return strings.NewReplacer("C.", commit+".").Replace(`"{" ++
  "\"change_id\":" ++ json(C.change_id()) ++
  ",\"commit_id\":" ++ json(C.commit_id()) ++
  ",\"description\":" ++ json(C.description()) ++
  ",\"empty\":" ++ json(C.empty()) ++
  ",\"conflict\":" ++ json(C.conflict()) ++
  ",\"conflicted_files\":[" ++ if(C.conflict(), C.conflicted_files().map(|e| json(e.path().display())).join(",")) ++ "]" ++
  ",\"immutable\":" ++ json(C.immutable()) ++
  ",\"root\":" ++ json(C.root()) ++
  ",\"working_copy\":" ++ json(C.current_working_copy()) ++
  ",\"parents\":[" ++ C.parents().map(|p| json(p.change_id())).join(",") ++ "]" ++
  ",\"author\":" ++ json(C.author().name()) ++
  ",\"email\":" ++ json(C.author().email()) ++
  ",\"timestamp\":" ++ json(C.author().timestamp().format("%Y-%m-%dT%H:%M:%S%:z")) ++
  ",\"bookmarks\":[" ++ C.local_bookmarks().map(|b| json(b.name())).join(",") ++ "]" ++
  "}"`)
}

// filesTemplate renders the files a change touches, one JSON object a line.
const filesTemplate = `self.diff().files().map(|f| "{" ++
  "\"path\":" ++ json(f.path().display()) ++
  ",\"status\":" ++ json(f.status()) ++
  ",\"source\":" ++ json(f.source().path().display()) ++
  "}\n").join("")`

// Root returns the workspace root of the repo containing c.Dir.
func (c *Client) Root(ctx context.Context) (string, error) {
	out, err := c.run(ctx, false, "root")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// IsRepo reports whether c.Dir is inside a jj repo, without running jj.
func (c *Client) IsRepo() bool {
	_, ok := FindRoot(c.Dir)
	return ok
}

// Current returns the working-copy change @.
func (c *Client) Current(ctx context.Context) (Change, error) { return c.Show(ctx, "@") }

// CurrentRecorded returns the working-copy change as the last operation
// recorded it, without snapshotting the working copy first (jj
// --ignore-working-copy): cheaper, and exact for what a snapshot never
// changes, such as the description the gate reads.
func (c *Client) CurrentRecorded(ctx context.Context) (Change, error) {
	changes, err := c.log(ctx, "@", 2, "--ignore-working-copy")
	if err != nil {
		return Change{}, err
	}
	if len(changes) != 1 {
		return Change{}, &Error{Args: []string{"log", "-r", "@"}, Stderr: "the working-copy change @ resolves to no single change", Kind: ErrNoSuchRevision}
	}
	return changes[0], nil
}

// Show returns the single change rev resolves to.
func (c *Client) Show(ctx context.Context, rev string) (Change, error) {
	changes, err := c.log(ctx, rev, 2)
	if err != nil {
		return Change{}, err
	}
	switch len(changes) {
	case 0:
		return Change{}, &Error{Args: []string{"log", "-r", rev}, Stderr: fmt.Sprintf("Revision %q resolves to no change", rev), Kind: ErrNoSuchRevision}
	case 1:
		return changes[0], nil
	default:
		return Change{}, &Error{Args: []string{"log", "-r", rev}, Stderr: fmt.Sprintf("Revision %q resolves to more than one change", rev), Kind: ErrNoSuchRevision}
	}
}

// Log returns the changes of a revset, newest first.
func (c *Client) Log(ctx context.Context, revset string) ([]Change, error) {
	return c.log(ctx, revset, 0)
}

func (c *Client) log(ctx context.Context, revset string, limit int, extra ...string) ([]Change, error) {
	args := append([]string{"log", "--no-graph", "-r", revset, "-T", changeTemplate()}, extra...)
	if limit > 0 {
		args = append(args, "--limit", fmt.Sprint(limit))
	}
	out, err := c.run(ctx, false, args...)
	if err != nil {
		return nil, err
	}
	return parseChanges(out)
}

// Stat record markers around the diff stat in LogWithStat's output.
const statStart, statEnd = "\x1eSTAT\n", "\x1eEND\n"

// LogWithStat returns the changes of revset, newest first, and the diff stat
// (width columns) of the working-copy change when revset includes it, all in
// one jj process.
func (c *Client) LogWithStat(ctx context.Context, revset string, width int) ([]Change, string, error) {
	tmpl := changeTemplate() + ` ++ if(current_working_copy, "\x1eSTAT\n" ++ self.diff().stat(` + fmt.Sprint(width) + `) ++ "\x1eEND\n")`
	out, err := c.run(ctx, false, "log", "--no-graph", "-r", revset, "-T", tmpl)
	if err != nil {
		return nil, "", err
	}
	stat := ""
	if i := bytes.Index(out, []byte(statStart)); i >= 0 {
		rest := out[i+len(statStart):]
		if j := bytes.Index(rest, []byte(statEnd)); j >= 0 {
			stat = string(rest[:j])
			out = append(out[:i:i], rest[j+len(statEnd):]...)
		}
	}
	changes, err := parseChanges(out)
	return changes, stat, err
}

// parseChanges decodes changeTemplate output.
func parseChanges(out []byte) ([]Change, error) {
	changes, err := parseLines[Change](out, "jj log")
	for i := range changes {
		// jj ends every non-empty description with a newline; it is not part
		// of what was written.
		changes[i].Description = strings.TrimSuffix(changes[i].Description, "\n")
	}
	return changes, err
}

// New creates a change on top of revs (default @) with description desc and
// returns it.
func (c *Client) New(ctx context.Context, desc string, revs ...string) (Change, error) {
	args := []string{"new", "--message=" + desc}
	if len(revs) == 0 {
		revs = []string{"@"}
	}
	args = append(args, "--")
	args = append(args, revs...)
	if _, err := c.run(ctx, true, args...); err != nil {
		return Change{}, err
	}
	return c.Current(ctx)
}

// Describe replaces rev's description.
func (c *Client) Describe(ctx context.Context, rev, desc string) error {
	_, err := c.run(ctx, true, "describe", "--message="+desc, "--", rev)
	return err
}

// Edit makes rev the working-copy change.
func (c *Client) Edit(ctx context.Context, rev string) error {
	_, err := c.run(ctx, true, "edit", "--", rev)
	return err
}

// RebaseSource moves rev and its descendants onto dest (jj rebase -s rev -d dest).
func (c *Client) RebaseSource(ctx context.Context, rev, dest string) error {
	_, err := c.run(ctx, true, "rebase", "--source", rev, "--destination", dest)
	return err
}

// Abandon abandons rev; its children are rebased onto its parents.
func (c *Client) Abandon(ctx context.Context, rev string) error {
	_, err := c.run(ctx, true, "abandon", "--", rev)
	return err
}

// DiffSummary returns the paths rev changes and how.
func (c *Client) DiffSummary(ctx context.Context, rev string) ([]FileChange, error) {
	out, err := c.run(ctx, false, "log", "--no-graph", "-r", rev, "-T", filesTemplate)
	if err != nil {
		return nil, err
	}
	files, err := parseLines[FileChange](out, "jj diff")
	for i := range files {
		if files[i].Source == files[i].Path {
			files[i].Source = ""
		}
	}
	return files, err
}

// DiffStat returns jj's diffstat of rev, for display.
func (c *Client) DiffStat(ctx context.Context, rev string) (string, error) {
	out, err := c.run(ctx, false, "diff", "--stat", "-r", rev)
	return string(out), err
}

// DiffGit returns rev's diff in git format, for display.
func (c *Client) DiffGit(ctx context.Context, rev string) (string, error) {
	out, err := c.run(ctx, false, "diff", "--git", "-r", rev)
	return string(out), err
}

// BookmarkSet points bookmark name at rev, creating it or moving it (also
// backwards or sideways).
func (c *Client) BookmarkSet(ctx context.Context, name, rev string) error {
	_, err := c.run(ctx, true, "bookmark", "set", name, "--allow-backwards", "-r", rev)
	return err
}

// BookmarkTrack starts tracking name@remote so pushes may create it.
func (c *Client) BookmarkTrack(ctx context.Context, name, remote string) error {
	_, err := c.run(ctx, true, "bookmark", "track", name+"@"+remote)
	return err
}

// GitPush pushes bookmark to remote and returns jj's report. With dryRun it
// only reports what would be pushed.
func (c *Client) GitPush(ctx context.Context, bookmark, remote string, dryRun bool) (string, error) {
	args := []string{"git", "push", "--bookmark", bookmark}
	if remote != "" {
		args = append(args, "--remote", remote)
	}
	if dryRun {
		args = append(args, "--dry-run")
	}
	out, err := c.run(ctx, true, args...)
	return strings.TrimSpace(string(out)), err
}

// GitFetch fetches from remote, or from every remote when remote is "".
func (c *Client) GitFetch(ctx context.Context, remote string) error {
	args := []string{"git", "fetch"}
	if remote == "" {
		args = append(args, "--all-remotes")
	} else {
		args = append(args, "--remote", remote)
	}
	_, err := c.run(ctx, true, args...)
	return err
}

// Remote is a git remote of the repo.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// GitRemotes lists the repo's git remotes.
func (c *Client) GitRemotes(ctx context.Context) ([]Remote, error) {
	out, err := c.run(ctx, false, "git", "remote", "list")
	if err != nil {
		return nil, err
	}
	var remotes []Remote
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, url, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && name != "" {
			remotes = append(remotes, Remote{Name: name, URL: strings.TrimSpace(url)})
		}
	}
	return remotes, nil
}

// GitInit makes c.Dir a jj repo backed by git, colocated with an existing
// .git when there is one (and colocated in a fresh directory too).
func (c *Client) GitInit(ctx context.Context) error {
	_, err := c.run(ctx, true, "git", "init", "--colocate")
	return err
}

// GitRoot returns the git directory backing the repo (.git when colocated,
// else inside .jj).
func (c *Client) GitRoot(ctx context.Context) (string, error) {
	out, err := c.run(ctx, false, "git", "root")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ConfigGet returns the effective value of a jj config key (every layer
// applied, jj's defaults included); ok is false when the key has no value.
func (c *Client) ConfigGet(ctx context.Context, key string) (value string, ok bool, err error) {
	out, err := c.run(ctx, false, "config", "get", "--", key)
	if err != nil {
		if strings.Contains(err.Error(), "not found") {
			return "", false, nil
		}
		return "", false, err
	}
	return strings.TrimSuffix(string(out), "\n"), true, nil
}

// OpHead returns the id of the repo's current operation.
func (c *Client) OpHead(ctx context.Context) (string, error) {
	out, err := c.run(ctx, false, "op", "log", "--no-graph", "--limit", "1", "-T", `id ++ "\n"`)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// OpRestore restores the repo to operation op.
func (c *Client) OpRestore(ctx context.Context, op string) error {
	_, err := c.run(ctx, true, "op", "restore", "--", op)
	return err
}

// Resolves reports whether revset resolves to at least one change.
func (c *Client) Resolves(ctx context.Context, revset string) (bool, error) {
	out, err := c.run(ctx, false, "log", "--no-graph", "--limit", "1", "-r", revset, "-T", `"x"`)
	if err != nil {
		if errors.Is(err, ErrNoSuchRevision) {
			return false, nil
		}
		return false, err
	}
	return len(bytes.TrimSpace(out)) > 0, nil
}

// Version returns jj's version, such as "0.46.0".
func (c *Client) Version(ctx context.Context) (string, error) {
	out, err := c.run(ctx, false, "--version")
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(out))
	v = strings.TrimPrefix(v, "jj ")
	if i := strings.IndexAny(v, " -+"); i > 0 {
		v = v[:i]
	}
	return v, nil
}

// Run runs jj with args (after the non-interactive defaults) and returns its
// stdout; for callers needing a subcommand this package does not wrap.
func (c *Client) Run(ctx context.Context, args ...string) ([]byte, error) {
	return c.run(ctx, true, args...)
}

func (c *Client) bin() string {
	if c.Bin != "" {
		return c.Bin
	}
	return "jj"
}

// run executes jj. writes says whether the command creates commits, in which
// case a missing user identity is defaulted.
func (c *Client) run(ctx context.Context, writes bool, args ...string) ([]byte, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if _, ok := ctx.Deadline(); !ok {
		timeout := c.Timeout
		if timeout <= 0 {
			timeout = DefaultTimeout
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	full := append([]string{"--no-pager", "--color=never"}, args...)
	if len(args) == 1 && args[0] == "--version" {
		full = args
	}
	cmd := exec.CommandContext(ctx, c.bin(), full...)
	cmd.Dir = c.Dir
	cmd.Env = c.env(ctx, writes)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = nil
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) && stderr.Len() == 0 {
		return nil, &Error{Args: args, Stderr: fmt.Sprintf("jj not found (%s); install jj >= %s, e.g. with scripts/install-jj.sh", c.bin(), MinVersion), Kind: ErrNoJJ}
	}
	if ctx.Err() != nil {
		return nil, &Error{Args: args, Stderr: fmt.Sprintf("jj %s: %v", strings.Join(args[:min(len(args), 2)], " "), ctx.Err()), Kind: ctx.Err()}
	}
	msg := stderr.String()
	if strings.TrimSpace(msg) == "" {
		msg = err.Error()
	}
	kind := classify(msg)
	if kind == ErrStale && len(args) > 0 && args[0] != "workspace" {
		// Another workspace's operation rewrote this workspace's change:
		// bring the files up to date, say so, and run the command again.
		if _, uerr := c.run(ctx, true, "workspace", "update-stale"); uerr == nil {
			noteFrom(ctx, StaleNote)
			return c.run(ctx, writes, args...)
		}
	}
	return nil, &Error{Args: args, Stderr: cleanMessage(msg), Kind: kind}
}

// env returns the environment for a jj process.
func (c *Client) env(ctx context.Context, writes bool) []string {
	env := append(os.Environ(),
		"JJ_EDITOR=false", "EDITOR=false", "VISUAL=false",
		"NO_COLOR=1", "PAGER=cat",
	)
	if writes {
		c.identOnce.Do(func() { c.identEnv = c.defaultIdentity(ctx) })
		env = append(env, c.identEnv...)
	}
	return append(env, c.Env...)
}

// defaultIdentity returns JJ_USER/JJ_EMAIL settings for whichever of
// user.name and user.email jj has no value for.
func (c *Client) defaultIdentity(ctx context.Context) []string {
	var env []string
	for _, k := range []struct{ key, envVar, def string }{
		{"user.name", "JJ_USER", DefaultUserName},
		{"user.email", "JJ_EMAIL", DefaultUserEmail},
	} {
		if os.Getenv(k.envVar) != "" {
			continue
		}
		out, err := c.run(ctx, false, "config", "get", k.key)
		if err != nil || strings.TrimSpace(string(out)) == "" {
			env = append(env, k.envVar+"="+k.def)
		}
	}
	return env
}

// classify maps jj's stderr to a typed error.
func classify(msg string) error {
	m := strings.ToLower(msg)
	switch {
	case isStale(m):
		return ErrStale
	case strings.Contains(m, "there is no jj repo"):
		return ErrNotRepo
	case strings.Contains(m, "is immutable") || strings.Contains(m, "immutable commit"):
		return ErrImmutable
	case strings.Contains(m, "failed to parse revset") || strings.Contains(m, "revset function") && strings.Contains(m, "doesn't exist"):
		return ErrBadRevset
	case strings.Contains(m, "doesn't exist") || strings.Contains(m, "does not exist") && strings.Contains(m, "revision"),
		strings.Contains(m, "no such revision"), strings.Contains(m, "revset") && strings.Contains(m, "resolved to no"):
		return ErrNoSuchRevision
	case strings.Contains(m, "refusing to") || strings.Contains(m, "won't push") || strings.Contains(m, "rejected") ||
		strings.Contains(m, "failed to push") || strings.Contains(m, "push") && strings.Contains(m, "failed"):
		return ErrPushRefused
	}
	return nil
}

// cleanMessage trims jj's message and drops a leading "Error: ".
func cleanMessage(msg string) string {
	msg = strings.TrimSpace(msg)
	return strings.TrimPrefix(msg, "Error: ")
}

// parseLines decodes one JSON value per non-empty line.
func parseLines[T any](out []byte, what string) ([]T, error) {
	var items []T
	for _, line := range bytes.Split(out, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("%s: unexpected output %q: %w", what, short(string(line), 200), err)
		}
		items = append(items, v)
	}
	return items, nil
}

func short(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
