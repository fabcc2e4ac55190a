package gemini

import (
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/session"
)

// Gemini CLI records a subagent's conversation (invoke_agent) in a chat
// file of its own, chats/<session id>/<agent id>.jsonl beside the
// session's chat (chats/session-<date>-<id8>.jsonl). Every subagent of the
// session writes there, nested ones too: their executor keeps the main
// session's id as their parent (LocalAgentExecutor.executionContext,
// ChatRecordingService.initialize, 0.61.0) [src, run]. The hooks of a
// subagent's calls name the main session and its chat only, so these
// files are found from the session id.

// safeFilename is the directory name Gemini CLI's sanitizeFilenamePart
// makes of a session id: every character but [a-zA-Z0-9_-] becomes "_".
func safeFilename(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// SubagentChats lists the subagents' chat files of the session sessionID
// whose own chat is transcript (an absolute path), none when it has none.
func SubagentChats(transcript, sessionID string) []string {
	if !filepath.IsAbs(transcript) || sessionID == "" {
		return nil
	}
	return session.TranscriptsIn(filepath.Join(filepath.Dir(transcript), safeFilename(sessionID)))
}

// withSubagentChats adds, for the events that copy the session's
// transcript (turn end, compaction, session end), its subagents' chats.
func withSubagentChats(ev session.Event) session.Event {
	switch ev.Name {
	case session.EventStop, session.EventPreCompact, session.EventSessionEnd:
		ev.SubTranscripts = SubagentChats(ev.TranscriptPath, ev.SessionID)
	}
	return ev
}
