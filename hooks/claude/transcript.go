package claude

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/planq-dev/planq/hooks/session"
)

// Claude Code keeps a session's transcript at
// <config dir>/projects/<the cwd, mangled>/<session id>.jsonl, and `claude
// --resume ID` looks for it there (checked in Claude Code 2.1.197's
// source). planq writes one there to resume a session whose file is gone
// (Claude Code's cleanupPeriodDays) or that ran on a teammate's machine.

// maxMangled is how long a mangled directory name may be before Claude
// Code cuts it and adds a hash.
const maxMangled = 200

// ConfigDir is Claude Code's configuration directory: CLAUDE_CONFIG_DIR,
// else ~/.claude.
func ConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude")
	}
	return ""
}

// SessionFile is the path of session id's transcript for a session run in
// cwd (an absolute path with its links resolved, as Claude Code sees its
// working directory).
func SessionFile(configDir, cwd, id string) string {
	return filepath.Join(configDir, "projects", MangleDir(cwd), id+".jsonl")
}

// MangleDir is Claude Code's name for a working directory under projects/:
// every UTF-16 unit that is not an ASCII letter or digit becomes '-'; a
// name longer than 200 units is cut there and gets '-' and the base-36
// absolute value of the path's 32-bit string hash (Java's hashCode).
func MangleDir(cwd string) string {
	units := utf16.Encode([]rune(cwd))
	out := make([]byte, len(units))
	for i, u := range units {
		if u < 128 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			out[i] = byte(u)
		} else {
			out[i] = '-'
		}
	}
	if len(out) <= maxMangled {
		return string(out)
	}
	var h int32
	for _, u := range units {
		h = (h << 5) - h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(out[:maxMangled]) + "-" + strconv.FormatInt(abs, 36)
}

// SubagentFiles are the transcripts of the subagents of the session whose
// transcript is the file transcript: Claude Code writes each subagent's
// conversation to <the session's file without .jsonl>/subagents/agent-<id>.jsonl,
// its lines marked "isSidechain":true, and deletes them with the session's
// file [run, 2.1.197]. None when there are none, or transcript is no
// session file.
func SubagentFiles(transcript string) []string {
	base, ok := strings.CutSuffix(transcript, ".jsonl")
	if !ok || !filepath.IsAbs(transcript) {
		return nil
	}
	return session.TranscriptsIn(filepath.Join(base, "subagents"))
}
