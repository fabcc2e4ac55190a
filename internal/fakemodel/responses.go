package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// responsesRequest is the part of a Responses API request the fake reads.
type responsesRequest struct {
	Model        string            `json:"model"`
	Stream       bool              `json:"stream"`
	Instructions string            `json:"instructions"`
	Input        []json.RawMessage `json:"input"`
	Tools        []responsesTool   `json:"tools"`
}

type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"` // a namespace's functions
}

// responsesItem is one input item: a message, a tool call or a tool output.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"` // custom (freeform) tool calls
	Output    json.RawMessage `json:"output"`
}

func parseResponses(body []byte) (conversation, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return conversation{}, err
	}
	c := conversation{model: req.Model, stream: req.Stream, namespaced: map[string][2]string{}, custom: map[string]bool{}}
	for _, t := range req.Tools {
		switch {
		case t.Type == "namespace":
			for _, f := range t.Tools {
				flat := t.Name + "__" + f.Name
				c.tools = append(c.tools, flat)
				c.namespaced[flat] = [2]string{t.Name, f.Name}
			}
		case t.Name != "":
			c.tools = append(c.tools, t.Name)
			c.custom[t.Name] = t.Type == "custom"
		default:
			c.tools = append(c.tools, t.Type) // web_search and other built-ins
		}
	}
	var sys strings.Builder
	if req.Instructions != "" {
		sys.WriteString(req.Instructions)
		sys.WriteString("\n")
	}
	for _, raw := range req.Input {
		var it responsesItem
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "message", "":
			text := contentText(it.Content)
			if it.Role == "system" || it.Role == "developer" {
				sys.WriteString(text)
				sys.WriteString("\n")
				continue
			}
			c.messages = append(c.messages, message{role: it.Role, blocks: []contentBlock{{Type: "text", Text: text}}})
		case "function_call", "custom_tool_call":
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + "__" + it.Name
			}
			args := it.Arguments
			if it.Type == "custom_tool_call" {
				b, _ := json.Marshal(it.Input)
				args = string(b)
			}
			c.messages = append(c.messages, message{role: "assistant", blocks: []contentBlock{{Type: "tool_use", ToolUseID: it.CallID, Name: name, Input: json.RawMessage(args)}}})
		case "function_call_output", "custom_tool_call_output":
			c.messages = append(c.messages, message{role: "tool", blocks: []contentBlock{{Type: "tool_result", ToolUseID: it.CallID, Text: contentText(it.Output)}}})
		}
	}
	c.system = sys.String()
	return c, nil
}

func writeResponses(w http.ResponseWriter, id int, req *Request, t Turn, calls []call) {
	respID := fmt.Sprintf("resp_fake_%d", id)
	var items []map[string]any
	if text := turnText(t); text != "" {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_fake_%d", id), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}})
	}
	for _, c := range calls {
		item := map[string]any{"type": "function_call", "id": "fc_" + c.id, "call_id": c.id, "name": c.name,
			"arguments": string(c.input), "status": "completed"}
		if ns, ok := req.conv.namespaced[c.name]; ok {
			item["namespace"], item["name"] = ns[0], ns[1]
		}
		if req.conv.custom[c.name] {
			// A freeform tool's input is its text: a scripted string input
			// is sent as is.
			var text string
			if json.Unmarshal(c.input, &text) != nil {
				text = string(c.input)
			}
			item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + c.id, "call_id": c.id, "name": c.name,
				"input": text, "status": "completed"}
		}
		items = append(items, item)
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
		"input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}}
	final := map[string]any{"id": respID, "object": "response", "status": "completed", "model": req.conv.model, "output": items, "usage": usage}
	if !req.conv.stream {
		writeJSON(w, final)
		return
	}
	e := newSSE(w)
	e.send("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID, "object": "response", "status": "in_progress", "output": []any{}}})
	for i, it := range items {
		e.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": it})
		e.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it})
	}
	e.send("response.completed", map[string]any{"type": "response.completed", "response": final})
}
