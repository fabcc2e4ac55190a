package transcript

import (
	"context"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct{ line, want string }{
		{`{"type":"user","message":{"role":"user","content":"Add rate limiting"},"uuid":"x","timestamp":"t"}`, "user: Add rate limiting"},
		{`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"On it."},{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"a.go"}}]}}`,
			`assistant: On it. | assistant calls Write {"file_path":"a.go"}`},
		{`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"denied: declare first","is_error":true}]}}`, "tool error: denied: declare first"},
		{`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":"ok"}]}]}}`, "tool result: ok"},
		{`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Done."}]}}`, "assistant: Done."},
		{`{"type":"summary","summary":"Rate limiting work"}`, "summary: Rate limiting work"},
		{`{"type":"attachment","attachment":{"type":"hook_additional_context","content":["planq: change x"]}}`, "context from a hook: planq: change x"},
		{`{"type":"queue-operation","operation":"enqueue"}`, "[queue-operation]"},
		{`not json`, "not json"},
		// Gemini CLI 0.61.0 session lines (captured from gemini -p).
		{`{"sessionId":"7893f873","projectHash":"c061","startTime":"t","lastUpdated":"t","kind":"main"}`, "[Gemini CLI session 7893f873]"},
		{`{"id":"e7","timestamp":"t","type":"user","content":[{"text":"<hook_context>CTX</hook_context>\n\ndo it"}]}`, "user: <hook_context>CTX</hook_context>\n\ndo it"},
		{`{"$set":{"lastUpdated":"t"}}`, "[session update]"},
		{`{"$rewindTo":"e7"}`, "[rewound to message e7]"},
		{`{"id":"7a","type":"gemini","content":"Writing.","thoughts":[],"model":"gemini-2.5-flash","toolCalls":[{"id":"w","name":"write_file","args":{"file_path":"/r/hello.txt"},"result":[],"status":"success"}]}`,
			`assistant: Writing. | assistant calls write_file {"file_path":"/r/hello.txt"}`},
		{`{"id":"50","type":"user","content":[{"functionResponse":{"id":"w","name":"write_file","response":{"output":"Successfully wrote"}}}]}`, "tool result: Successfully wrote"},
		{`{"id":"51","type":"user","content":[{"functionResponse":{"id":"w","name":"write_file","response":{"error":"Tool execution blocked: planq gate"}}}]}`, "tool error: Tool execution blocked: planq gate"},
		{`{"id":"52","type":"info","content":"Request cancelled."}`, "info: Request cancelled."},
	}
	for _, tt := range tests {
		if got := Render([]byte(tt.line)); got != tt.want {
			t.Errorf("Render(%s)\n got %q\nwant %q", tt.line, got, tt.want)
		}
	}
	path := writeTemp(t, tests[0].line+"\n"+tests[1].line+"\n")
	res, err := Search(context.Background(), path, "write", 0, WithRender(Render))
	if err != nil || len(res.Lines) != 1 || !strings.HasPrefix(res.Lines[0].Text, "assistant: On it.") || res.Lines[0].N != 2 {
		t.Fatalf("Search with Render = %+v, %v", res, err)
	}
}

func TestRenderCodexRollout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Writing the okapi file."}]}}`, "assistant: Writing the okapi file."},
		{`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a file"}]}}`, "user: Add a file"},
		{`{"type":"response_item","payload":{"type":"function_call","namespace":"mcp__planq","name":"jj_init","arguments":"{\"description\":\"x\"}","call_id":"c"}}`, `assistant calls mcp__planq__jj_init {"description":"x"}`},
		{`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c"}}`, "assistant calls apply_patch *** Begin Patch"},
		{`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"done"}}`, "tool result: done"},
		{`{"type":"response_item","payload":{"type":"reasoning","summary":[]}}`, "[reasoning]"},
		{`{"type":"event_msg","payload":{"type":"task_started"}}`, "[event_msg task_started]"},
		{`{"type":"world_state","payload":{}}`, "[world_state]"},
	} {
		if got := Render([]byte(tc.line)); got != tc.want {
			t.Errorf("Render(%s) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestRenderCopilotEvents renders lines of Copilot CLI 1.0.102's
// events.jsonl, shortened from a captured session (ids and telemetry cut).
func TestRenderCopilotEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{`{"type":"user.message","data":{"content":"go","transformedContent":"<current_datetime>t</current_datetime>\n\ngo","messageId":"m"},"id":"i","timestamp":"t","parentId":"p"}`, "user: go"},
		{`{"type":"assistant.message","data":{"messageId":"m","model":"m","content":"Creating the okapi file.","toolRequests":[{"toolCallId":"c","name":"create","arguments":{"path":"/r/hello.txt","file_text":"hello\n"},"type":"function"}],"turnId":"2"},"id":"i"}`,
			`assistant: Creating the okapi file. | assistant calls create {"path":"/r/hello.txt","file_text":"hello\n"}`},
		{`{"type":"assistant.message","data":{"content":"done","toolRequests":[]}}`, "assistant: done"},
		{`{"type":"tool.execution_complete","data":{"toolCallId":"c","success":true,"result":{"content":"No matches found."}}}`, "tool result: No matches found."},
		{`{"type":"tool.execution_complete","data":{"toolCallId":"c","success":false,"result":{"content":"Denied by preToolUse hook: planq gate: blocked"}}}`, "tool error: Denied by preToolUse hook: planq gate: blocked"},
		{`{"type":"hook.end","data":{"hookInvocationId":"h","hookType":"agentStop","success":true,"output":{"decision":"block","reason":"planq: write the summary"}}}`, `hook agentStop answered: {"decision":"block","reason":"planq: write the summary"}`},
		{`{"type":"hook.end","data":{"hookInvocationId":"h","hookType":"agentStop","success":true}}`, "[hook.end]"},
		{`{"type":"assistant.turn_start","data":{"turnId":"0"}}`, "[assistant.turn_start]"},
	} {
		if got := Render([]byte(tc.line)); got != tc.want {
			t.Errorf("Render(%s)\n got %q\nwant %q", tc.line, got, tc.want)
		}
	}
}
