package staterepo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/internal/text"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// remoteName names the remote-tracking refs (refs/remotes/origin/*).
const remoteName = "origin"

// ErrNoRemote reports that no state remote is configured.
var ErrNoRemote = errors.New("no state remote configured")

// ErrDiverged reports a branch that changed both here and on the remote in
// a way planq does not merge by itself.
var ErrDiverged = errors.New("diverged from the remote")

// Preferences for Pull when a non-log file changed on both sides.
const (
	PreferNone   = ""       // refuse, naming the files
	PreferLocal  = "local"  // keep this side's version
	PreferRemote = "remote" // take the remote's version
)

// SyncAction is what a push or pull did to one branch; its text is what
// `planq state push|pull --json` prints.
type SyncAction string

// The actions of a push or pull.
const (
	SyncCreated     SyncAction = "created"      // pull: the branch is new here
	SyncFastForward SyncAction = "fast-forward" // pull: moved to the remote's commit
	SyncMerged      SyncAction = "merged"       // pull: both sides' entries merged
	SyncUpToDate    SyncAction = "up-to-date"   // nothing to do
	SyncAhead       SyncAction = "ahead"        // pull: this side has commits the remote lacks
	SyncBehind      SyncAction = "behind"       // push: the remote has commits this side lacks
	SyncPushed      SyncAction = "pushed"       // push: the remote got this side's commits
	SyncRefused     SyncAction = "refused"      // nothing was changed: Detail says why
)

// SyncResult is what a push or pull did to one branch.
type SyncResult struct {
	Branch string     `json:"branch"`           // the branch
	Action SyncAction `json:"action"`           // what was done
	Detail string     `json:"detail,omitempty"` // what was merged, or why it was refused
}

var scpLike = regexp.MustCompile(`^[A-Za-z0-9_.-]+@[^:/]+:`)

// NormalizeRemote turns a local path into an absolute one (relative to
// base) and leaves URLs (scheme://…, user@host:path) as they are.
func NormalizeRemote(url, base string) (string, error) {
	url = strings.TrimSpace(url)
	switch {
	case url == "":
		return "", fmt.Errorf("remote is %w; give a URL or a path", ErrEmpty)
	case strings.ContainsAny(url, "\n\r\x00"):
		return "", errors.New("remote contains a control character")
	case strings.Contains(url, "://"), scpLike.MatchString(url):
		return url, nil
	}
	if strings.HasPrefix(url, "-") {
		return "", fmt.Errorf("remote %q must not start with '-'", url)
	}
	if !filepath.IsAbs(url) {
		url = filepath.Join(base, url)
	}
	return filepath.Clean(url), nil
}

// SetRemote records url (a URL or a path, made absolute) as the state
// remote in .planq/config.yaml.
func (s *Store) SetRemote(url string, base string) (string, error) {
	u, err := NormalizeRemote(url, base)
	if err != nil {
		return "", err
	}
	if err := config.Set(s.Root, "state.remote", u); err != nil {
		return "", err
	}
	s.Config.State.Remote = u
	return u, nil
}

// remoteURL returns the configured remote, preferring file:// for paths.
func (s *Store) remoteURL() (string, bool, error) {
	u := s.Config.State.Remote
	if u == "" {
		return "", false, fmt.Errorf("%w; set one with `planq state remote URL` (a URL or a path)", ErrNoRemote)
	}
	local := !strings.Contains(u, "://") && !scpLike.MatchString(u)
	if after, ok := strings.CutPrefix(u, "file://"); ok {
		u, local = after, true
	}
	return u, local, nil
}

func (s *Store) gitRemote(r *gitstore.Repo, url string) *git.Remote {
	return git.NewRemote(r.Storage(), &gitconfig.RemoteConfig{Name: remoteName, URLs: []string{url}})
}

// trackingPrefix is where the remote's branches are kept.
const trackingPrefix = "refs/remotes/" + remoteName + "/"

