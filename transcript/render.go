package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Render turns one Claude Code transcript line (JSON) into a compact line for
// a model to read: who said what, which tool was called with what, and what
// it returned, without the ids, timestamps and usage counters around them. A
// line it cannot read is returned as it is.
func Render(line []byte) string {
	var l struct {
		Type    string `json:"type"`
		Summary string `json:"summary"`
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Attachment struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		} `json:"attachment"`
		IsMeta bool `json:"isMeta"`
	}
	if err := json.Unmarshal(line, &l); err != nil || l.Type == "" {
		return string(line)
	}
	switch l.Type {
	case "user", "assistant":
		role := l.Message.Role
		if role == "" {
			role = l.Type
		}
		parts := renderContent(l.Message.Content, role)
		if len(parts) == 0 {
			return "[" + l.Type + "]"
		}
		return strings.Join(parts, " | ")
	case "summary":
		return "summary: " + l.Summary
	case "attachment":
		if l.Attachment.Type == "hook_additional_context" {
			var texts []string
			if json.Unmarshal(l.Attachment.Content, &texts) == nil {
				return "context from a hook: " + strings.Join(texts, " ")
			}
		}
		return "[attachment " + l.Attachment.Type + "]"
	}
	return "[" + l.Type + "]"
}

func renderContent(raw json.RawMessage, role string) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		return []string{role + ": " + s}
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Name    string          `json:"name"`
		Input   json.RawMessage `json:"input"`
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"is_error"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return nil
	}
	var out []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			out = append(out, role+": "+b.Text)
		case "tool_use":
			out = append(out, role+" calls "+b.Name+" "+string(b.Input))
		case "tool_result":
			label := "tool result: "
			if b.IsError {
				label = "tool error: "
			}
			out = append(out, label+contentText(b.Content))
		case "thinking", "redacted_thinking":
			// Private reasoning is not part of what happened.
		default:
			out = append(out, "["+b.Type+"]")
		}
	}
	return out
}

// contentText joins the text of a tool result's content (a string or blocks).
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		} else {
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, " ")
}
