package share

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
)

const root = "zzzzkkkkllllmmmmnnnnoooopppprrrr"

// machine is one side of a test: a code repo, its PLANQ_HOME and its
// sharer, with the state remote set.
type machine struct {
	t    *testing.T
	repo string
	sh   *Sharer
	src  string // the host's transcript file its sessions write
}

func newMachine(t *testing.T, remote string) *machine {
	t.Helper()
	base := t.TempDir()
	repo, home := filepath.Join(base, "code"), filepath.Join(base, "planq-home")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", "-b", "main", repo)
	cmd.Env = append(os.Environ(), "HOME="+base, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	env := map[string]string{"HOME": base, "PLANQ_HOME": home}
	st, err := staterepo.Open(staterepo.Options{Dir: repo, Getenv: func(k string) string { return env[k] }, LockTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetRemote(remote, repo); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	sh, err := New(st)
	if err != nil {
		t.Fatal(err)
	}
	return &machine{t: t, repo: repo, sh: sh, src: filepath.Join(base, "session.jsonl")}
}

// session appends lines to the machine's host transcript and copies them,
// as the hooks do, recording the agent session id in the lineage.
func (m *machine) session(id string, lines ...string) {
	m.t.Helper()
	f, err := os.OpenFile(m.src, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		m.t.Fatal(err)
	}
	for _, l := range lines {
		fmt.Fprintf(f, "{\"sessionId\":%q,\"text\":%q}\n", id, l)
	}
	f.Close()
	ctx := context.Background()
	if _, err := m.sh.TS.Update(ctx, root, func(s *transcript.Session) error {
		s.Task = "Add rate limiting"
		s.AddChange(root)
		s.AddAgent(transcript.Agent{ID: id, Host: "claude", Transcript: m.src, Workspace: m.repo, Change: root, Started: time.Now().UTC()})
		return nil
	}); err != nil {
		m.t.Fatal(err)
	}
	if _, err := m.sh.TS.Copy(ctx, root, m.src, transcript.CopyOptions{}); err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) stored() string {
	m.t.Helper()
	p, _ := m.sh.TS.Path(root)
	data, err := os.ReadFile(p)
	if err != nil {
		m.t.Fatal(err)
	}
	return string(data)
}

func TestSessionsTravelRedactedAndIncrementally(t *testing.T) {
	t.Parallel()
	remote := filepath.Join(t.TempDir(), "state.git")
	a, b := newMachine(t, remote), newMachine(t, remote)
	ctx := context.Background()
	token := "ghp_" + strings.Repeat("aB3dE5fG7hI9", 3)
	a.session("sess-a", "please add rate limiting", "the key is "+token, "done")

	res, err := a.sh.Push(ctx)
	if err != nil || len(res.Shared) != 1 || res.Shared[0].Lines != 3 || res.Shared[0].Redactions != 1 || len(res.Pushed) != 1 {
		t.Fatalf("a push: %+v, %v", res, err)
	}
	// Pushing again shares and sends nothing.
	if res, err := a.sh.Push(ctx); err != nil || len(res.Shared) != 0 || len(res.Pushed) != 0 {
		t.Fatalf("second push: %+v, %v", res, err)
	}
	pull, err := b.sh.Pull(ctx, nil)
	if err != nil || len(pull.Imported) != 1 || pull.Imported[0].Lines != 3 {
		t.Fatalf("b pull: %+v, %v", pull, err)
	}
	got := b.stored()
	if strings.Contains(got, token) || !strings.Contains(got, "[REDACTED by planq: github-pat]") || !strings.Contains(got, "please add rate limiting") {
		t.Fatalf("b's copy of the transcript:\n%s", got)
	}
	if !strings.Contains(a.stored(), token) {
		t.Fatal("a's own copy lost the secret: it must stay whole")
	}
	sess, err := b.sh.TS.Load(root)
	if err != nil || sess.Task != "Add rate limiting" || sess.Origin != a.sh.Origin || len(sess.Agents) != 1 || sess.Agents[0].Origin != a.sh.Origin || sess.Agents[0].Workspace != a.repo {
		t.Fatalf("b's record: %+v, %v", sess, err)
	}
	if r, err := b.sh.TS.RootOfSession("sess-a"); err != nil || r != root {
		t.Fatalf("b's index of a's session: %q, %v", r, err)
	}

	// More on a: b gets only the new lines.
	a.session("sess-a", "one more turn")
	if _, err := a.sh.Push(ctx); err != nil {
		t.Fatal(err)
	}
	if pull, err := b.sh.Pull(ctx, nil); err != nil || len(pull.Imported) != 1 || pull.Imported[0].Lines != 1 {
		t.Fatalf("b's second pull: %+v, %v", pull, err)
	}
	// b resumes the lineage: its own lines go back to a, and a does not
	// share them again as its own.
	b.session("sess-a", "b continues")
	res, err = b.sh.Push(ctx)
	if err != nil || len(res.Shared) != 1 || res.Shared[0].Lines != 1 {
		t.Fatalf("b push: %+v, %v", res, err)
	}
	if _, err := a.sh.Pull(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(a.stored(), "{\"sessionId\":\"sess-a\",\"text\":\"b continues\"}\n") {
		t.Fatalf("a's transcript after pulling b's lines:\n%s", a.stored())
	}
	if res, err := a.sh.Push(ctx); err != nil || len(res.Shared) != 0 {
		t.Fatalf("a shared b's lines as its own: %+v, %v", res, err)
	}
	for name, m := range map[string]*machine{"a": a, "b": b} {
		if n := strings.Count(m.stored(), "\n"); n != 5 {
			t.Errorf("%s holds %d lines, want 5 (4 of a, 1 of b):\n%s", name, n, m.stored())
		}
	}
}

func TestFetchTakesOnlyTheLineagesAsked(t *testing.T) {
	t.Parallel()
	remote := filepath.Join(t.TempDir(), "state.git")
	a, b := newMachine(t, remote), newMachine(t, remote)
	ctx := context.Background()
	a.session("sess-a", "hello")
	if _, err := a.sh.Push(ctx); err != nil {
		t.Fatal(err)
	}
	if found, err := b.sh.Fetch(ctx, []string{"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"}); err != nil || found {
		t.Fatalf("fetch of a lineage the remote lacks: %v, %v", found, err)
	}
	if _, err := b.sh.TS.Load(root); err == nil {
		t.Fatal("b has the lineage without asking for it")
	}
	if found, err := b.sh.Fetch(ctx, []string{root}); err != nil || !found {
		t.Fatalf("fetch: %v, %v", found, err)
	}
	if !strings.Contains(b.stored(), "hello") {
		t.Fatalf("b's transcript: %s", b.stored())
	}
}

// What planq state status says the next push would share (Pending) is what
// it shares: news in the transcript, a changed record, nothing once pushed,
// and nothing of a teammate's lineage pulled here.
func TestPendingIsWhatTheNextPushShares(t *testing.T) {
	t.Parallel()
	remote := filepath.Join(t.TempDir(), "state.git")
	a, b := newMachine(t, remote), newMachine(t, remote)
	ctx := context.Background()
	pending := func(m *machine, what string) []Shared {
		t.Helper()
		p, err := m.sh.Pending()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return p
	}
	push := func(what string) {
		t.Helper()
		if _, err := a.sh.Push(ctx); err != nil {
			t.Fatalf("%s: push: %v", what, err)
		}
		for range 2 { // and again: what is remembered of the push holds
			if p := pending(a, what+", pushed"); len(p) != 0 {
				t.Fatalf("%s, pushed: pending %+v, want nothing", what, p)
			}
		}
	}
	a.session("sess-a", "please add rate limiting", "done")
	if p := pending(a, "first session"); len(p) != 1 || p[0].Root != root || p[0].Bytes == 0 || !p[0].Record {
		t.Fatalf("first session: pending %+v", p)
	}
	push("first session")

	before := len(a.stored())
	a.session("sess-a", "one more line")
	if p := pending(a, "a new line"); len(p) != 1 || p[0].Bytes != int64(len(a.stored())-before) {
		t.Fatalf("a new line: pending %+v, want its %d bytes", p, len(a.stored())-before)
	}
	push("a new line")

	// The record alone changes, to a task of the same length.
	if _, err := a.sh.TS.Update(ctx, root, func(s *transcript.Session) error {
		s.Task = "Add rate-limiting"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if p := pending(a, "a changed record"); len(p) != 1 || p[0].Bytes != 0 || !p[0].Record || p[0].Task != "Add rate-limiting" {
		t.Fatalf("a changed record: pending %+v", p)
	}
	push("a changed record")

	if _, err := b.sh.Pull(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if p := pending(b, "a teammate's lineage"); len(p) != 0 {
			t.Fatalf("a teammate's lineage pulled: pending %+v, want nothing", p)
		}
	}
}
