package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// chatRequest is the part of a Chat Completions request the fake reads.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func parseChat(body []byte) (conversation, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return conversation{}, err
	}
	c := conversation{model: req.Model, stream: req.Stream}
	for _, t := range req.Tools {
		c.tools = append(c.tools, t.Function.Name)
	}
	var sys strings.Builder
	for _, m := range req.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			sys.WriteString(text)
			sys.WriteString("\n")
		case "tool":
			// OpenCode and the AI SDK send a failed tool's error as the result
			// text; the wire has no error flag.
			c.messages = append(c.messages, message{role: "tool", blocks: []contentBlock{{Type: "tool_result", ToolUseID: m.ToolCallID, Text: text}}})
		default:
			msg := message{role: m.Role}
			if text != "" {
				msg.blocks = append(msg.blocks, contentBlock{Type: "text", Text: text})
			}
			for _, tc := range m.ToolCalls {
				msg.blocks = append(msg.blocks, contentBlock{Type: "tool_use", ToolUseID: tc.ID, Name: tc.Function.Name, Input: json.RawMessage(tc.Function.Arguments)})
			}
			c.messages = append(c.messages, msg)
		}
	}
	c.system = sys.String()
	return c, nil
}

func writeChat(w http.ResponseWriter, id int, req *Request, t Turn, calls []call) {
	model := req.conv.model
	if model == "" {
		model = "gpt-fake"
	}
	cid := fmt.Sprintf("chatcmpl-fake-%d", id)
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	var toolCalls []map[string]any
	for i, c := range calls {
		toolCalls = append(toolCalls, map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": string(c.input)}})
	}
	usage := map[string]int{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
	text := turnText(t)
	if !req.conv.stream {
		msg := map[string]any{"role": "assistant", "content": text}
		if len(toolCalls) > 0 {
			msg["tool_calls"] = toolCalls
		}
		writeJSON(w, map[string]any{"id": cid, "object": "chat.completion", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := newSSE(w)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	e.send("", chunk(map[string]any{"role": "assistant", "content": text}, nil))
	if len(toolCalls) > 0 {
		e.send("", chunk(map[string]any{"tool_calls": toolCalls}, nil))
	}
	last := chunk(map[string]any{}, finish)
	last["usage"] = usage
	e.send("", last)
	e.raw("[DONE]")
}
