// Package fakemodel is a scripted stand-in for a model API on loopback, so
// tests can drive the real agent CLIs (Claude Code, OpenCode, Codex, Gemini
// CLI, Copilot CLI) without a real model. One Server speaks every wire at once, chosen by
// the request path:
//
//   - Anthropic Messages (Claude Code): POST /v1/messages, and
//     /v1/messages/count_tokens;
//   - OpenAI Chat Completions (OpenCode, Copilot CLI): POST /v1/chat/completions;
//   - OpenAI Responses (Codex): POST /v1/responses;
//   - Gemini (Gemini CLI): POST /v1beta/models/M:streamGenerateContent and
//     :generateContent, and :countTokens.
//
// Each wire streams Server-Sent Events when the request asks to, else plain
// JSON. Requests that carry tools are the agent loop: each one consumes the
// next scripted Turn. Requests without tools are the host's side requests
// (titles, topic detection, quota probes) and get a short text reply. Every
// request is recorded, parsed into one wire-neutral conversation, so a test
// asserts on what the model saw the same way whichever host it drives.
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
	// Name is the tool's name as the host offers it: "Bash", "write",
	// "run_shell_command", "mcp__planq__jj_init", "planq_jj_init". For the
	// Responses wire a name "NS__fn" whose namespace NS the request offers
	// is sent as function fn in namespace NS, the way Codex expects MCP calls.
	Name  string
	Input any // marshalled to JSON as the tool input
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

// Wire names a model API the fake speaks.
type Wire string

// The wires the fake speaks.
const (
	WireAnthropic Wire = "anthropic"        // Anthropic Messages
	WireChat      Wire = "openai-chat"      // OpenAI Chat Completions
	WireResponses Wire = "openai-responses" // OpenAI Responses
	WireGemini    Wire = "gemini"           // Gemini generateContent
)

// Request is one recorded request to the fake model.
type Request struct {
	Path string
	Body []byte
	Wire Wire
	// Loop is true for agent-loop requests (those that carry tools).
	Loop bool
	// Turn is the index of the scripted turn that answered, or -1.
	Turn int
	conv conversation
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

// conversation is a request parsed into the one shape every wire shares.
type conversation struct {
	model  string
	stream bool
	system string
	tools  []string
	// namespaced maps a flattened tool name "NS__fn" to its namespace and
	// function, for the Responses wire's namespace tools.
	namespaced map[string][2]string
	// custom holds the Responses wire's freeform tools (Codex's apply_patch),
	// whose calls carry their input as a string, not JSON arguments.
	custom   map[string]bool
	messages []message
}

// message is one message of the conversation; role is "user", "assistant"
// or "tool" (a tool result sent back on its own, as Chat Completions does).
type message struct {
	role   string
	blocks []contentBlock
}

// contentBlock is a part of a message: text, a tool call or a tool result.
type contentBlock struct {
	Type      string // "text", "tool_use" or "tool_result"
	Text      string
	ToolUseID string
	IsError   bool
	Name      string
	Input     json.RawMessage
}

// contentText returns the text of a Chat or Responses content value: a
// string, an array of parts, or an object with an output (or content) field,
// as function outputs come; null is no text.
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case 'n':
		return ""
	case '"':
		var s string
		json.Unmarshal(raw, &s) //nolint:errcheck
		return s
	case '[':
		var parts []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(raw, &parts) //nolint:errcheck
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		return sb.String()
	case '{':
		var o struct {
			Output  json.RawMessage `json:"output"`
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal(raw, &o) //nolint:errcheck
		if len(o.Output) > 0 {
			return contentText(o.Output)
		}
		return contentText(o.Content)
	}
	return string(raw)
}

func blockText(b contentBlock) string {
	if b.Type == "tool_use" {
		return b.Name + " " + string(b.Input)
	}
	return b.Text
}

