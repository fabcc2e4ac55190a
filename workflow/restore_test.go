package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/workflow"
)

// claudeLine is a Claude Code transcript line of session id.
func claudeLine(id, uuid, cwd, text string) string {
	return `{"type":"user","sessionId":"` + id + `","uuid":"` + uuid + `","cwd":"` + cwd + `","message":{"role":"user","content":"` + text + `"}}`
}

// A session whose Claude Code file is gone (Claude Code's cleanup) is
// brought back from planq's copy, and its hooks then copy only what comes
// after.
func TestResumeRestoresAClaudeSessionWhoseFileIsGone(t *testing.T) {
	w := newSessionWorld(t)
	ctx := context.Background()
	o := workflow.Options{Dir: w.repo}
	st, err := workflow.Start(ctx, o, "Add a greeting file")
	if err != nil {
		t.Fatal(err)
	}
	id := claudeSession
	repo, _ := filepath.EvalSymlinks(w.repo)
	file := claude.SessionFile(claude.ConfigDir(os.Getenv), repo, id)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	w.transcript = file
	w.appendTranscript(claudeLine(id, "u1", repo, "hello"), claudeLine(id, "u2", repo, "write it"))
	// A subagent's conversation, in its own file beside the session's.
	sub := filepath.Join(strings.TrimSuffix(file, ".jsonl"), "subagents", "agent-a1.jsonl")
	if err := os.MkdirAll(filepath.Dir(sub), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sub, []byte(`{"isSidechain":true,"agentId":"a1","type":"user","sessionId":"`+id+`","uuid":"s1","message":{"role":"user","content":"subagent work (lynx)"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.sessionStart(claudeSession)
	w.hook(session.EventStop, claudeSession)
	p, _ := w.store().Path(st.Root)
	if data, _ := os.ReadFile(p); !strings.Contains(string(data), "subagent work (lynx)") {
		t.Fatalf("the stop did not keep the subagent's transcript:\n%s", data)
	}
	before, _ := os.ReadFile(file)
	// Claude Code's cleanup deletes the session's file and its subagents'.
	if err := os.RemoveAll(strings.TrimSuffix(file, ".jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	res, err := workflow.Resume(ctx, o, st.Root)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(file); string(got) != string(before) {
		t.Fatalf("restored file (the session's lines, not its subagent's):\n%s\nwant:\n%s", got, before)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "restored Claude Code session "+id) {
		t.Errorf("notes %q do not say the session was restored", res.Notes)
	}
	// The resumed session's next turn is copied once; the restored lines
	// are not copied again.
	w.appendTranscript(claudeLine(id, "u3", repo, "next turn"))
	w.hook(session.EventStop, claudeSession)
	data, _ := os.ReadFile(p)
	if n := strings.Count(string(data), `"sessionId":"`+id+`"`); n != 4 {
		t.Fatalf("the store holds %d lines of the session, want its 3 and its subagent's 1:\n%s", n, data)
	}
}

// A session that ran on a teammate's machine comes with the state repo:
// resume writes its file here, with the teammate's checkout's paths made
// this one's, and goes on in a new change on top of theirs.
func TestResumeBringsBackATeammatesClaudeSession(t *testing.T) {
	w := newSessionWorld(t)
	ctx := context.Background()
	o := workflow.Options{Dir: w.repo}
	ts := w.store()
	root := w.current().ChangeID
	w.jj("describe", "-m", "Add a greeting file")
	id := "9b9e73b2-ccbc-4831-9aec-5ab717a5a90e"
	alice := "/home/alice/src/proj"
	lines := claudeLine(id, "a1", alice, "hello from "+alice+"/x.go") + "\n" + claudeLine(id, "a2", alice+"2", "other dir") + "\n"
	if _, err := ts.Import(ctx, root, "alice-laptop-123456", 1, []byte(lines)); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Update(ctx, root, func(s *transcript.Session) error {
		s.Task, s.Origin = "Add a greeting file", "alice-laptop-123456"
		s.AddChange(root)
		s.Agents = append(s.Agents, transcript.Agent{ID: id, Host: "claude", Change: root, Workspace: alice, Origin: "alice-laptop-123456", Started: time.Now()})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err := workflow.Resume(ctx, o, root)
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.EvalSymlinks(w.repo)
	got, err := os.ReadFile(claude.SessionFile(claude.ConfigDir(os.Getenv), repo, id))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"cwd":"`+repo+`"`) || !strings.Contains(string(got), repo+"/x.go") || !strings.Contains(string(got), alice+"2") || strings.Contains(string(got), `"cwd":"`+alice+`"`) {
		t.Fatalf("restored file's paths:\n%s", got)
	}
	if res.SessionID != id || res.Change.ChangeID == root || res.Root != root {
		t.Fatalf("resume: %+v; want session %s in a new change on top of %s", res, id, root)
	}
	if c := w.current(); c.ChangeID != res.Change.ChangeID || len(c.Parents) != 1 || c.Parents[0] != root || !strings.Contains(c.Description, "Session: "+root) {
		t.Fatalf("@ = %+v, want a new change on the teammate's, in the lineage", c)
	}
}
