package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/internal/atomicfile"
	"github.com/planq-dev/planq/jj"
	"github.com/planq-dev/planq/transcript"
)

// A session planq resumes needs the host's own file of it. planq writes
// that file from the lineage's stored transcript when the host cannot
// resume the session as it is: the file is gone (the host's cleanup), the
// session ran on a teammate's machine (pulled with the state repo), or a
// teammate went on with it and the file here lacks their turns. The
// workspace the session ran in is rewritten to this checkout. Claude Code's
// sessions can be brought back so; other hosts' are resumed only from
// their own files.

// restoreSession makes the host's file of agent session a (of the lineage
// root) whole for a resume in this checkout, and says what it did ("" when
// nothing was needed).
func (s *scope) restoreSession(ctx context.Context, getenv func(string) string, root string, a transcript.Agent) (string, error) {
	host := a.Host
	if host == "" {
		host = "claude"
	}
	if host != "claude" {
		switch {
		case a.Origin != "":
			return "", fmt.Errorf("session %s ran in %s on %s; planq brings back Claude Code sessions from another machine, not %s ones yet: read it with query_ancestor, or start a fresh session on top with planq continue (it gets the change's description as its handoff)", a.ID, host, a.Origin, host)
		case a.Transcript != "":
			if _, err := os.Stat(a.Transcript); err != nil {
				return "", fmt.Errorf("the agent's own record of session %s is gone (%s), so it cannot be resumed; start a fresh session on top with planq continue", a.ID, a.Transcript)
			}
		}
		return "", nil
	}
	dir := claude.ConfigDir(getenv)
	if dir == "" {
		return "", errors.New("cannot find Claude Code's configuration directory: set HOME or CLAUDE_CONFIG_DIR")
	}
	here := s.Root
	if real, err := filepath.EvalSymlinks(here); err == nil {
		here = real
	}
	// The file the session's hooks named, when it is here; else where
	// Claude Code looks for it when resumed in this checkout.
	path := claude.SessionFile(dir, here, a.ID)
	if a.Transcript != "" {
		if _, err := os.Stat(a.Transcript); err == nil {
			path = a.Transcript
		}
	}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	if exists {
		// What the file gained since the hooks' last copy goes to the
		// store first, so a rewrite keeps it.
		if _, err := s.TS.Copy(ctx, root, path, transcript.CopyOptions{}); err != nil {
			return "", err
		}
	}
	var lines [][]byte
	foreign := map[string]bool{} // uuids of the lines from other machines
	marker := []byte(`"sessionId":"` + a.ID + `"`)
	err := s.TS.EachLine(ctx, root, func(line []byte, origin string) bool {
		// A subagent's lines carry its parent's session id, but Claude
		// Code keeps them in a file of their own, not the session's.
		if bytes.Contains(line, marker) && !bytes.Contains(line, []byte(`"isSidechain":true`)) {
			lines = append(lines, line)
			if origin != "" {
				foreign[lineUUID(line)] = true
			}
		}
		return true
	})
	if err != nil {
		return "", err
	}
	if len(lines) == 0 {
		if exists || a.Transcript == "" && a.Origin == "" {
			return "", nil // the host's file as it is, or the host's own search for it
		}
		return "", fmt.Errorf("Claude Code's file of session %s is gone (%s) and planq stored none of its lines, so it cannot be resumed; start a fresh session on top with planq continue", a.ID, path)
	}
	if exists && !lacksAny(path, foreign) {
		return "", nil // the file has every turn
	}
	from := a.Workspace
	if from == "" {
		from = lineCwd(lines[0])
	}
	var out bytes.Buffer
	for _, l := range lines {
		out.Write(rewritePath(l, from, here))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("restore session %s: %w", a.ID, err)
	}
	if err := atomicfile.Write(path, out.Bytes(), 0o600); err != nil {
		return "", fmt.Errorf("restore session %s: %w", a.ID, err)
	}
	// Its lines are the store's own: the hooks copy only what comes next.
	if err := s.TS.MarkCopied(ctx, root, path, int64(out.Len())); err != nil {
		return "", err
	}
	what := "whose file was gone"
	switch {
	case a.Origin != "":
		what = "from " + a.Origin
	case exists:
		what = "with the turns a teammate added"
	}
	note := fmt.Sprintf("restored Claude Code session %s (%s, %d lines) from lineage %s's stored transcript", a.ID, what, len(lines), jj.ShortID(root))
	if from != "" && from != here {
		note += fmt.Sprintf(", its paths moved from %s to %s", from, here)
	}
	return note, nil
}

// lineUUID is a Claude Code transcript line's "uuid", or "".
func lineUUID(line []byte) string {
	var v struct {
		UUID string `json:"uuid"`
	}
	_ = json.Unmarshal(line, &v)
	return v.UUID
}

// lineCwd is a Claude Code transcript line's "cwd", or "".
func lineCwd(line []byte) string {
	var v struct {
		Cwd string `json:"cwd"`
	}
	_ = json.Unmarshal(line, &v)
	return v.Cwd
}

// lacksAny reports whether the file at path lacks a line of any of the
// uuids.
func lacksAny(path string, uuids map[string]bool) bool {
	if len(uuids) == 0 {
		return false
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	have := map[string]bool{}
	for l := range bytes.Lines(data) {
		have[lineUUID(l)] = true
	}
	for u := range uuids {
		if u != "" && !have[u] {
			return true
		}
	}
	return false
}

// rewritePath replaces the directory from with to in a JSON line, where it
// stands as a whole path or a path's start (followed by a separator, a
// quote or the string's end), in its raw and JSON-escaped forms.
func rewritePath(line []byte, from, to string) []byte {
	if from == "" || from == to {
		return line
	}
	for _, pair := range [][2]string{{jsonInner(from), jsonInner(to)}, {from, to}} {
		f, t := pair[0], pair[1]
		var out []byte
		rest := line
		for {
			i := bytes.Index(rest, []byte(f))
			if i < 0 {
				out = append(out, rest...)
				break
			}
			after := rest[i+len(f):]
			out = append(out, rest[:i]...)
			if len(after) == 0 || strings.ContainsRune(`/\"`, rune(after[0])) {
				out = append(out, t...)
			} else {
				out = append(out, f...)
			}
			rest = after
		}
		line = out
		if f == jsonInner(from) && jsonInner(from) == from {
			break // the same form twice
		}
	}
	return line
}

// jsonInner is s as it stands inside a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