// fetch copies the remote's branches to refs/remotes/origin/*, deleting
// those of branches the remote no longer has, and returns them. It speaks
// git's protocol itself, as the session lineages do (sessions_remote.go),
// and moves the refs with git's lock-file protocol: go-git's fetch
// truncated a ref file and then wrote it, so a process killed in between
// left an empty ref that every later push and pull stumbled on.
func (s *Store) fetch(ctx context.Context, r *gitstore.Repo, url string) (map[string]plumbing.Hash, error) {
	ep, c, err := endpoint(url)
	if err != nil {
		return nil, err
	}
	sess, ar, err := uploadPack(ctx, ep, c)
	if err != nil {
		return nil, fmt.Errorf("fetch from %s: %w", url, err)
	}
	defer sess.Close()
	if ar == nil { // an empty remote
		return map[string]plumbing.Hash{}, nil
	}
	remote := map[string]plumbing.Hash{}
	for name, h := range ar.References {
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			remote[b] = h
		}
	}
	tracking, err := r.RefsUnder(trackingPrefix)
	if err != nil {
		return nil, err
	}
	var wants, haves []plumbing.Hash
	for _, b := range sortedKeys(remote) {
		if !has(r, remote[b]) {
			wants = append(wants, remote[b])
		}
	}
	if len(wants) > 0 {
		heads, err := r.RefsUnder("refs/heads/")
		if err != nil {
			return nil, err
		}
		for _, refs := range []map[string]plumbing.Hash{tracking, heads} {
			for _, name := range sortedKeys(refs) {
				if has(r, refs[name]) {
					haves = append(haves, refs[name])
				}
			}
		}
		if err := fetchPack(ctx, sess, ar, r, wants, haves); err != nil {
			return nil, fmt.Errorf("fetch from %s: %w", url, err)
		}
	}
	for _, b := range sortedKeys(remote) {
		if tracking[trackingPrefix+b] != remote[b] {
			if err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: trackingPrefix + b, New: remote[b], AnyOld: true}); err != nil {
				return nil, err
			}
		}
	}
	for _, name := range sortedKeys(tracking) {
		if _, ok := remote[strings.TrimPrefix(name, trackingPrefix)]; !ok {
			if err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: name, AnyOld: true}); err != nil {
				return nil, err
			}
		}
	}
	return remote, nil
}

// Pull fetches the remote's branches and brings each local branch up to
// date: a new branch is created, a branch behind is fast-forwarded, and a
// branch that diverged is merged — its append-only logs as the union of
// their entries, other files when only one side changed them (or by prefer).
// A worktree with the branch checked out gets its files and index updated in
// the same step; when it has uncommitted edits to files the pull would
// change, that branch is refused and left as it was.
func (s *Store) Pull(ctx context.Context, prefer string) ([]SyncResult, error) {
	if prefer != PreferNone && prefer != PreferLocal && prefer != PreferRemote {
		return nil, fmt.Errorf("prefer %q: use local or remote", prefer)
	}
	url, _, err := s.remoteURL()
	if err != nil {
		return nil, err
	}
	lk, r, err := s.lockInitOpen(ctx)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	remote, err := s.fetch(ctx, r, url)
	if err != nil {
		return nil, err
	}
	var results []SyncResult
	var refused []string
	for _, b := range sortedKeys(remote) {
		if b != GlobalBranch && (!strings.HasPrefix(b, AgentPrefix) || ValidAgentName(strings.TrimPrefix(b, AgentPrefix)) != nil) {
			continue // not planq's
		}
		res, err := s.pullBranch(ctx, r, b, remote[b], prefer)
		if err != nil {
			res = SyncResult{Branch: b, Action: SyncRefused, Detail: err.Error()}
			refused = append(refused, b)
		}
		results = append(results, res)
	}
	if len(refused) > 0 {
		return results, fmt.Errorf("%w: pull refused for %s (details above); the other branches were updated", ErrDiverged, strings.Join(refused, ", "))
	}
	return results, nil
}

