package jj

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// SessionTrailer is the trailer key linking a checkpoint to its session root.
const SessionTrailer = "Session"

// trailerRe is compiled on first use: the hook processes that link jj
// mostly never need it, and start faster without it.
var trailerRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Session:[ \t]*([a-z]+)[ \t]*$`) })

// SessionRoot returns the session root change id recorded in desc's
// "Session: <id>" trailer.
func SessionRoot(desc string) (string, bool) {
	m := trailerRe().FindAllStringSubmatch(desc, -1)
	if len(m) == 0 {
		return "", false
	}
	return m[len(m)-1][1], true
}

// WithSessionRoot returns desc ending with a "Session: <root>" trailer,
// replacing any such trailer already there.
func WithSessionRoot(desc, root string) string {
	desc = strings.TrimRight(trailerRe().ReplaceAllString(desc, ""), " \t\n")
	return desc + "\n\n" + SessionTrailer + ": " + root + "\n"
}

// Declared is the outcome of Declare.
type Declared struct {
	Change    Change `json:"change"`
	Base      string `json:"base"`                 // the revision the change was created on
	InPlace   bool   `json:"in_place"`             // @ was undescribed and on base, so it was described in place
	Fetched   bool   `json:"fetched"`              // a remote existed and was fetched
	FetchWarn string `json:"fetch_warn,omitempty"` // why fetching failed, when it did
	// Carried lists the files of the undescribed work @ held, which is now
	// part of the declared change (described in place, or rebased onto base
	// first).
	Carried []FileChange `json:"carried,omitempty"`
	// Rebased is set when that work was moved onto base.
	Rebased bool `json:"rebased,omitempty"`
	// KeptOn is set when rebasing the work onto base would have conflicted:
	// it stayed on its parent (this revision) and was described there.
	KeptOn string `json:"kept_on,omitempty"`
	// Left are the non-empty changes that were in the working copy before
	// and are not now (the change starts on base, away from them). They are
	// still in jj; LeftHint is the command that builds on them instead.
	Left     []Change `json:"left,omitempty"`
	LeftHint string   `json:"left_hint,omitempty"`
}

// Notes says, in sentences for the user or the model, what Declare did with
// the work that was in the working copy: carried, kept in place, or left in
// jj. It is empty when nothing needs saying.
func (d Declared) Notes() []string {
	var notes []string
	if len(d.Carried) > 0 {
		how := "described in place"
		switch {
		case d.Rebased:
			how = "rebased onto " + d.Base + " and described"
		case d.KeptOn != "":
			how = fmt.Sprintf("described in place on %s, because rebasing it onto %s would conflict; rebase when ready with `jj rebase -s @ -d %s`", short(d.KeptOn, 12), d.Base, d.Base)
		}
		notes = append(notes, fmt.Sprintf("The working copy held undescribed work (%s); it is now part of this change (%s).", filesList(d.Carried, 5), how))
	}
	if len(d.Left) > 0 {
		var names []string
		for i, ch := range d.Left {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(d.Left)-3))
				break
			}
			title := ch.Title()
			if title == "" {
				title = "(no description)"
			}
			names = append(names, fmt.Sprintf("%s %q", ch.ShortID(), title))
		}
		notes = append(notes, fmt.Sprintf("The change starts on %s, so the work of %s is no longer in the working copy (it stays in jj). To build on it instead: %s", d.Base, strings.Join(names, ", "), d.LeftHint))
	}
	return notes
}

// Declare creates the change the agent is about to work on. This is the one
// place the rule is written; jj_init, planq start and everything else that
// declares call it.
//
//   - It fetches first when the repo has a remote (FetchWarn says why that
//     failed, when it did).
//   - base defaults to trunk() when that is not the root commit, else @.
//   - An undescribed @ becomes the declared change, so no work leaves the
//     disk: when it is on base (or base is @) it is described in place; when
//     it holds work but sits elsewhere (trunk moved on, say), it is rebased
//     onto base with its descendants and described, and when that rebase
//     would conflict it is undone and @ is described where it is (KeptOn).
//     An empty undescribed @ that is not on base is simply replaced.
//   - A described @ stays as it is and a new change is made on base.
//   - Whatever non-empty changes were in the working copy before and are not
//     now are reported (Left), with the command that builds on them instead.
func Declare(ctx context.Context, c *Client, desc, base string) (Declared, error) {
	var out Declared
	if strings.TrimSpace(desc) == "" {
		return out, errors.New("description is empty")
	}
	remotes, err := c.GitRemotes(ctx)
	if err != nil {
		return out, err
	}
	if len(remotes) > 0 {
		if err := c.GitFetch(ctx, ""); err != nil {
			out.FetchWarn = err.Error()
		} else {
			out.Fetched = true
		}
	}
	if base == "" {
		base = "@"
		if ok, err := c.Resolves(ctx, "trunk() ~ root()"); err != nil {
			return out, err
		} else if ok {
			base = "trunk()"
		}
	}
	out.Base = base
	cur, err := c.Current(ctx)
	if err != nil {
		return out, err
	}
	baseChange, err := c.Show(ctx, base)
	if err != nil {
		return out, err
	}
	onBase := base == "@" || slices.Equal(cur.Parents, []string{baseChange.ChangeID})
	switch {
	case !cur.Declared() && (onBase || !cur.Empty):
		if !cur.Empty {
			if out.Carried, err = c.DiffSummary(ctx, "@"); err != nil {
				return out, err
			}
		}
		if !onBase {
			kept, err := rebaseOrKeep(ctx, c, base)
			if err != nil {
				return out, err
			}
			if kept {
				out.KeptOn = strings.Join(cur.Parents, ", ")
			} else {
				out.Rebased = true
			}
		}
		if err := c.Describe(ctx, "@", desc); err != nil {
			return out, err
		}
		out.InPlace = !out.Rebased
		if out.Change, err = c.Current(ctx); err != nil {
			return out, err
		}
	default:
		if out.Change, err = c.New(ctx, desc, base); err != nil {
			return out, err
		}
	}
	// What was in the working copy and is not now: the ancestry of the old
	// @ (of its parents, when its own work was carried) that @ lacks. Old
	// commits stay addressable by commit id after jj rewrites or drops them.
	was := cur.CommitID
	if out.Carried != nil || !cur.Declared() {
		was += "-"
	}
	if out.Left, err = c.Log(ctx, fmt.Sprintf("(::(%s) ~ ::@) ~ empty()", was)); err != nil {
		return out, err
	}
	if len(out.Left) > 0 {
		out.LeftHint = fmt.Sprintf("jj rebase -s @ -d %s", out.Left[0].ShortID())
	}
	return out, nil
}

// rebaseOrKeep moves @ (and its descendants) onto base. When the result
// has conflicts it restores the operation before, so @ stays where it was,
// and reports kept.
func rebaseOrKeep(ctx context.Context, c *Client, base string) (kept bool, err error) {
	op, err := c.OpHead(ctx)
	if err != nil {
		return false, err
	}
	if err := c.RebaseSource(ctx, "@", base); err != nil {
		return false, err
	}
	conflicted, err := c.Resolves(ctx, "(@ | @::) & conflicts()")
	if err != nil || !conflicted {
		return false, err
	}
	if err := c.OpRestore(ctx, op); err != nil {
		return false, fmt.Errorf("rebasing @ onto %s conflicted, and undoing it failed: %w", base, err)
	}
	return true, nil
}

// Checkpoint starts a new change on top of @ in the same session: the new
// description ends with a "Session: <root>" trailer naming the lineage's root
// (the trailer of @, or @ itself when it has none). It returns the new change
// and the root.
func Checkpoint(ctx context.Context, c *Client, desc string) (Change, string, error) {
	if strings.TrimSpace(desc) == "" {
		return Change{}, "", errors.New("description is empty")
	}
	cur, err := c.Current(ctx)
	if err != nil {
		return Change{}, "", err
	}
	root, ok := SessionRoot(cur.Description)
	if !ok {
		root = cur.ChangeID
	}
	ch, err := c.New(ctx, WithSessionRoot(desc, root), "@")
	return ch, root, err
}

// PushPlan is what Push would do.
type PushPlan struct {
	Bookmark    string        `json:"bookmark"`
	Remote      string        `json:"remote"`
	Target      *Change       `json:"target,omitempty"` // last non-empty change of the stack
	Stack       []StackChange `json:"stack"`            // trunk()..target, newest first
	Undescribed []string      `json:"undescribed,omitempty"`
	// Conflicted names the changes with conflicts, each with its files.
	Conflicted []string `json:"conflicted,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

