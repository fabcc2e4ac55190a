package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/planq-dev/planq/internal/text"
)

// OpenCode keeps no transcript file a hook can read: its plugin sends the
// session's messages, and planq keeps them in a mirror of Claude-shaped
// lines (AppendOpenCode) that Render reads like the other hosts' lines.

// openCodeMessage is one entry of client.session.messages(…).data: a message
// and its parts, as OpenCode's SDK returns them.
type openCodeMessage struct {
	Info struct {
		ID        string `json:"id"`
		SessionID string `json:"sessionID"`
		Role      string `json:"role"` // "user" or "assistant"
		Time      struct {
			Created   int64 `json:"created"`   // ms since the epoch
			Completed int64 `json:"completed"` // assistant: set when the message is finished
		} `json:"time"`
		Error   json.RawMessage `json:"error"`   // assistant: set when it failed or was aborted (it is finished, then)
		Summary json.RawMessage `json:"summary"` // assistant: true for a compaction's summary; user: an object
	} `json:"info"`
	Parts []openCodePart `json:"parts"`
}

// openCodePart is the part of a message part the mirror uses.
type openCodePart struct {
	Type      string             `json:"type"` // text, tool, file, subtask, reasoning, step-start, …
	Text      string             `json:"text"`
	Synthetic bool               `json:"synthetic"` // text OpenCode added (file contents, reminders), not said by anyone
	Ignored   bool               `json:"ignored"`
	CallID    string             `json:"callID"`
	Tool      string             `json:"tool"`
	Filename  string             `json:"filename"`
	Mime      string             `json:"mime"`
	Agent     string             `json:"agent"`  // subtask
	Prompt    string             `json:"prompt"` // subtask
	State     *openCodeToolState `json:"state"`
}

type openCodeToolState struct {
	Status string          `json:"status"` // pending, running, completed, error
	Input  json.RawMessage `json:"input"`
	Output string          `json:"output"`
	Error  string          `json:"error"`
}

// mirrorLine is one mirror line, shaped like a Claude Code transcript line so
// planq's transcript renderer reads it.
type mirrorLine struct {
	Type      string         `json:"type"` // user, assistant, or summary (a compaction's summary)
	UUID      string         `json:"uuid"` // OpenCode's message id
	SessionID string         `json:"sessionId"`
	Timestamp string         `json:"timestamp"`
	Summary   string         `json:"summary,omitempty"`
	Message   *mirrorMessage `json:"message,omitempty"`
}

type mirrorMessage struct {
	Role    string        `json:"role"`
	Content []mirrorBlock `json:"content"`
}