// pullBranch brings one local branch up to date with the remote's head.
func (s *Store) pullBranch(ctx context.Context, r *gitstore.Repo, branch string, theirs plumbing.Hash, prefer string) (SyncResult, error) {
	res := SyncResult{Branch: branch}
	ours, err := r.Head(branch)
	if err != nil {
		return res, err
	}
	if ours.IsZero() {
		res.Action = SyncCreated
		return res, r.UpdateRef(ctx, gitstore.RefUpdate{Name: gitstore.BranchRef(branch), New: theirs, Msg: "planq: pull: created from the remote", Sig: s.signature()})
	}
	rel, err := r.Compare(ours, theirs)
	if err != nil {
		return res, err
	}
	var next plumbing.Hash
	switch rel {
	case gitstore.Same:
		res.Action = SyncUpToDate
		return res, nil
	case gitstore.Ahead:
		res.Action = SyncAhead
		return res, nil
	case gitstore.Behind:
		res.Action, next = SyncFastForward, theirs
	default:
		oc, err := r.Commit(ours)
		if err != nil {
			return res, err
		}
		tc, err := r.Commit(theirs)
		if err != nil {
			return res, err
		}
		tree, detail, err := s.mergeTrees(r, branch, oc, tc, prefer)
		if err != nil {
			return res, err
		}
		next, err = r.WriteCommit(tree, []plumbing.Hash{ours, theirs}, fmt.Sprintf("pull: merge %s from the remote\n\n%s", branch, detail), s.signature())
		if err != nil {
			return res, err
		}
		res.Action, res.Detail = SyncMerged, detail
	}
	return res, s.moveBranch(ctx, r, branch, ours, next, "planq: pull: "+string(res.Action))
}

// moveBranch points branch from old to next, first checking that no
// worktree holding it has uncommitted edits to the files that change, then
// updating those worktrees' files and index (or, when that fails once the
// branch has moved, leaving them marked for the next write to finish).
func (s *Store) moveBranch(ctx context.Context, r *gitstore.Repo, branch string, old, next plumbing.Hash, msg string) error {
	oldTree, err := r.CommitTree(old)
	if err != nil {
		return err
	}
	newTree, err := r.CommitTree(next)
	if err != nil {
		return err
	}
	wts, err := gitstore.WorktreesOn(s.Bare, branch)
	if err != nil {
		return err
	}
	if len(wts) > 0 {
		changed, err := changedPaths(r, oldTree, newTree)
		if err != nil {
			return err
		}
		for i := range wts {
			clash, stale, err := editsInTheWay(r, &wts[i], oldTree, func(p string) bool { return changed[p] })
			if err != nil {
				return err
			}
			for _, p := range clash {
				if slices.Contains(stale, p) {
					return conflictError(&wts[i], p)
				}
			}
			if len(clash) > 0 {
				return fmt.Errorf("%s has uncommitted edits to %s, which the update changes; commit them (git -C %s commit -am \"...\"), then pull again", wts[i].Path, strings.Join(clash, ", "), wts[i].Path)
			}
		}
	}
	marks := readSyncMarks(wts)
	if err := marks.markPending(next); err != nil {
		return err
	}
	if err := r.UpdateRef(ctx, gitstore.RefUpdate{Name: gitstore.BranchRef(branch), New: next, Old: old, Msg: msg, Sig: s.signature()}); err != nil {
		marks.clearAll()
		return err
	}
	for i := range wts {
		if err := r.Checkout(ctx, &wts[i], oldTree, newTree); err != nil {
			s.warn(fmt.Sprintf("branch %s updated, but its worktree %s was not (%v); the next planq write finishes it", branch, wts[i].Path, err))
			continue
		}
		marks.clear(i)
	}
	return nil
}

// changedPaths lists the files that differ between two trees.
func changedPaths(r *gitstore.Repo, a, b plumbing.Hash) (map[string]bool, error) {
	af, err := r.TreeFiles(a)
	if err != nil {
		return nil, err
	}
	bf, err := r.TreeFiles(b)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for p, e := range af {
		if o, ok := bf[p]; !ok || o.Hash != e.Hash {
			out[p] = true
		}
	}
	for p := range bf {
		if _, ok := af[p]; !ok {
			out[p] = true
		}
	}
	return out, nil
}

// logFamilies are the append-only files, merged as unions of entries.
var logFamilies = []string{ChangelogFile, LearningsFile, DecisionsFile}

// familyOf returns the append-only file p belongs to (itself or one of its
// archive segments), or "".
func familyOf(p string) string {
	for _, f := range logFamilies {
		if p == f {
			return f
		}
		if _, ok := archiveNumber(f, p); ok {
			return f
		}
	}
	return ""
}

