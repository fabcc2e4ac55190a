package copilot

import (
	"os"
	"path/filepath"

	"github.com/planq-dev/planq/hooks/session"
)

// copilotHome is Copilot's state directory: $COPILOT_HOME, else ~/.copilot.
func copilotHome(getenv func(string) string, home string) string {
	if d := getenv("COPILOT_HOME"); filepath.IsAbs(d) {
		return d
	}
	if home == "" {
		home = getenv("HOME")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".copilot")
}

// transcriptOf is the events.jsonl Copilot keeps for session id, or ""
// when there is none.
func transcriptOf(getenv func(string) string, id string) string {
	d := copilotHome(getenv, "")
	if d == "" || !session.ValidSession(id) {
		return ""
	}
	p := filepath.Join(d, "session-state", id, "events.jsonl")
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}
