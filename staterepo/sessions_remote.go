package staterepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"

	"github.com/planq-dev/planq/staterepo/internal/crash"
	"github.com/planq-dev/planq/staterepo/internal/gitstore"
)

// The session lineages travel with git's own protocol, driven at the level
// of its sessions rather than through go-git's Remote: a push or pull of
// lineages reads the remote's refs once, moves only the objects of the
// lineages that differ (the old commit of each is the only "have" its pack
// is cut against), and updates this repo's refs itself, with planq's lock
// and git's lock-file protocol, after the objects are stored. A process
// killed at any point leaves a ref at its old or its new commit, and
// objects nothing names yet, which the next push or pull uses.

// LineageSync is what a push or pull of the session lineages did.
type LineageSync struct {
	// Pushed are the lineages the remote got (push), Moved those that
	// changed here: new, fast-forwarded or merged (pull, and a push that
	// had to take the remote's commits first).
	Pushed []string `json:"pushed,omitempty"`
	Moved  []string `json:"moved,omitempty"`
	// UpToDate counts the lineages that were the same on both sides.
	UpToDate int `json:"up_to_date"`
	// Missing are the lineages asked for that the remote does not have.
	Missing []string `json:"missing,omitempty"`
}

// remoteEndpoint returns the state remote's endpoint, the transport that
// reaches it, and its URL.
func (s *Store) remoteEndpoint() (*transport.Endpoint, transport.Transport, string, error) {
	url, _, err := s.remoteURL()
	if err != nil {
		return nil, nil, "", err
	}
	ep, c, err := endpoint(url)
	return ep, c, url, err
}

// endpoint returns url's endpoint and the transport that reaches it.
func endpoint(url string) (*transport.Endpoint, transport.Transport, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, nil, fmt.Errorf("state remote %s: %w", url, err)
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return nil, nil, fmt.Errorf("state remote %s: %w", url, err)
	}
	return ep, c, nil
}

// remoteLineages lists the lineage refs of an advertisement.
func remoteLineages(ar *packp.AdvRefs) map[string]plumbing.Hash {
	out := map[string]plumbing.Hash{}
	for name, h := range ar.References {
		root, ok := strings.CutPrefix(name, SessionsRefPrefix)
		if ok && validLineageName(root) {
			out[root] = h
		}
	}
	return out
}

// RemoteLineages lists the roots of the session lineages the state remote
// has (from its ref advertisement alone: no objects cross the wire), for a
// lazy fetch that must find which lineage a change belongs to.
func (s *Store) RemoteLineages(ctx context.Context) (map[string]bool, error) {
	ep, c, url, err := s.remoteEndpoint()
	if err != nil {
		return nil, err
	}
	sess, ar, err := uploadPack(ctx, ep, c)
	if err != nil {
		return nil, fmt.Errorf("list the lineages of %s: %w", url, err)
	}
	defer sess.Close()
	out := map[string]bool{}
	if ar == nil {
		return out, nil // an empty remote
	}
	for root := range remoteLineages(ar) {
		out[root] = true
	}
	return out, nil
}

// uploadPack opens an upload-pack session with the remote and reads its
// ref advertisement: nil for an empty remote. The caller closes the
// session, unless err is not nil.
func uploadPack(ctx context.Context, ep *transport.Endpoint, c transport.Transport) (transport.UploadPackSession, *packp.AdvRefs, error) {
	sess, err := c.NewUploadPackSession(ep, nil)
	if err != nil {
		return nil, nil, err
	}
	ar, err := sess.AdvertisedReferencesContext(ctx)
	switch {
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return sess, nil, nil
	case err != nil:
		sess.Close()
		return nil, nil, err
	}
	return sess, ar, nil
}

// has reports whether the repo holds commit h.
func has(r *gitstore.Repo, h plumbing.Hash) bool {
	_, err := r.Commit(h)
	return err == nil
}