// StackChange is one change of the stack to push.
type StackChange struct {
	ChangeID string       `json:"change_id"`
	Title    string       `json:"title"`
	Files    []FileChange `json:"files"`
}

// PlanPush works out what pushing the stack from trunk() to the last
// non-empty change would send, checks descriptions, and warns when a
// description mentions none of the paths or areas its change touches.
func PlanPush(ctx context.Context, c *Client, bookmark, remote string) (PushPlan, error) {
	plan := PushPlan{Bookmark: bookmark, Remote: remote}
	if plan.Bookmark == "" {
		plan.Bookmark = "main"
	}
	if plan.Remote == "" {
		remotes, err := c.GitRemotes(ctx)
		if err != nil {
			return plan, err
		}
		switch {
		case len(remotes) == 0:
			return plan, errors.New("this repo has no git remote; add one with `jj git remote add origin URL`")
		case slices.ContainsFunc(remotes, func(r Remote) bool { return r.Name == "origin" }):
			plan.Remote = "origin"
		default:
			plan.Remote = remotes[0].Name
		}
	}
	targets, err := c.Log(ctx, "heads((trunk()..@) ~ empty())")
	if err != nil {
		return plan, err
	}
	if len(targets) == 0 {
		return plan, nil
	}
	if len(targets) > 1 {
		return plan, fmt.Errorf("the stack has %d heads; push needs one", len(targets))
	}
	plan.Target = &targets[0]
	stack, err := c.Log(ctx, "trunk().."+targets[0].CommitID)
	if err != nil {
		return plan, err
	}
	for _, ch := range stack {
		files, err := c.DiffSummary(ctx, ch.CommitID)
		if err != nil {
			return plan, err
		}
		plan.Stack = append(plan.Stack, StackChange{ChangeID: ch.ChangeID, Title: ch.Title(), Files: files})
		if ch.Conflict {
			plan.Conflicted = append(plan.Conflicted, fmt.Sprintf("%s (%s)", ch.ShortID(), strings.Join(ch.ConflictedFiles, ", ")))
		}
		if strings.TrimSpace(ch.Description) == "" {
			plan.Undescribed = append(plan.Undescribed, ch.ShortID())
			continue
		}
		if len(files) > 0 && !MentionsAny(ch.Description, files) {
			plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s %q mentions none of the paths it changes (%s); consider jj_describe", ch.ShortID(), ch.Title(), filesList(files, 5)))
		}
	}
	return plan, nil
}

