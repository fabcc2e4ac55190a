package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/planq-dev/planq/hooks"
	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/sessiontest"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// claudeSession is the Claude Code session the workflow tests' agent runs.
const claudeSession = "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e"

// sessionWorld is a jj repo, a PLANQ_HOME and a Claude Code transcript
// file, with the real hooks (Claude Code's protocol, the session core) to
// bind an agent's session to what start, continue and resume made.
type sessionWorld struct {
	t          *testing.T
	repo       string
	transcript string
}

func newSessionWorld(t *testing.T) *sessionWorld {
	t.Helper()
	testenv.Isolate(t)
	return &sessionWorld{t: t, repo: testenv.JJRepo(t), transcript: filepath.Join(t.TempDir(), claudeSession+".jsonl")}
}

// hook runs Claude Code's hook for event in session id, as Claude Code
// sends it (its JSON on stdin, read by its protocol), and returns the
// core's reply.
func (w *sessionWorld) hook(event, id string) session.Reply {
	w.t.Helper()
	name := map[string]string{session.EventSessionStart: "SessionStart", session.EventStop: "Stop"}[event]
	payload := map[string]any{"session_id": id, "transcript_path": w.transcript, "cwd": w.repo, "hook_event_name": name}
	if event == session.EventSessionStart {
		payload["source"] = "startup"
	}
	in, _ := json.Marshal(payload)
	ev, err := session.ReadEvent(claude.Protocol{}, event, in, os.Getenv)
	if err != nil {
		w.t.Fatalf("%s: %v", event, err)
	}
	r, err := (&hooks.Runner{}).Handle(context.Background(), ev)
	if err != nil {
		w.t.Fatalf("%s: %v", event, err)
	}
	return r
}

// sessionStart starts session id and returns its context, which it must
// have.
func (w *sessionWorld) sessionStart(id string) string {
	w.t.Helper()
	c := w.hook(session.EventSessionStart, id).Context
	if c == "" {
		w.t.Fatalf("session-start of %s gave no context", id)
	}
	return c
}

func (w *sessionWorld) jj(args ...string) string {
	w.t.Helper()
	return sessiontest.JJ(w.t, w.repo, args...)
}

func (w *sessionWorld) current() jj.Change { w.t.Helper(); return sessiontest.Current(w.t, w.repo) }

func (w *sessionWorld) store() *transcript.Store { w.t.Helper(); return sessiontest.Store(w.t, w.repo) }

func (w *sessionWorld) appendTranscript(lines ...string) {
	w.t.Helper()
	sessiontest.AppendLines(w.t, w.transcript, lines...)
}