// PullLineages fetches the session lineages the remote has that differ
// here — only those named in roots, when it is not nil (a lazy fetch of the
// lineages a query needs) — and brings each local lineage ref up to date:
// created, fast-forwarded, or merged when both sides moved. Only the new
// objects cross the wire: each lineage's local commit is what its pack is
// cut against.
func (s *Store) PullLineages(ctx context.Context, roots []string) (LineageSync, error) {
	var out LineageSync
	ep, c, url, err := s.remoteEndpoint()
	if err != nil {
		return out, err
	}
	if !s.Initialized() {
		lk, _, err := s.lockInitOpen(ctx)
		if err != nil {
			return out, err
		}
		lk.Release()
	}
	r, err := s.openRepo()
	if err != nil {
		return out, err
	}
	sess, ar, err := uploadPack(ctx, ep, c)
	if err != nil {
		return out, fmt.Errorf("fetch from %s: %w", url, err)
	}
	defer sess.Close()
	if ar == nil { // an empty remote
		out.Missing = roots
		return out, nil
	}
	remote := remoteLineages(ar)
	if roots != nil {
		asked := map[string]plumbing.Hash{}
		for _, root := range roots {
			if h, ok := remote[root]; ok {
				asked[root] = h
			} else {
				out.Missing = append(out.Missing, root)
			}
		}
		remote = asked
	}
	local, err := lineageRefs(r)
	if err != nil {
		return out, err
	}
	var wants, haves []plumbing.Hash
	for _, root := range sortedKeys(remote) {
		h := remote[root]
		if local[root] == h.String() {
			out.UpToDate++
			continue
		}
		if !has(r, h) {
			wants = append(wants, h)
			if l := local[root]; l != "" {
				haves = append(haves, plumbing.NewHash(l))
			}
		}
	}
	if len(wants) > 0 {
		if err := fetchPack(ctx, sess, ar, r, wants, haves); err != nil {
			return out, fmt.Errorf("fetch from %s: %w", url, err)
		}
		crash.Point("lineage-fetched")
	}
	for _, root := range sortedKeys(remote) {
		if local[root] == remote[root].String() {
			continue
		}
		moved, err := s.takeRemote(ctx, r, root, local[root], remote[root])
		if err != nil {
			return out, err
		}
		if moved {
			out.Moved = append(out.Moved, root)
		}
	}
	return out, nil
}

// fetchPack asks the remote for the objects of wants that haves lack, and
// stores the pack it sends (indexPack).
func fetchPack(ctx context.Context, sess transport.UploadPackSession, ar *packp.AdvRefs, r *gitstore.Repo, wants, haves []plumbing.Hash) error {
	req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
	req.Wants, req.Haves = wants, haves
	rd, err := sess.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil
	}
	if err != nil {
		return err
	}
	defer rd.Close()
	var in io.Reader = rd
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		in = sideband.NewDemuxer(sideband.Sideband64k, rd)
	case req.Capabilities.Supports(capability.Sideband):
		in = sideband.NewDemuxer(sideband.Sideband, rd)
	}
	return indexPack(ctx, r.Path(), in)
}

// indexPack stores the pack read from in, in the bare repo, with `git
// index-pack` (completing a thin pack with the bases it lacks, as `git
// fetch` does). git writes the pack and its index to temporary files and
// renames them into place, the pack first, so a process killed at any
// instant leaves the pack whole or absent. go-git's writer, used before,
// created the index under its final name and skipped writing it when it
// existed: a fetch killed while it wrote the index left a short one, which
// the next fetch of the same pack kept, and every read of the repo failed.
func indexPack(ctx context.Context, bare string, in io.Reader) error {
	git, err := findGit(ctx)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, git, append(slices.Clone(gitConfig), "index-pack", "--stdin", "--fix-thin")...)
	cmd.Dir = bare
	cmd.Env = gitEnv()
	cmd.Stdin = in
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git index-pack in %s: %v: %s", bare, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// takeRemote brings root's local ref (hex, "" for none) up to date with
// the remote's commit theirs, whose objects are here: created,
// fast-forwarded, or merged. moved is false when ours already has it all.
func (s *Store) takeRemote(ctx context.Context, r *gitstore.Repo, root, ours string, theirs plumbing.Hash) (moved bool, err error) {
	if ours == "" {
		return true, s.moveLineage(ctx, r, root, plumbing.ZeroHash, theirs, "planq: pull: created from the remote")
	}
	oh := plumbing.NewHash(ours)
	rel, err := r.Compare(oh, theirs)
	if err != nil {
		return false, err
	}
	switch rel {
	case gitstore.Same, gitstore.Ahead:
		return false, nil
	case gitstore.Behind:
		return true, s.moveLineage(ctx, r, root, oh, theirs, "planq: pull: fast-forward")
	}
	next, err := s.mergeLineages(r, root, oh, theirs)
	if err != nil {
		return false, err
	}
	if next == oh {
		return false, nil
	}
	return true, s.moveLineage(ctx, r, root, oh, next, "planq: pull: merged")
}