// wireOf picks the wire a request path speaks; ok is false for paths that
// are not a model call (probes, token counts).
func wireOf(method, path string) (w Wire, ok bool) {
	if method != http.MethodPost {
		return "", false
	}
	switch {
	case strings.HasSuffix(path, "/v1/messages"):
		return WireAnthropic, true
	case strings.HasSuffix(path, "/chat/completions"):
		return WireChat, true
	case strings.HasSuffix(path, "/responses"):
		return WireResponses, true
	case strings.Contains(path, "/models/") && (strings.HasSuffix(path, ":streamGenerateContent") || strings.HasSuffix(path, ":generateContent")):
		return WireGemini, true
	}
	return "", false
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	wire, ok := wireOf(r.Method, path)
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(path, "/v1/messages/count_tokens"):
			fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
		case strings.HasSuffix(path, ":countTokens"):
			fmt.Fprintf(w, `{"totalTokens":%d}`, len(body)/4+1)
		default:
			// Anything else a host may probe: answer empty JSON, never hang.
			io.WriteString(w, `{}`)
		}
		return
	}
	req := &Request{Path: path, Body: body, Wire: wire, Turn: -1}
	var err error
	switch wire {
	case WireAnthropic:
		req.conv, err = parseAnthropic(body)
	case WireChat:
		req.conv, err = parseChat(body)
	case WireResponses:
		req.conv, err = parseResponses(body)
	case WireGemini:
		req.conv, err = parseGemini(body)
		req.conv.stream = strings.HasSuffix(path, ":streamGenerateContent")
		if req.conv.model == "" {
			m := path[strings.LastIndex(path, "/models/")+len("/models/"):]
			req.conv.model, _, _ = strings.Cut(m, ":")
		}
	}
	if err != nil {
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"fakemodel: bad json"}}`, http.StatusBadRequest)
		return
	}
	req.Loop = len(req.conv.tools) > 0

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
	calls := toolCalls(id, turn)
	switch wire {
	case WireAnthropic:
		writeAnthropic(w, id, req, turn, calls)
	case WireChat:
		writeChat(w, id, req, turn, calls)
	case WireResponses:
		writeResponses(w, id, req, turn, calls)
	case WireGemini:
		writeGemini(w, req, turn, calls)
	}
}

// call is a scripted tool call with its id and marshalled input.
type call struct {
	id    string
	name  string
	input json.RawMessage
}

func toolCalls(id int, t Turn) []call {
	var out []call
	for i, tu := range t.Tools {
		in, err := json.Marshal(tu.Input)
		if err != nil || tu.Input == nil {
			in = []byte("{}")
		}
		out = append(out, call{id: fmt.Sprintf("toolu_fake_%d_%d", id, i), name: tu.Name, input: in})
	}
	return out
}

// turnText is the text a turn says: its Text, or "ok" for a turn with
// neither text nor tool calls.
func turnText(t Turn) string {
	if t.Text == "" && len(t.Tools) == 0 {
		return "ok"
	}
	return t.Text
}

// sse writes Server-Sent Events; event names are optional.
type sse struct {
	w  http.ResponseWriter
	fl http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	return &sse{w: w, fl: fl}
}

func (e *sse) send(event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(e.w, "event: %s\n", event)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if e.fl != nil {
		e.fl.Flush()
	}
}

func (e *sse) raw(line string) {
	fmt.Fprintf(e.w, "data: %s\n\n", line)
	if e.fl != nil {
		e.fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v) //nolint:errcheck
}

// ToolNames returns the names of the tools offered in the request; a
// Responses namespace tool's functions are listed as "NS__fn".
func (r *Request) ToolNames() []string { return append([]string(nil), r.conv.tools...) }

// Model returns the model the request asked for.
func (r *Request) Model() string { return r.conv.model }

// System returns the system prompt text (for Responses, the instructions and
// the system and developer messages).
func (r *Request) System() string { return r.conv.system }

// Text returns all message text of the request (text blocks, tool results and
// tool calls), one block per line, in order; the system prompt is not included.
func (r *Request) Text() string {
	var sb strings.Builder
	for _, m := range r.conv.messages {
		for _, b := range m.blocks {
			sb.WriteString(blockText(b))
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// tail returns the messages after the last assistant message: the user's
// prompt or the tool results the host sent back.
func (r *Request) tail() []message {
	ms := r.conv.messages
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].role == "assistant" {
			return ms[i+1:]
		}
	}
	return ms
}

// LastUserText returns the text of the last user turn: the messages after the
// last assistant message (text blocks and tool results).
func (r *Request) LastUserText() string {
	var sb strings.Builder
	for _, m := range r.tail() {
		for _, b := range m.blocks {
			if b.Type == "tool_use" {
				continue
			}
			sb.WriteString(blockText(b))
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// ToolResult is a tool result the client sent back to the model.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	Text      string
}

// ToolResults returns the tool results of the last user turn.
func (r *Request) ToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range r.tail() {
		for _, b := range m.blocks {
			if b.Type == "tool_result" {
				out = append(out, ToolResult{ToolUseID: b.ToolUseID, IsError: b.IsError, Text: b.Text})
			}
		}
	}
	return out
}
