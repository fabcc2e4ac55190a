package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func openCodeTestdata(t *testing.T, name string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "opencode-"+name))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(b, &msgs); err != nil {
		t.Fatal(err)
	}
	return msgs
}

func joinMessages(msgs []json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(msgs)
	return b
}

func renderMirror(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		out = append(out, Render([]byte(l)))
	}
	return out
}

// gateFailed starts the reason planq's OpenCode plugin gives when the gate
// hook failed (hooks/opencode/plugin.js), as the captured messages show it.
const gateFailed = "planq gate: blocked this call because the gate hook failed: "

// TestAppendOpenCodeRenders converts messages captured from real OpenCode
// runs (hooks/opencode's end-to-end tests) and checks what planq's renderer shows.
func TestAppendOpenCodeRenders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want [][]string // per line, substrings of the rendered line, in order
	}{
		{"messages.json", [][]string{
			{`user: "add the files"`},
			{"assistant: Writing.", ` | assistant calls write {"content":"no\n","filePath":"`, `denied.txt"}`, " | tool error: planq: no change is declared yet. Call planq_jj_init"},
			{"assistant: Again.", "assistant calls write", " | tool error: " + gateFailed, "the gate crashed"},
			{"assistant: Declared.", "assistant calls write", "ok.txt", " | tool result: Wrote file successfully."},
			{"assistant: Editing.", `assistant calls edit {"filePath":"`, `"newString":"two","oldString":"one"}`, " | tool result: Edit applied successfully."},
			{"assistant: Shell.", `assistant calls bash {"command":"echo hi \u003e b.txt","description":"write b.txt"}`, " | tool result: (no output)"},
			{"assistant: Warned.", "tool result: Wrote file successfully.\n\nPLANQ-WARNING: the change has no description"},
			{"assistant: All done."},
		}},
		{"messages-serve.json", [][]string{
			{"user: delegate"},
			{"assistant: Delegating.", `assistant calls task {"description":"sub","prompt":"write sub.txt","subagent_type":"general"}`, "tool result: ", "<task_result>", "sub done"},
			{"assistant: main done"},
			{"user: PLANQ-NUDGE: describe the change"},
			{"assistant: Described."},
			// the compaction request (a user message with only a compaction part) shows nothing
			{"summary: ok"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a", "b", "transcript.jsonl")
			added, err := AppendOpenCode(path, joinMessages(openCodeTestdata(t, tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			got := renderMirror(t, path)
			if added != len(tt.want) || len(got) != len(tt.want) {
				t.Fatalf("added %d, rendered:\n%s\nwant %d lines", added, strings.Join(got, "\n"), len(tt.want))
			}
			for i, subs := range tt.want {
				rest := got[i]
				for _, s := range subs {
					j := strings.Index(rest, s)
					if j < 0 {
						t.Errorf("line %d: %q lacks %q (in order)", i+1, got[i], s)
						break
					}
					rest = rest[j+len(s):]
				}
			}
			for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700, filepath.Dir(filepath.Dir(path)): 0o700} {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
					t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
				}
			}
		})
	}
}

// TestAppendOpenCodeOnlyGrows: messages are written once, in whole lines,
// after what the file holds; unfinished assistant messages wait.
func TestAppendOpenCodeOnlyGrows(t *testing.T) {
	t.Parallel()
	msgs := openCodeTestdata(t, "messages.json")
	oneShot := filepath.Join(t.TempDir(), "one.jsonl")
	if _, err := AppendOpenCode(oneShot, joinMessages(msgs)); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(oneShot)

	// The last message still streaming: it is left out until it finishes.
	var last map[string]any
	if err := json.Unmarshal(msgs[len(msgs)-1], &last); err != nil {
		t.Fatal(err)
	}
	delete(last["info"].(map[string]any)["time"].(map[string]any), "completed")
	streaming, _ := json.Marshal(last)
	partial := append(append([]json.RawMessage(nil), msgs[:len(msgs)-1]...), streaming)

	path := filepath.Join(t.TempDir(), "t.jsonl")
	steps := []struct {
		msgs  []json.RawMessage
		added int
	}{
		{msgs[:3], 3},
		{msgs[:3], 0},
		{partial, len(msgs) - 4},
		{msgs, 1},
		{msgs, 0},
		{[]json.RawMessage{}, 0},
	}
	var prev []byte
	for i, s := range steps {
		added, err := AppendOpenCode(path, joinMessages(s.msgs))
		if err != nil || added != s.added {
			t.Fatalf("step %d: added %d, %v; want %d", i, added, err, s.added)
		}
		cur, _ := os.ReadFile(path)
		if !bytes.HasPrefix(cur, prev) || (len(cur) > 0 && cur[len(cur)-1] != '\n') {
			t.Fatalf("step %d: the file did not grow by whole lines:\nbefore %q\nafter %q", i, prev, cur)
		}
		prev = cur
	}
	if !bytes.Equal(prev, want) {
		t.Errorf("appending in steps gave\n%s\nwant, as in one call,\n%s", prev, want)
	}
}

// TestAppendOpenCodeTornTail: a line a crash cut short is ended, not
// extended, and its message is written again whole.
func TestAppendOpenCodeTornTail(t *testing.T) {
	t.Parallel()
	msgs := openCodeTestdata(t, "messages.json")
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if _, err := AppendOpenCode(path, joinMessages(msgs[:2])); err != nil {
		t.Fatal(err)
	}
	full, _ := os.ReadFile(path)
	torn := full[:len(full)-10]
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	added, err := AppendOpenCode(path, joinMessages(msgs[:3]))
	if err != nil || added != 2 {
		t.Fatalf("added %d, %v; want the torn message and the new one", added, err)
	}
	got, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if !bytes.HasPrefix(got, torn) || len(lines) != 4 || lines[1] != string(torn[bytes.IndexByte(torn, '\n')+1:]) {
		t.Fatalf("after a torn tail the file is\n%s", got)
	}
	if r := Render([]byte(lines[2])); !strings.HasPrefix(r, "assistant: Writing.") {
		t.Errorf("the torn message was not written again: %s", r)
	}
}

// TestAppendOpenCodeMessages covers messages the captures do not have.
func TestAppendOpenCodeMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, messages string
		added          int
		render         []string
		err            string
	}{
		{"empty", `[]`, 0, nil, ""},
		{"not an array", `{"info":{}}`, 0, nil, "messages"},
		{"null", `null`, 0, nil, "not an array"},
		{"aborted assistant without completed time",
			`[{"info":{"id":"m1","sessionID":"s","role":"assistant","time":{"created":1},"error":{"name":"MessageAbortedError","data":{"message":"aborted"}}},"parts":[{"type":"text","text":"half"},{"type":"tool","callID":"c","tool":"bash","state":{"status":"running","input":{"command":"make"}}}]}]`,
			1, []string{`assistant: half | assistant calls bash {"command":"make"}`}, ""},
		{"synthetic and ignored text, files, subtasks, reasoning",
			`[{"info":{"id":"m1","sessionID":"s","role":"user","time":{"created":1}},"parts":[{"type":"text","text":"look at this"},{"type":"text","synthetic":true,"text":"Called the Read tool with …"},{"type":"text","ignored":true,"text":"x"},{"type":"file","filename":"a.go","mime":"text/plain","url":"file:///a.go"},{"type":"subtask","agent":"general","prompt":"find it","description":"d"}]},
			  {"info":{"id":"m2","sessionID":"s","role":"assistant","time":{"created":2,"completed":3}},"parts":[{"type":"reasoning","text":"hmm"},{"type":"step-start"},{"type":"step-finish","reason":"stop"}]},
			  {"info":{"id":"m3","sessionID":"s","role":"user","time":{"created":4}},"parts":[{"type":"text","synthetic":true,"text":"Continue if you have next steps"}]}]`,
			1, []string{"user: look at this | user: [file a.go] | user: [subtask for agent general] find it"}, ""},
		{"a message without id", `[{"info":{"sessionID":"s","role":"user","time":{"created":1}},"parts":[{"type":"text","text":"x"}]}]`, 0, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			added, err := AppendOpenCode(path, json.RawMessage(tt.messages))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line with %q", err, tt.err)
				}
				return
			}
			if err != nil || added != tt.added {
				t.Fatalf("added %d, %v; want %d", added, err, tt.added)
			}
			if tt.added == 0 {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("nothing to write created the file: %v", err)
				}
				return
			}
			if got := renderMirror(t, path); strings.Join(got, "\n") != strings.Join(tt.render, "\n") {
				t.Errorf("rendered\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.render, "\n"))
			}
		})
	}
}
