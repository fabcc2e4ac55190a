package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicRequest is the part of a Messages API request the fake reads.
type anthropicRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// anthropicBlock is a block of message content as the client sends it.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

func parseAnthropic(body []byte) (conversation, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return conversation{}, err
	}
	c := conversation{model: req.Model, stream: req.Stream}
	var sys strings.Builder
	for _, b := range anthropicBlocks(req.System) {
		sys.WriteString(b.Text)
		sys.WriteString("\n")
	}
	c.system = sys.String()
	for _, t := range req.Tools {
		c.tools = append(c.tools, t.Name)
	}
	for _, m := range req.Messages {
		c.messages = append(c.messages, message{role: m.Role, blocks: anthropicBlocks(m.Content)})
	}
	return c, nil
}

// anthropicBlocks returns the blocks of a message content (a string or an
// array), with tool results' text flattened.
func anthropicBlocks(raw json.RawMessage) []contentBlock {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s) //nolint:errcheck
		return []contentBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	json.Unmarshal(raw, &bs) //nolint:errcheck
	var out []contentBlock
	for _, b := range bs {
		switch b.Type {
		case "text":
			out = append(out, contentBlock{Type: "text", Text: b.Text})
		case "tool_use":
			out = append(out, contentBlock{Type: "tool_use", ToolUseID: b.ToolUseID, Name: b.Name, Input: b.Input})
		case "tool_result":
			var sb strings.Builder
			for _, inner := range anthropicBlocks(b.Content) {
				sb.WriteString(blockText(inner))
			}
			out = append(out, contentBlock{Type: "tool_result", ToolUseID: b.ToolUseID, IsError: b.IsError, Text: sb.String()})
		}
	}
	return out
}

type anthropicOut struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

func anthropicContent(t Turn, calls []call) []anthropicOut {
	var out []anthropicOut
	if text := turnText(t); text != "" {
		out = append(out, anthropicOut{Type: "text", Text: text})
	}
	for _, c := range calls {
		out = append(out, anthropicOut{Type: "tool_use", ID: c.id, Name: c.name, Input: c.input})
	}
	return out
}

func anthropicStop(calls []call) string {
	if len(calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func writeAnthropic(w http.ResponseWriter, id int, req *Request, t Turn, calls []call) {
	model := req.conv.model
	if model == "" {
		model = "claude-fake"
	}
	msgID := fmt.Sprintf("msg_fake_%d", id)
	content := anthropicContent(t, calls)
	if !req.conv.stream {
		writeJSON(w, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": anthropicStop(calls), "stop_sequence": nil,
			"usage": map[string]int{"input_tokens": 10, "output_tokens": 10},
		})
		return
	}
	e := newSSE(w)
	e.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}})
	for i, b := range content {
		switch b.Type {
		case "text":
			e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use":
			e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	e.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": anthropicStop(calls), "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 10}})
	e.send("message_stop", map[string]any{"type": "message_stop"})
}
