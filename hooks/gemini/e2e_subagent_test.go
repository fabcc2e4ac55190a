package gemini_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/e2e"
	"github.com/planq-dev/planq/internal/fakemodel"
	"github.com/planq-dev/planq/internal/testenv"
)

// TestSubagentChatIsKeptInGemini: Gemini CLI keeps a subagent's
// conversation (invoke_agent) in a chat file of its own, under
// chats/<session id>/, which no hook names; planq copies it into the
// lineage at the turn's end, where query_ancestor finds it after Gemini
// CLI's chats are gone.
func TestSubagentChatIsKeptInGemini(t *testing.T) {
	gm := fakemodel.EnsureGemini(t)
	w := e2e.New(t, testenv.BuildPlanqWithHook(t, "../..")) // before Isolate: the build uses the real Go caches
	w.Install("--host", "gemini")
	gemini := w.CLI(gm, fakemodel.HostRun.Gemini)

	w.Play(gemini, "Look around through a subagent",
		fakemodel.Turn{Text: "Declaring.", Tools: []fakemodel.ToolUse{{Name: "mcp_planq_jj_init", Input: map[string]any{"description": "Look around through a subagent"}}}},
		fakemodel.Turn{Text: "Delegating.", Tools: []fakemodel.ToolUse{{Name: "invoke_agent", Input: map[string]any{
			"agent_name": "generalist", "prompt": "Say what the project holds."}}}},
		// The subagent.
		fakemodel.Turn{Text: "Looking around (lynx-sub).", Tools: []fakemodel.ToolUse{{Name: "complete_task", Input: map[string]any{
			"result": map[string]any{"response": "The project holds a readme."}}}}},
		// The parent again.
		fakemodel.Turn{Text: "Done."},
	)
	chats := filepath.Join(w.Home, ".gemini", "tmp")
	sub := chatWith(t, chats, "lynx-sub")
	if sub == "" || strings.HasPrefix(filepath.Base(sub), "session-") {
		t.Fatalf("Gemini CLI kept the subagent's turn in %q, not in a subagent's chat: the test's premise is wrong", sub)
	}
	if !w.Vaulted("lynx-sub") {
		t.Fatal("planq's store lacks the subagent's conversation")
	}
	// Gemini CLI's cleanup deletes the session's chats.
	if err := os.RemoveAll(chats); err != nil {
		t.Fatal(err)
	}
	s := w.Play(gemini, "What did the subagent do?",
		e2e.AskAncestor("mcp_planq_query_ancestor", "lynx-sub"), fakemodel.Turn{Text: "I see."})
	w.ToolOK(s.Loop[1], "query_ancestor for the subagent's turn", "Looking around (lynx-sub).")
}

// chatWith returns the first chat file under dir holding text, "" for none.
func chatWith(t *testing.T, dir, text string) string {
	t.Helper()
	found := ""
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != "" || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), text) {
			found = p
		}
		return nil
	})
	return found
}
