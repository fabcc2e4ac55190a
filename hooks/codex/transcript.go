package codex

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// maxMetaLine bounds the rollout's first line, the session_meta record
// (about 20 KiB: it holds the base instructions).
const maxMetaLine = 4 << 20

// sessionMeta is what planq reads of a rollout's session_meta record.
type sessionMeta struct {
	ID     string // the thread the rollout records
	Cwd    string // the session's directory: its project
	Parent string // a subagent thread's parent thread
}

// readMeta reads the session_meta record a Codex rollout file starts with.
func readMeta(path string) (sessionMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return sessionMeta{}, fmt.Errorf("read Codex's session record %s: %w", path, err)
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, maxMetaLine), 64<<10).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return sessionMeta{}, fmt.Errorf("read Codex's session record %s: %w", path, err)
	}
	var rec struct {
		Type    string `json:"type"`
		Payload struct {
			ID     string          `json:"id"`
			Cwd    string          `json:"cwd"`
			Source json.RawMessage `json:"source"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(line), &rec); err != nil || rec.Type != "session_meta" {
		return sessionMeta{}, fmt.Errorf("Codex's rollout %s does not start with its session record", path)
	}
	if !filepath.IsAbs(rec.Payload.Cwd) {
		return sessionMeta{}, fmt.Errorf("Codex's rollout %s names no absolute session directory", path)
	}
	return sessionMeta{ID: rec.Payload.ID, Cwd: rec.Payload.Cwd, Parent: parentThread(rec.Payload.Source)}, nil
}

// parentThread finds parent_thread_id in a session_meta source (a string
// such as "exec", or {"subagent": {"thread_spawn": {"parent_thread_id": …}}}).
func parentThread(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var find func(any) string
	find = func(v any) string {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		if s, ok := m["parent_thread_id"].(string); ok {
			return s
		}
		for _, x := range m {
			if s := find(x); s != "" {
				return s
			}
		}
		return ""
	}
	return find(v)
}
