package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/jj"
)

// TestEveryTurnEndKeepsTheTranscript is the vault in Claude Code's hooks:
// each stop copies the turn's new lines (once), a later session's start
// copies what a crashed session wrote after its last hook, and the host's
// cleanup of its own transcript then loses nothing.
func TestEveryTurnEndKeepsTheTranscript(t *testing.T) {
	w := newHookWorld(t)
	ctx := context.Background()
	if _, err := jj.Declare(ctx, jj.New(w.repo), "Add a greeting file", ""); err != nil {
		t.Fatal(err)
	}
	w.run(postToolUse, "PostToolUse-jj_init")
	root := w.current().ChangeID
	ts := w.store()
	stored := func() string {
		t.Helper()
		p, _ := ts.Path(root)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	w.appendTranscript(`{"turn":1}`)
	w.run(stop, "Stop")
	if got := stored(); got != "{\"turn\":1}\n" {
		t.Fatalf("after the first turn's stop the store holds %q", got)
	}
	w.appendTranscript(`{"turn":2}`)
	w.run(stop, "Stop")
	w.run(stop, "Stop") // a stop with nothing new copies nothing
	if got := stored(); got != "{\"turn\":1}\n{\"turn\":2}\n" {
		t.Fatalf("after the second turn's stop the store holds %q", got)
	}

	// The host crashes mid-turn: no stop, no session end.
	w.appendTranscript(`{"turn":3,"crashed":true}`)
	// Another session starts in the project, on a change of its own.
	w.jj("new", "-m", "Something else")
	other := filepath.Join(t.TempDir(), "5b0c9d1e-2f3a-4b5c-8d7e-9f0a1b2c3d4e.jsonl")
	if err := os.WriteFile(other, []byte("{\"other\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := w.event("SessionStart-startup")
	in.SessionID, in.TranscriptPath = "5b0c9d1e-2f3a-4b5c-8d7e-9f0a1b2c3d4e", other
	if _, err := sessionStart(w.r, ctx, in); err != nil {
		t.Fatal(err)
	}
	if got := stored(); !strings.HasSuffix(got, "{\"turn\":3,\"crashed\":true}\n") || strings.Contains(got, "other") {
		t.Fatalf("after the next session's start the crashed session's lineage holds %q", got)
	}
	// Claude Code's cleanup deletes the crashed session's file: the store
	// keeps it whole.
	if err := os.Remove(w.transcript); err != nil {
		t.Fatal(err)
	}
	if lags, err := ts.Behind(); err != nil || len(lags) != 0 {
		t.Fatalf("transcripts behind: %+v, %v", lags, err)
	}
	if got := stored(); got != "{\"turn\":1}\n{\"turn\":2}\n{\"turn\":3,\"crashed\":true}\n" {
		t.Fatalf("after the host's cleanup the store holds %q", got)
	}
}
