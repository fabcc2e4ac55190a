package hooks

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/opencode"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

// viaOpenCode runs the core on an OpenCode plugin payload for event.
func viaOpenCode(t *testing.T, r *Runner, repo, event string, payload map[string]any) session.Reply {
	t.Helper()
	payload["directory"] = repo
	data, _ := json.Marshal(payload)
	ev, err := session.ReadEvent(opencode.Protocol{}, event, data, os.Getenv)
	if err != nil {
		t.Fatalf("%s: %v", event, err)
	}
	rep, err := r.Handle(context.Background(), ev)
	if err != nil {
		t.Fatalf("%s: %v", event, err)
	}
	return rep
}

// The same core serves OpenCode: its context names planq_<tool>, its
// compaction gets the living summary as context, the nudge goes to the main
// session only, and a subagent's session shares its parent's lineage.
func TestTheCoreSpeaksOpenCode(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	r := &Runner{}
	ctx := context.Background()
	noMessages := json.RawMessage(`[]`)

	rep := viaOpenCode(t, r, repo, session.EventSessionStart, map[string]any{"sessionID": "ses_main", "source": "startup"})
	if !strings.Contains(rep.Context, "call planq_jj_init") || strings.Contains(rep.Context, "mcp__planq__") {
		t.Fatalf("session-start context names the wrong tools:\n%s", rep.Context)
	}
	if _, err := jj.Declare(ctx, jj.New(repo), "Add a greeting file", ""); err != nil {
		t.Fatal(err)
	}
	viaOpenCode(t, r, repo, session.EventPostToolUse, map[string]any{"sessionID": "ses_main", "tool": "planq_jj_init", "callID": "c1", "args": map[string]string{"description": "Add a greeting file"}})
	testenv.WriteFile(t, repo, "hello.txt", "hello\n")

	// A subagent (task) works in the same change: it shares the lineage and
	// is never nudged itself.
	rep = viaOpenCode(t, r, repo, session.EventStop, map[string]any{"sessionID": "ses_child", "parentID": "ses_main", "messages": noMessages})
	if rep.Nudge != "" {
		t.Fatalf("a subagent session was nudged: %q", rep.Nudge)
	}
	viaOpenCode(t, r, repo, session.EventPostToolUse, map[string]any{"sessionID": "ses_child", "parentID": "ses_main", "tool": "write", "callID": "c2",
		"args": map[string]string{"filePath": "hello.txt", "content": "hello\n"}})
	s, err := session.Open(session.Env{}, session.Event{ProjectDir: repo})
	if err != nil {
		t.Fatal(err)
	}
	root, err := s.TS.RootOfSession("ses_main")
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := s.TS.Load(root)
	if strings.Join(sess.Files, ",") != "hello.txt" {
		t.Fatalf("the subagent's write is not in its parent's lineage: files %v", sess.Files)
	}

	// The main session's turn ends with a moved diff: the nudge, naming
	// planq_jj_describe.
	rep = viaOpenCode(t, r, repo, session.EventStop, map[string]any{"sessionID": "ses_main", "messages": noMessages})
	if !strings.Contains(rep.Nudge, "call planq_jj_describe") {
		t.Fatalf("stop nudge = %q, want it to name planq_jj_describe", rep.Nudge)
	}

	// Compaction: the context for OpenCode's compaction prompt leads with
	// the change and says the conversation was compacted.
	rep = viaOpenCode(t, r, repo, session.EventPreCompact, map[string]any{"sessionID": "ses_main", "messages": noMessages})
	if !strings.Contains(rep.Context, "Add a greeting file") || !strings.Contains(rep.Context, "just compacted") {
		t.Fatalf("pre-compact context:\n%s", rep.Context)
	}
	// Claude Code takes no context at compaction: its reply stays empty.
	in := Input{SessionID: "ses_main", Cwd: repo, HookEventName: "PreCompact", Trigger: "auto"}
	if out, err := preCompact(r, ctx, in); err != nil || out != nil {
		t.Fatalf("Claude Code's pre-compact answered %+v, %v", out, err)
	}
}