// mergeTrees merges the trees of two diverged commits: our append-only logs
// plus the entries only theirs have, appended; other files three-way against
// the merge base (or an empty tree for unrelated histories).
func (s *Store) mergeTrees(r *gitstore.Repo, branch string, ours, theirs *object.Commit, prefer string) (plumbing.Hash, string, error) {
	var base plumbing.Hash
	if bases, err := ours.MergeBase(theirs); err == nil && len(bases) > 0 {
		base = bases[0].TreeHash
	}
	bf, err := r.TreeFiles(base)
	if err != nil {
		return plumbing.ZeroHash, "", err
	}
	of, err := r.TreeFiles(ours.TreeHash)
	if err != nil {
		return plumbing.ZeroHash, "", err
	}
	tf, err := r.TreeFiles(theirs.TreeHash)
	if err != nil {
		return plumbing.ZeroHash, "", err
	}
	tx := s.newTx(r, branch, ours.Hash, ours.TreeHash)
	var conflicts, notes []string
	paths := map[string]bool{}
	for p := range of {
		paths[p] = true
	}
	for p := range tf {
		paths[p] = true
	}
	for _, p := range sortedKeys(paths) {
		if familyOf(p) != "" {
			continue
		}
		o, inO := of[p]
		t, inT := tf[p]
		b, inB := bf[p]
		same := func(x object.TreeEntry, inX bool, y object.TreeEntry, inY bool) bool {
			return inX == inY && (!inX || x.Hash == y.Hash)
		}
		switch {
		case same(o, inO, t, inT), same(t, inT, b, inB):
			continue // identical, or only we changed it
		case same(o, inO, b, inB) || prefer == PreferRemote:
			if !same(o, inO, b, inB) {
				notes = append(notes, "took the remote's "+p)
			}
			if !inT {
				tx.Delete(p)
				continue
			}
			data, err := r.Blob(t.Hash)
			if err != nil {
				return plumbing.ZeroHash, "", err
			}
			tx.Write(p, data)
		case prefer == PreferLocal:
			notes = append(notes, "kept our "+p)
		default:
			conflicts = append(conflicts, p)
		}
	}
	if len(conflicts) > 0 {
		return plumbing.ZeroHash, "", fmt.Errorf("%w: %s changed both here and on the remote (%s); run `planq state pull --prefer local` to keep yours or `--prefer remote` to take theirs (logs, learnings and decisions are merged either way)", ErrDiverged, branch, strings.Join(conflicts, ", "))
	}
	for _, fam := range logFamilies {
		ourData, err := familyBytes(r, ours.TreeHash, fam)
		if err != nil {
			return plumbing.ZeroHash, "", err
		}
		theirData, err := familyBytes(r, theirs.TreeHash, fam)
		if err != nil {
			return plumbing.ZeroHash, "", err
		}
		merged, added, _ := changelog.MergeFile(ourData, theirData)
		if len(added) == 0 {
			continue
		}
		if err := appendSegmented(tx, fam, merged[len(ourData):]); err != nil {
			return plumbing.ZeroHash, "", err
		}
		notes = append(notes, fmt.Sprintf("%s: %d entries from the remote", fam, len(added)))
	}
	tree, _, err := tx.buildTree()
	return tree, strings.Join(notes, "\n"), err
}

// familyBytes concatenates an append-only file's archive segments and live
// file, oldest first.
func familyBytes(r *gitstore.Repo, tree plumbing.Hash, fam string) ([]byte, error) {
	segs, err := archiveList(r, tree, fam)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, p := range append(segs, fam) {
		data, _, err := r.ReadFile(tree, p)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(data) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, data...)
	}
	return out, nil
}

