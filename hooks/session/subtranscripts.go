package session

import (
	"os"
	"path/filepath"
	"strings"
)

// TranscriptsIn lists the JSON Lines files in dir (regular files only, not
// below it): where a host keeps its subagents' transcripts apart from the
// session's (Event.SubTranscripts). A missing dir holds none.
func TranscriptsIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
