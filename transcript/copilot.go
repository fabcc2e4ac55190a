package transcript

import (
	"encoding/json"
	"strings"
)

// renderCopilot renders a line of Copilot CLI's session events
// (events.jsonl: {"type":"user.message","data":{…}}): the user's and
// assistant's messages, the tools the assistant called and what they
// returned, hooks' answers; ok is false for a line that is not one.
func renderCopilot(typ string, data json.RawMessage) (string, bool) {
	if !strings.Contains(typ, ".") || len(data) == 0 {
		return "", false
	}
	var d struct {
		Content      json.RawMessage `json:"content"`
		ToolRequests []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolRequests"`
		Success bool `json:"success"`
		Result  struct {
			Content json.RawMessage `json:"content"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
		HookType string          `json:"hookType"`
		Output   json.RawMessage `json:"output"`
	}
	if json.Unmarshal(data, &d) != nil {
		return "", false
	}
	switch typ {
	case "user.message":
		return "user: " + contentText(d.Content), true
	case "assistant.message":
		var parts []string
		if t := contentText(d.Content); t != "" {
			parts = append(parts, "assistant: "+t)
		}
		for _, r := range d.ToolRequests {
			parts = append(parts, "assistant calls "+r.Name+" "+string(r.Arguments))
		}
		if len(parts) == 0 {
			return "[assistant.message]", true
		}
		return strings.Join(parts, " | "), true
	case "tool.execution_complete":
		if !d.Success {
			msg := contentText(d.Result.Content)
			if d.Error != nil && d.Error.Message != "" {
				msg = d.Error.Message
			}
			return "tool error: " + msg, true
		}
		return "tool result: " + contentText(d.Result.Content), true
	case "hook.end":
		if len(d.Output) > 0 && string(d.Output) != "null" {
			return "hook " + d.HookType + " answered: " + string(d.Output), true
		}
	}
	return "[" + typ + "]", true
}