// Push sends every local planq branch that is ahead of the remote (or new
// there). It fetches first and refuses branches the remote has commits for
// that are not here: pull first. A local path that does not exist yet is
// created as a bare repo.
func (s *Store) Push(ctx context.Context) ([]SyncResult, error) {
	url, _, err := s.remoteURL()
	if err != nil {
		return nil, err
	}
	if !s.Initialized() {
		return nil, fmt.Errorf("%w for project %s; nothing to push", ErrNotInitialized, s.Project)
	}
	if err := s.ensureLocalRemote(); err != nil {
		return nil, err
	}
	// Clear what killed processes left: go-git's push reads every ref, and
	// takes a lock file for one (an empty one for a ref that is empty).
	lk, err := s.lockAndRecover(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.openRepo()
	if err == nil {
		err = r.ClearStaleLocks(ctx)
	}
	lk.Release()
	if err != nil {
		return nil, err
	}
	remote, err := s.fetch(ctx, r, url)
	if err != nil {
		return nil, err
	}
	branches, err := r.Branches()
	if err != nil {
		return nil, err
	}
	var results []SyncResult
	var specs []gitconfig.RefSpec
	var behind []string
	for _, b := range branches {
		if b != GlobalBranch && !strings.HasPrefix(b, AgentPrefix) {
			continue
		}
		ours, err := r.Head(b)
		if err != nil {
			return nil, err
		}
		theirs, ok := remote[b]
		res := SyncResult{Branch: b}
		switch {
		case !ok:
			res.Action = SyncPushed
			res.Detail = "new on the remote"
		default:
			rel, err := r.Compare(ours, theirs)
			if err != nil {
				return nil, err
			}
			switch rel {
			case gitstore.Same:
				res.Action = SyncUpToDate
			case gitstore.Ahead:
				res.Action = SyncPushed
			default:
				res.Action, res.Detail = SyncBehind, "the remote has commits this repo lacks; run `planq state pull` first"
				behind = append(behind, b)
			}
		}
		if res.Action == SyncPushed {
			specs = append(specs, gitconfig.RefSpec("refs/heads/"+b+":refs/heads/"+b))
		}
		results = append(results, res)
	}
	if len(specs) > 0 {
		if s.beforePush != nil {
			s.beforePush()
		}
		var msgs lockedBuffer
		err := s.gitRemote(r, url).PushContext(ctx, &git.PushOptions{RemoteName: remoteName, RefSpecs: specs, Progress: &msgs})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			if retry, lerr := s.remoteLocked(url, msgs.String()); retry {
				err = s.gitRemote(r, url).PushContext(ctx, &git.PushOptions{RemoteName: remoteName, RefSpecs: specs})
			} else if lerr != nil {
				err = lerr
			}
		}
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return s.pushFailed(ctx, r, url, results, err)
		}
		// Record what the remote now has, so status is right without a fetch.
		for _, spec := range specs {
			b := strings.TrimPrefix(spec.Src(), "refs/heads/")
			h, _ := r.Head(b)
			_ = r.UpdateRef(ctx, gitstore.RefUpdate{Name: "refs/remotes/" + remoteName + "/" + b, New: h, AnyOld: true})
		}
	}
	if len(behind) > 0 {
		return results, fmt.Errorf("%w: %s not pushed, the remote is ahead; run `planq state pull`, then push again", ErrDiverged, strings.Join(behind, ", "))
	}
	return results, nil
}

// pushFailed reports a push that failed. Another clone may have pushed
// between this push's fetch and its update of the remote (a race): the
// remote is fetched again, each branch that did not land is marked refused,
// and, when the remote moved, the error says to pull first.
func (s *Store) pushFailed(ctx context.Context, r *gitstore.Repo, url string, results []SyncResult, perr error) ([]SyncResult, error) {
	before := map[string]plumbing.Hash{}
	if refs, err := r.RefsUnder("refs/remotes/" + remoteName + "/"); err == nil {
		for name, h := range refs {
			before[strings.TrimPrefix(name, "refs/remotes/"+remoteName+"/")] = h
		}
	}
	remote, ferr := s.fetch(ctx, r, url)
	msg := perr.Error()
	locked := errors.Is(perr, errRemoteLocked)
	raced := !locked && (strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "failed to update ref") ||
		strings.Contains(msg, "failed to lock") || strings.Contains(msg, "reference already exists"))
	for i := range results {
		b := results[i].Branch
		if results[i].Action != SyncPushed {
			continue
		}
		ours, _ := r.Head(b)
		theirs, ok := remote[b]
		if ferr == nil && ok && theirs == ours {
			continue // this one landed
		}
		results[i].Action = SyncRefused
		if ferr == nil && theirs != before[b] && !locked {
			raced = true
			results[i].Detail = "another clone pushed it meanwhile; run `planq state pull`, then push again"
		} else {
			results[i].Detail = "not pushed: " + text.FirstLine(msg)
		}
	}
	if raced {
		return results, fmt.Errorf("%w: push to %s: another clone pushed meanwhile (%s); run `planq state pull`, then push again", ErrDiverged, url, text.FirstLine(msg))
	}
	if locked {
		return results, perr // it names the remote
	}
	return results, fmt.Errorf("push to %s: %w", url, perr)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
