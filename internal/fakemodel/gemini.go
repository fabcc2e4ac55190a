package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// geminiRequest is the part of a generateContent request the fake reads.
type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text         string `json:"text"`
		Thought      bool   `json:"thought"`
		FunctionCall *struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	} `json:"parts"`
}

func parseGemini(body []byte) (conversation, error) {
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return conversation{}, err
	}
	var c conversation
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			c.tools = append(c.tools, f.Name)
		}
	}
	if req.SystemInstruction != nil {
		var sb strings.Builder
		for _, p := range req.SystemInstruction.Parts {
			sb.WriteString(p.Text)
			sb.WriteString("\n")
		}
		c.system = sb.String()
	}
	for _, m := range req.Contents {
		role := m.Role
		if role == "model" {
			role = "assistant"
		}
		msg := message{role: role}
		for _, p := range m.Parts {
			switch {
			case p.FunctionCall != nil:
				msg.blocks = append(msg.blocks, contentBlock{Type: "tool_use", ToolUseID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: p.FunctionCall.Args})
			case p.FunctionResponse != nil:
				text := string(p.FunctionResponse.Response)
				var r struct {
					Output string `json:"output"`
					Error  string `json:"error"`
				}
				isErr := false
				if json.Unmarshal(p.FunctionResponse.Response, &r) == nil && (r.Output != "" || r.Error != "") {
					text, isErr = r.Output, r.Error != ""
					if isErr {
						text = r.Error
					}
				}
				msg.blocks = append(msg.blocks, contentBlock{Type: "tool_result", ToolUseID: p.FunctionResponse.ID, Text: text, IsError: isErr})
			case !p.Thought:
				msg.blocks = append(msg.blocks, contentBlock{Type: "text", Text: p.Text})
			}
		}
		c.messages = append(c.messages, msg)
	}
	return c, nil
}

func writeGemini(w http.ResponseWriter, req *Request, t Turn, calls []call) {
	var parts []map[string]any
	if text := turnText(t); text != "" {
		parts = append(parts, map[string]any{"text": text})
	}
	for _, c := range calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"id": c.id, "name": c.name, "args": c.input}})
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  req.conv.model,
	}
	if !req.conv.stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).send("", resp)
}
