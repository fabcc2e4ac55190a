package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Render turns one transcript line (JSON) into a compact line for a model to
// read: who said what, which tool was called with what, and what it
// returned, without the ids, timestamps and usage counters around them. It
// reads Claude Code's lines (and the Claude-shaped lines of planq's mirrors),
// Codex's rollout lines (response_item), Gemini CLI's (RenderGemini) and
// Copilot CLI's session events (type.subtype with data). A
// line it cannot read is returned as it is.
func Render(line []byte) string {
	if s, ok := RenderGemini(line); ok {
		return s
	}
	var l struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
		Summary string          `json:"summary"`
		Message struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Attachment struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		} `json:"attachment"`
		IsMeta bool            `json:"isMeta"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &l); err != nil || l.Type == "" {
		return string(line)
	}
	if s, ok := renderCopilot(l.Type, l.Data); ok {
		return s
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
	case "response_item":
		return renderResponseItem(l.Payload)
	case "event_msg", "session_meta", "turn_context":
		var p struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(l.Payload, &p) == nil && p.Type != "" {
			return "[" + l.Type + " " + p.Type + "]"
		}
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

// renderResponseItem renders the payload of a Codex rollout line of type
// response_item: a message, a tool call or a tool's output (the Responses
// API's items).
func renderResponseItem(raw json.RawMessage) string {
	var it struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Name      string          `json:"name"`
		Namespace string          `json:"namespace"`
		Arguments string          `json:"arguments"`
		Input     string          `json:"input"`
		Output    json.RawMessage `json:"output"`
	}
	if json.Unmarshal(raw, &it) != nil {
		return "[response_item]"
	}
	name := it.Name
	if it.Namespace != "" {
		name = it.Namespace + "__" + it.Name
	}
	switch it.Type {
	case "message":
		var parts []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(it.Content, &parts) != nil {
			return "[" + it.Role + " message]"
		}
		var texts []string
		for _, p := range parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		return it.Role + ": " + strings.Join(texts, " ")
	case "function_call":
		return "assistant calls " + name + " " + it.Arguments
	case "custom_tool_call":
		return "assistant calls " + name + " " + it.Input
	case "function_call_output", "custom_tool_call_output":
		return "tool result: " + outputText(it.Output)
	case "reasoning":
		return "[reasoning]" // private reasoning is not part of what happened
	}
	return "[response_item " + it.Type + "]"
}

// outputText is a Codex tool output's text: a string, an object with
// content, or a list of content parts.
func outputText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var o struct {
		Content json.RawMessage `json:"content"`
	}
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &o) == nil && len(o.Content) > 0 {
		return contentText(o.Content)
	}
	return contentText(raw)
}

// RenderGemini renders one line of a Gemini CLI session file
// (~/.gemini/tmp/<project>/chats/session-*.jsonl), an append-only log: a
// first line of session metadata, then messages {id, type, content,
// toolCalls} (a message is written again, under the same id, once its tool
// calls are known), and {"$set": …} or {"$rewindTo": id} updates. ok is
// false for a line of another shape.
func RenderGemini(line []byte) (string, bool) {
	var l struct {
		Type      string          `json:"type"`
		Content   json.RawMessage `json:"content"`
		Message   json.RawMessage `json:"message"`
		ToolCalls []struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"toolCalls"`
		SessionID   string          `json:"sessionId"`
		ProjectHash string          `json:"projectHash"`
		Set         json.RawMessage `json:"$set"`
		RewindTo    *string         `json:"$rewindTo"`
	}
	if json.Unmarshal(line, &l) != nil {
		return "", false
	}
	switch {
	case l.Type == "" && l.SessionID != "" && l.ProjectHash != "":
		return "[Gemini CLI session " + l.SessionID + "]", true
	case l.Type == "" && len(l.Set) > 0:
		return "[session update]", true
	case l.Type == "" && l.RewindTo != nil:
		return "[rewound to message " + *l.RewindTo + "]", true
	case l.Type == "" || len(l.Message) > 0 || len(l.Content) == 0:
		return "", false
	}
	role := l.Type
	if role == "gemini" {
		role = "assistant"
	}
	var out []string
	raw := bytes.TrimSpace(l.Content)
	var text string
	var parts []struct {
		Text             *string `json:"text"`
		FunctionResponse *struct {
			Name     string `json:"name"`
			Response struct {
				Output json.RawMessage `json:"output"`
				Error  json.RawMessage `json:"error"`
			} `json:"response"`
		} `json:"functionResponse"`
	}
	switch {
	case json.Unmarshal(raw, &text) == nil:
		if text != "" {
			out = append(out, role+": "+text)
		}
	case json.Unmarshal(raw, &parts) == nil:
		for _, p := range parts {
			switch {
			case p.Text != nil:
				out = append(out, role+": "+*p.Text)
			case p.FunctionResponse != nil:
				if r := p.FunctionResponse.Response; len(r.Error) > 0 && string(r.Error) != "null" {
					out = append(out, "tool error: "+jsonText(r.Error))
				} else {
					out = append(out, "tool result: "+jsonText(r.Output))
				}
			default:
				out = append(out, "[part]")
			}
		}
	default:
		return "", false
	}
	for _, c := range l.ToolCalls {
		out = append(out, role+" calls "+c.Name+" "+string(c.Args))
	}
	if len(out) == 0 {
		return "[" + l.Type + "]", true
	}
	return strings.Join(out, " | "), true
}

// jsonText is a JSON string's text, or the JSON itself.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