type mirrorBlock struct {
	Type      string          `json:"type"` // text, tool_use, tool_result
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// AppendOpenCode appends to the JSON Lines file at path the finished
// messages of an OpenCode session (the messages of a stop or pre-compact
// payload) that it does not hold yet, one line each, shaped like Claude Code
// transcript lines: text, tool calls with their results, and a compaction's
// summary as a "summary" line. An assistant message that is not finished is
// left for a later call; messages with nothing to show are not written. The
// file only grows, by whole lines, in one write followed by fsync; it and its
// directories are created private (0600, 0700). Appends to one path must not
// run concurrently (the plugin runs its hooks one at a time).
func AppendOpenCode(path string, messages json.RawMessage) (added int, err error) {
	var msgs []openCodeMessage
	if err := json.Unmarshal(messages, &msgs); err != nil {
		return 0, fmt.Errorf("opencode transcript: messages: %s", text.OneLine(err.Error()))
	}
	if msgs == nil && !bytes.Equal(bytes.TrimSpace(messages), []byte("[]")) {
		return 0, errors.New("opencode transcript: messages is not an array")
	}
	have, torn, err := mirrorIDs(path)
	if err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	if torn {
		buf.WriteByte('\n') // end a line a crash cut short, so ours start on their own
	}
	for _, m := range msgs {
		if m.Info.ID == "" || have[m.Info.ID] || !openCodeFinished(m) {
			continue
		}
		l, ok := openCodeLine(m)
		if !ok {
			continue
		}
		b, err := json.Marshal(l)
		if err != nil {
			return 0, fmt.Errorf("opencode transcript: encode message %s: %w", m.Info.ID, err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
		have[m.Info.ID] = true
		added++
	}
	if added == 0 {
		return 0, nil
	}
	if err := appendSynced(path, buf.Bytes()); err != nil {
		return 0, err
	}
	return added, nil
}

// openCodeFinished reports whether a message will not change any more.
func openCodeFinished(m openCodeMessage) bool {
	return m.Info.Role != "assistant" || m.Info.Time.Completed != 0 || len(m.Info.Error) > 0 && string(m.Info.Error) != "null"
}

// openCodeLine converts one message; ok is false when it has nothing to show.
func openCodeLine(m openCodeMessage) (l mirrorLine, ok bool) {
	l = mirrorLine{Type: m.Info.Role, UUID: m.Info.ID, SessionID: m.Info.SessionID,
		Timestamp: time.UnixMilli(m.Info.Time.Created).UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	if m.Info.Role != "user" && m.Info.Role != "assistant" {
		return l, false
	}
	var blocks []mirrorBlock
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			if p.Text != "" && !p.Synthetic && !p.Ignored {
				blocks = append(blocks, mirrorBlock{Type: "text", Text: p.Text})
			}
		case "tool":
			if p.State == nil {
				continue
			}
			input := p.State.Input
			if len(input) == 0 || string(input) == "null" {
				input = json.RawMessage("{}")
			}
			blocks = append(blocks, mirrorBlock{Type: "tool_use", ID: p.CallID, Name: p.Tool, Input: input})
			switch p.State.Status {
			case "completed":
				out := p.State.Output
				blocks = append(blocks, mirrorBlock{Type: "tool_result", ToolUseID: p.CallID, Content: &out})
			case "error":
				out := p.State.Error
				blocks = append(blocks, mirrorBlock{Type: "tool_result", ToolUseID: p.CallID, Content: &out, IsError: true})
			}
		case "file":
			name := p.Filename
			if name == "" {
				name = p.Mime
			}
			blocks = append(blocks, mirrorBlock{Type: "text", Text: "[file " + name + "]"})
		case "subtask":
			blocks = append(blocks, mirrorBlock{Type: "text", Text: "[subtask for agent " + p.Agent + "] " + p.Prompt})
		}
	}
	if len(blocks) == 0 {
		return l, false
	}
	if m.Info.Role == "assistant" && string(m.Info.Summary) == "true" {
		var text []byte
		for _, b := range blocks {
			if b.Type == "text" {
				text = append(append(text, b.Text...), '\n')
			}
		}
		l.Type, l.Summary = "summary", string(bytes.TrimSpace(text))
		return l, l.Summary != ""
	}
	l.Message = &mirrorMessage{Role: m.Info.Role, Content: blocks}
	return l, true
}

// mirrorIDs returns the message ids the file at path holds, and whether its
// last line lacks its newline. A missing file holds none.
func mirrorIDs(path string) (ids map[string]bool, torn bool, err error) {
	ids = map[string]bool{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ids, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("opencode transcript: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			torn = b[len(b)-1] != '\n'
			var l struct {
				UUID string `json:"uuid"`
			}
			if json.Unmarshal(b, &l) == nil && l.UUID != "" {
				ids[l.UUID] = true
			}
		}
		if errors.Is(err, io.EOF) {
			return ids, torn, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("opencode transcript: read %s: %w", path, err)
		}
	}
}

// appendSynced writes data to the end of path in one write and syncs it,
// creating the file (0600) and its directories (0700) when missing.
func appendSynced(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("opencode transcript: %w", err)
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opencode transcript: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("opencode transcript: append to %s: %w", path, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// A new file's name is durable only once its directory is synced.
		if d, err := os.Open(dir); err == nil {
			err = d.Sync()
			d.Close()
			if err != nil {
				return fmt.Errorf("opencode transcript: sync %s: %w", dir, err)
			}
		}
	}
	return nil
}
