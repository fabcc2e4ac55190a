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
	InPlace   bool   `json:"in_place"`             // @ was empty and undescribed, so it was described in place
	Fetched   bool   `json:"fetched"`              // a remote existed and was fetched
	FetchWarn string `json:"fetch_warn,omitempty"` // why fetching failed, when it did
}

// Declare creates the change the agent is about to work on: it fetches when a
// remote exists, then runs `jj new <base> -m desc`, base defaulting to trunk()
// when that is not the root commit, else @. When @ is already empty,
// undescribed and on base, it is described in place instead.
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
	cur, err := c.Current(ctx)
	if err != nil {
		return out, err
	}
	baseChange, err := c.Show(ctx, base)
	if err != nil {
		return out, err
	}
	out.Base = base
	if cur.Empty && strings.TrimSpace(cur.Description) == "" &&
		(base == "@" || slices.Equal(cur.Parents, []string{baseChange.ChangeID})) {
		if err := c.Describe(ctx, "@", desc); err != nil {
			return out, err
		}
		out.InPlace = true
		out.Change, err = c.Current(ctx)
		return out, err
	}
	out.Change, err = c.New(ctx, desc, base)
	return out, err
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
	Warnings    []string      `json:"warnings,omitempty"`
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