// PushLineages sends the remote the session lineages that are new there or
// ahead of it (only those in roots, when it is not nil). A lineage the
// remote moved too (a teammate shared more of it) is fetched and merged
// first, then sent; the pack holds only the objects each lineage gained
// since the remote's commit of it. A local path that does not exist yet is
// created as a bare repo.
func (s *Store) PushLineages(ctx context.Context, roots []string) (LineageSync, error) {
	var out LineageSync
	if !s.Initialized() {
		return out, nil
	}
	ep, c, url, err := s.remoteEndpoint()
	if err != nil {
		return out, err
	}
	if err := s.ensureLocalRemote(); err != nil {
		return out, err
	}
	r, err := s.openRepo()
	if err != nil {
		return out, err
	}
	for attempt := 0; ; attempt++ {
		local, err := lineageRefs(r)
		if err != nil {
			return out, err
		}
		if roots != nil {
			only := map[string]string{}
			for _, root := range roots {
				if h, ok := local[root]; ok {
					only[root] = h
				}
			}
			local = only
		}
		if len(local) == 0 {
			return out, nil
		}
		sess, err := c.NewReceivePackSession(ep, nil)
		if err != nil {
			return out, fmt.Errorf("push to %s: %w", url, err)
		}
		ar, err := sess.AdvertisedReferencesContext(ctx)
		if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
			sess.Close()
			return out, fmt.Errorf("push to %s: %w", url, err)
		}
		remote := map[string]plumbing.Hash{}
		if ar != nil {
			remote = remoteLineages(ar)
		}
		var cmds []*packp.Command
		var news, olds []plumbing.Hash
		var fetch []string
		out.UpToDate = 0
		for _, root := range sortedKeys(local) {
			lh := plumbing.NewHash(local[root])
			rh, ok := remote[root]
			switch {
			case !ok:
				cmds = append(cmds, &packp.Command{Name: plumbing.ReferenceName(LineageRef(root)), Old: plumbing.ZeroHash, New: lh})
				news = append(news, lh)
				continue
			case rh == lh:
				out.UpToDate++
				continue
			case !has(r, rh):
				fetch = append(fetch, root)
				continue
			}
			rel, err := r.Compare(lh, rh)
			if err != nil {
				sess.Close()
				return out, err
			}
			switch rel {
			case gitstore.Ahead:
				cmds = append(cmds, &packp.Command{Name: plumbing.ReferenceName(LineageRef(root)), Old: rh, New: lh})
				news, olds = append(news, lh), append(olds, rh)
			default:
				fetch = append(fetch, root) // behind or diverged: take the remote's first
			}
		}
		if len(fetch) > 0 && attempt < 2 {
			sess.Close()
			pulled, err := s.PullLineages(ctx, fetch)
			if err != nil {
				return out, err
			}
			out.Moved = append(out.Moved, pulled.Moved...)
			continue
		}
		if len(cmds) == 0 {
			sess.Close()
			return out, nil
		}
		var msgs lockedBuffer
		err = sendPack(ctx, sess, ar, r, cmds, news, olds, &msgs)
		sess.Close()
		if err != nil {
			retry, lerr := s.remoteLocked(url, msgs.String())
			if lerr != nil {
				return out, lerr
			}
			if retry && attempt < 3 {
				continue
			}
		}
		switch {
		case errors.Is(err, errPackObjects):
			return out, fmt.Errorf("push session lineages to %s: %w; `git -C %s fsck` lists what is missing or damaged", url, err, r.Path())
		case err != nil:
			return out, fmt.Errorf("push session lineages to %s: %w; run `planq state push` again (another clone may have pushed meanwhile)", url, err)
		}
		crash.Point("lineage-sent")
		for _, c := range cmds {
			out.Pushed = append(out.Pushed, strings.TrimPrefix(c.Name.String(), SessionsRefPrefix))
		}
		return out, nil
	}
}

