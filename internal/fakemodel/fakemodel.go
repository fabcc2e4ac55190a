// Package fakemodel is a scripted stand-in for the Anthropic Messages API on
// loopback, so tests can drive the real Claude Code CLI without a real model.
//
// The server answers POST /v1/messages with Server-Sent Events (or plain JSON
// when the request does not ask to stream) and POST /v1/messages/count_tokens
// with a token count. Requests that carry tools are the agent loop: each one
// consumes the next scripted Turn. Requests without tools are Claude Code's side
// requests (titles, topic detection, quota probes) and get a short text reply.
// Every request body is recorded so tests can assert on what the model saw.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// ToolUse is one tool call the fake model makes in a turn.
type ToolUse struct {
	Name  string // e.g. "Bash", "Write", "mcp__planq__jj_init"
	Input any    // marshalled to JSON as the tool input
}

// Turn is one scripted assistant message: optional text, then tool calls.
// A turn with no tool calls ends the agent's turn (stop_reason end_turn).
type Turn struct {
	Text  string
	Tools []ToolUse
	// Func, when set, builds the turn from the request it answers (Text and
	// Tools are then ignored), so a reply can depend on what the model was sent.
	Func func(r *Request) Turn
}

// Request is one recorded request to the fake model.
type Request struct {
	Path string
	Body []byte
	// Loop is true for agent-loop requests (those that carry tools).
	Loop bool
	// Turn is the index of the scripted turn that answered, or -1.
	Turn int
	msg  messagesRequest
}

// Server is a running fake model. Create it with Start, stop it with Close.
type Server struct {
	// URL is the base URL to put in ANTHROPIC_BASE_URL.
	URL string

	srv    *http.Server
	ln     net.Listener
	mu     sync.Mutex
	script []Turn
	next   int
	reqs   []*Request
	ids    int
	extra  int // loop requests after the script ran out
}

// Start listens on a loopback port and serves the script.
func Start(script ...Turn) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, script: script}
	s.srv = &http.Server{Handler: s}
	go s.srv.Serve(ln) //nolint:errcheck // returns on Close
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// SetScript replaces the remaining script (for a second run on one server).
func (s *Server) SetScript(script ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script, s.next, s.extra = script, 0, 0
}

// Requests returns every request recorded so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// LoopRequests returns the agent-loop requests recorded so far.
func (s *Server) LoopRequests() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Loop {
			out = append(out, r)
		}
	}
	return out
}

// Remaining reports how many scripted turns were not used, and how many loop
// requests arrived after the script ran out.
func (s *Server) Remaining() (unused, extra int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next, s.extra
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/v1/messages/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/v1/messages"):
	default:
		// Anything else Claude Code may probe: answer empty JSON, never hang.
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
		return
	}
	req := &Request{Path: path, Body: body, Turn: -1}
	if err := json.Unmarshal(body, &req.msg); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	req.Loop = len(req.msg.Tools) > 0

	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	var turn Turn
	switch {
	case !req.Loop:
		turn = Turn{Text: "ok"}
	case s.next < len(s.script):
		turn = s.script[s.next]
		req.Turn = s.next
		s.next++
	default:
		s.extra++
		turn = Turn{Text: "(fake model: script finished)"}
	}
	s.ids++
	id := s.ids
	s.mu.Unlock()

	if turn.Func != nil {
		turn = turn.Func(req)
	}
	model := req.msg.Model
	if model == "" {
		model = "claude-fake"
	}
	if req.msg.Stream {
		writeSSE(w, id, model, turn)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(message(id, model, turn)) //nolint:errcheck
}

type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

func blocks(id int, t Turn) []block {
	var out []block
	if t.Text != "" || len(t.Tools) == 0 {
		text := t.Text
		if text == "" {
			text = "ok"
		}
		out = append(out, block{Type: "text", Text: text})
	}
	for i, tu := range t.Tools {
		in, err := json.Marshal(tu.Input)
		if err != nil || tu.Input == nil {
			in = []byte("{}")
		}
		out = append(out, block{Type: "tool_use", ID: fmt.Sprintf("toolu_fake_%d_%d", id, i), Name: tu.Name, Input: in})
	}
	return out
}

func stopReason(t Turn) string {
	if len(t.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func message(id int, model string, t Turn) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", id), "type": "message", "role": "assistant", "model": model,
		"content": blocks(id, t), "stop_reason": stopReason(t), "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 10},
	}
}

func writeSSE(w http.ResponseWriter, id int, model string, t Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", id), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 1},
	}})
	for i, b := range blocks(id, t) {
		switch b.Type {
		case "text":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		case "tool_use":
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(t), "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 10}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// messagesRequest is the part of a Messages API request the fake reads.
type messagesRequest struct {
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

// contentBlock is a block of message content as sent by the client.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

// parseContent returns the blocks of a message content (a string or an array).
func parseContent(raw json.RawMessage) []contentBlock {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s) //nolint:errcheck
		return []contentBlock{{Type: "text", Text: s}}
	}
	var bs []contentBlock
	json.Unmarshal(raw, &bs) //nolint:errcheck
	return bs
}

func blockText(b contentBlock) string {
	switch b.Type {
	case "text":
		return b.Text
	case "tool_result":
		var sb strings.Builder
		for _, inner := range parseContent(b.Content) {
			sb.WriteString(blockText(inner))
		}
		return sb.String()
	case "tool_use":
		return b.Name + " " + string(b.Input)
	}
	return ""
}

// ToolNames returns the names of the tools offered in the request.
func (r *Request) ToolNames() []string {
	var out []string
	for _, t := range r.msg.Tools {
		out = append(out, t.Name)
	}
	return out
}

// Model returns the model the request asked for.
func (r *Request) Model() string { return r.msg.Model }

// System returns the system prompt text.
func (r *Request) System() string {
	var sb strings.Builder
	for _, b := range parseContent(r.msg.System) {
		sb.WriteString(blockText(b))
		sb.WriteString("\n")
	}
	return sb.String()
}

// Text returns all message text of the request (text blocks, tool results and
// tool calls), one block per line, in order; the system prompt is not included.
func (r *Request) Text() string {
	var sb strings.Builder
	for _, m := range r.msg.Messages {
		for _, b := range parseContent(m.Content) {
			sb.WriteString(blockText(b))
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// LastUserText returns the text of the last user message (text blocks and
// tool results).
func (r *Request) LastUserText() string {
	for i := len(r.msg.Messages) - 1; i >= 0; i-- {
		if m := r.msg.Messages[i]; m.Role == "user" {
			var sb strings.Builder
			for _, b := range parseContent(m.Content) {
				sb.WriteString(blockText(b))
				sb.WriteString("\n")
			}
			return sb.String()
		}
	}
	return ""
}

// ToolResult is a tool result the client sent back to the model.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	Text      string
}

// ToolResults returns the tool results in the last user message.
func (r *Request) ToolResults() []ToolResult {
	for i := len(r.msg.Messages) - 1; i >= 0; i-- {
		m := r.msg.Messages[i]
		if m.Role != "user" {
			continue
		}
		var out []ToolResult
		for _, b := range parseContent(m.Content) {
			if b.Type == "tool_result" {
				out = append(out, ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError, Text: blockText(b)})
			}
		}
		return out
	}
	return nil
}