// Push moves the plan's bookmark to its target and pushes it.
func Push(ctx context.Context, c *Client, plan PushPlan) (string, error) {
	if plan.Target == nil {
		return "", errors.New("nothing to push: every change from trunk() to @ is empty")
	}
	if len(plan.Undescribed) > 0 {
		return "", fmt.Errorf("refusing to push: these changes have no description: %s; describe them first", strings.Join(plan.Undescribed, ", "))
	}
	if len(plan.Conflicted) > 0 {
		return "", fmt.Errorf("refusing to push: these changes have conflicts: %s; resolve them first (edit the files, or `jj resolve`), then push", strings.Join(plan.Conflicted, "; "))
	}
	if err := c.BookmarkSet(ctx, plan.Bookmark, plan.Target.CommitID); err != nil {
		return "", err
	}
	out, err := c.GitPush(ctx, plan.Bookmark, plan.Remote, false)
	if err != nil && strings.Contains(err.Error(), "track") {
		// A bookmark new to the remote must be tracked before jj pushes it.
		if terr := c.BookmarkTrack(ctx, plan.Bookmark, plan.Remote); terr == nil {
			out, err = c.GitPush(ctx, plan.Bookmark, plan.Remote, false)
		}
	}
	return out, err
}

// MentionsAny reports whether desc names any changed path, file name, file
// stem or directory of files (case-insensitively).
func MentionsAny(desc string, files []FileChange) bool {
	d := strings.ToLower(desc)
	for _, f := range files {
		p := strings.ToLower(f.Path)
		base := path.Base(p)
		stem := strings.TrimSuffix(base, path.Ext(base))
		candidates := []string{p, base}
		if len(stem) >= 3 {
			candidates = append(candidates, stem)
		}
		for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
			if b := path.Base(dir); len(b) >= 3 {
				candidates = append(candidates, b)
			}
		}
		for _, cand := range candidates {
			if cand != "" && strings.Contains(d, cand) {
				return true
			}
		}
	}
	return false
}

func filesList(files []FileChange, max int) string {
	var names []string
	for i, f := range files {
		if i == max {
			names = append(names, fmt.Sprintf("and %d more", len(files)-max))
			break
		}
		names = append(names, f.Path)
	}
	return strings.Join(names, ", ")
}

// Redescribe replaces @'s description with desc, keeping the lineage: when @
// carries a "Session: <root>" trailer and desc does not, the trailer is kept.
// It returns the updated change.
func Redescribe(ctx context.Context, c *Client, desc string) (Change, error) {
	if strings.TrimSpace(desc) == "" {
		return Change{}, errors.New("description is empty")
	}
	cur, err := c.Current(ctx)
	if err != nil {
		return Change{}, err
	}
	if root, ok := SessionRoot(cur.Description); ok {
		if _, has := SessionRoot(desc); !has {
			desc = WithSessionRoot(desc, root)
		}
	}
	if err := c.Describe(ctx, "@", desc); err != nil {
		return Change{}, err
	}
	return c.Current(ctx)
}

// FetchWarning is the one-line warning for a fetch that failed (jj's
// message): work goes on from local state, and when jj's git is too old to
// fetch, it says where the fix is.
func FetchWarning(msg string) string {
	w := "fetch failed, working from local state: " + strings.Join(strings.Fields(msg), " ")
	if strings.Contains(msg, "requires git") {
		w += " (jj's git is older than " + MinGitVersion + ": `planq doctor` says how to get a newer one)"
	}
	return w
}