// sendPack sends the commands with a pack of the objects reachable from
// news and not from olds, and checks the remote's report; the remote's
// messages go to msgs. git writes the
// pack (`git pack-objects --revs`, as `git push` does): it streams it,
// whatever its size, where go-git's encoder held every object of the pack
// in memory at once and searched deltas between transcript segments (the
// first push of 100 MB of transcripts took 420 MB and 15 s).
func sendPack(ctx context.Context, sess transport.ReceivePackSession, ar *packp.AdvRefs, r *gitstore.Repo, cmds []*packp.Command, news, olds []plumbing.Hash, msgs *lockedBuffer) error {
	caps := capability.NewList()
	if ar != nil {
		caps = ar.Capabilities
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(caps)
	req.Commands = cmds
	askProgress(req, caps, msgs)
	ctx, cancel := context.WithCancel(ctx) // stops git when this returns early
	defer cancel()
	pack, wait, err := packObjects(ctx, r.Path(), news, olds, caps.Supports(capability.OFSDelta))
	if err != nil {
		return err
	}
	req.Packfile = pack
	rs, err := sess.ReceivePack(ctx, req)
	if err != nil {
		// git stops at the closed pipe; when it failed first, say why.
		_ = pack.Close()
		if werr := wait(); werr != nil && strings.Contains(werr.Error(), "fatal:") {
			return werr // it failed first
		}
		return err
	}
	if err := wait(); err != nil {
		return err
	}
	if rs != nil {
		return rs.Error()
	}
	return nil
}

// errPackObjects marks a push that failed because git could not pack
// this repo's objects.
var errPackObjects = errors.New("git pack-objects")

// packObjects starts `git pack-objects` in the bare repo for the objects
// reachable from news and not from olds; the caller reads the pack, then
// calls wait. Objects over bigObject are not searched for deltas, as in
// maintenance.
func packObjects(ctx context.Context, bare string, news, olds []plumbing.Hash, ofsDelta bool) (io.ReadCloser, func() error, error) {
	git, err := findGit(ctx)
	if err != nil {
		return nil, nil, err
	}
	var revs strings.Builder
	for _, h := range news {
		revs.WriteString(h.String() + "\n")
	}
	for _, h := range olds {
		revs.WriteString("^" + h.String() + "\n")
	}
	args := append(slices.Clone(gitConfig), "pack-objects", "--revs", "--stdout", "-q")
	if ofsDelta {
		args = append(args, "--delta-base-offset")
	}
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = bare
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(revs.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("git pack-objects in %s: %w", bare, err)
	}
	wait := func() error {
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("%w in %s: %v: %s", errPackObjects, bare, err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	return out, wait, nil
}

// ensureLocalRemote creates a state remote that is a local path and does
// not exist yet, as Push does, configured for the session lineages (see
// remoteConfig).
func (s *Store) ensureLocalRemote() error {
	url, local, err := s.remoteURL()
	if err != nil || !local {
		return err
	}
	if _, err := os.Stat(url); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	repo, err := git.PlainInit(url, true)
	if err != nil {
		return fmt.Errorf("create the remote %s: %w", url, err)
	}
	cfg, err := repo.Config()
	if err != nil {
		return fmt.Errorf("create the remote %s: %w", url, err)
	}
	for _, o := range remoteConfig {
		cfg.Raw.Section(o[0]).SetOption(o[1], o[2])
	}
	if err := repo.SetConfig(cfg); err != nil {
		return fmt.Errorf("create the remote %s: %w", url, err)
	}
	return os.WriteFile(filepath.Join(url, "HEAD"), []byte("ref: refs/heads/"+GlobalBranch+"\n"), 0o644)
}

// remoteConfig is the git configuration a state remote planq creates
// gets (section, key, value): it keeps every pack a push sends, where git
// unpacks one of fewer than 100 objects (a lineage's new segments) into
// loose objects that each fetch of them then compresses again, and it
// searches no deltas between transcript segments, like planq's own
// maintenance (bigObject). A lazy fetch of a 55 MB lineage pushed on its
// own took 3.2 s from a remote without them, 0.55 s with them.
var remoteConfig = [][3]string{
	{"receive", "unpackLimit", "1"},
	{"core", "bigFileThreshold", bigObject},
}
