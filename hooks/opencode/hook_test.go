package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/gate/sandbox"
	"github.com/planq-dev/planq/hooks/hosttest"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/transcript"
)

// gateCall runs the pre-tool-use hook as the plugin does, on a payload for
// tool with args in dir, and returns the exit status and the reply.
func gateCall(t *testing.T, dir, tool string, args any) (int, Reply) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"tool": tool, "sessionID": "ses_1", "callID": "call_1", "args": json.RawMessage(raw), "directory": dir,
		"rewrites": true, "permission": map[string]any{}})
	return gateRaw(t, dir, string(payload))
}

func gateRaw(t *testing.T, dir, payload string) (int, Reply) {
	t.Helper()
	code, r := hosttest.Gate[Reply](t, Protocol{}, payload, func(k string) string {
		if k == "PLANQ_PROJECT_DIR" {
			return dir
		}
		return os.Getenv(k)
	})
	if r == nil {
		return code, Reply{}
	}
	return code, *r
}

func TestGateOnOpenCodeTools(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	out := t.TempDir()
	patch := func(path string) map[string]string {
		return map[string]string{"patchText": "*** Begin Patch\n*** Add File: " + path + "\n+x\n*** End Patch"}
	}
	tests := []struct {
		name, tool string
		args       any
		deny       bool
	}{
		{"write in the project", "write", map[string]string{"filePath": filepath.Join(repo, "a.go"), "content": "x"}, true},
		{"edit in the project", "edit", map[string]string{"filePath": "a.go", "oldString": "a", "newString": "b"}, true},
		{"write outside", "write", map[string]string{"filePath": filepath.Join(out, "a.txt"), "content": "x"}, false},
		{"write with two paths", "write", json.RawMessage(`{"filePath":"/tmp/x","filepath":"a.go"}`), true},
		{"read", "read", map[string]string{"filePath": "a.go"}, false},
		{"grep", "grep", map[string]string{"pattern": "x"}, false},
		{"task", "task", map[string]string{"prompt": "x"}, false},
		{"read-only bash", "bash", map[string]string{"command": "git status && ls", "description": "look"}, false},
		{"modifying bash", "bash", map[string]string{"command": "rm -rf build"}, true},
		{"bash in a workdir outside", "bash", map[string]string{"command": "rm -rf build", "workdir": out}, false},
		{"bash in a relative workdir", "bash", map[string]string{"command": "rm -rf build", "workdir": "sub"}, true},
		{"bash with two workdirs", "bash", json.RawMessage(`{"command":"rm -rf build","workdir":"` + out + `","Workdir":"."}`), true},
		{"apply_patch in the project", "apply_patch", patch("src/a.go"), true},
		{"apply_patch outside", "apply_patch", patch(filepath.Join(out, "a.txt")), false},
		{"planq_jj_init", "planq_jj_init", map[string]string{"description": "x"}, false},
		{"planq_planq_log", "planq_planq_log", map[string]string{"message": "x"}, false},
		{"planq_jj_describe is gated", "planq_jj_describe", map[string]string{"description": "x"}, true},
		{"another server's tool", "github_create_issue", map[string]string{"title": "x"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, r := gateCall(t, repo, tt.tool, tt.args)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			if got := r.Decision == "deny"; got != tt.deny {
				t.Fatalf("reply %+v, want deny=%v", r, tt.deny)
			}
			if tt.deny && !strings.Contains(r.Reason, "planq_jj_init") && !strings.Contains(r.Reason, "ambiguous") {
				t.Errorf("denial %q does not name planq_jj_init", r.Reason)
			}
			if strings.Contains(r.Reason, "call mcp__planq__") {
				t.Errorf("denial %q names Claude Code's tool", r.Reason)
			}
		})
	}
	// Once the change is declared, the same write goes through.
	testenv.Run(t, repo, "jj", "describe", "-m", "Add a file")
	if _, r := gateCall(t, repo, "write", map[string]string{"filePath": filepath.Join(repo, "a.go"), "content": "x"}); r.Decision == "deny" {
		t.Fatalf("after declaring: %+v", r)
	}
}

// While the change is undeclared, a bash call the gate is not sure modifies
// runs in planq's sandbox: the reply allows it with the command the plugin
// puts in its args.
func TestGateRewritesForOpenCode(t *testing.T) {
	if !sandbox.Detect().Available() {
		t.Skipf("no OS sandbox here (%s): the gate stays parser-only", sandbox.Detect())
	}
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	_, r := gateCall(t, repo, "bash", map[string]string{"command": "python3 -c 'print(1)'", "workdir": "sub", "description": "d"})
	_, inv, ok := sandbox.Unwrap(r.Command)
	if r.Decision != "allow" || !ok || inv.Command != "python3 -c 'print(1)'" || !slices.Equal(inv.Tools, []string{"planq_jj_init"}) {
		t.Fatalf("a locked read: reply %+v, want an allow with the sandbox command", r)
	}
	if _, r := gateCall(t, repo, "bash", map[string]string{"command": "rm -rf build"}); r.Decision != "deny" || r.Command != "" {
		t.Fatalf("a sure write: reply %+v, want it denied", r)
	}
	if _, r := gateCall(t, repo, "bash", map[string]string{"cmd": "ls"}); r.Decision != "deny" || r.Command != "" {
		t.Fatalf("a bash call without a command: reply %+v, want it denied", r)
	}
	// A call OpenCode's own rules or asks would judge, and any call from a
	// plugin that does not apply commands, keeps the parser-only verdict:
	// ls is let through as it is, a cargo build denied.
	payload := func(command string, extra map[string]any) string {
		p := map[string]any{"tool": "bash", "sessionID": "ses_1", "callID": "call_1", "directory": repo, "args": map[string]string{"command": command}}
		for k, v := range extra {
			p[k] = v
		}
		b, _ := json.Marshal(p)
		return string(b)
	}
	for name, extra := range map[string]map[string]any{
		"an older plugin":        {},
		"no config":              {"rewrites": true},
		"bash asked":             {"rewrites": true, "permission": map[string]any{"global": map[string]string{"bash": "ask"}}},
		"a rule on cargo and ls": {"rewrites": true, "permission": map[string]any{"global": map[string]any{"bash": map[string]string{"ls *": "allow", "cargo *": "ask"}}}},
	} {
		if _, r := gateRaw(t, repo, payload("ls", extra)); r.Decision != "" || r.Command != "" {
			t.Errorf("%s: ls got %+v, want it let through as it is", name, r)
		}
		if _, r := gateRaw(t, repo, payload("cargo build", extra)); r.Decision != "deny" {
			t.Errorf("%s: cargo build got %+v, want the parser's denial", name, r)
		}
	}
	if _, r := gateRaw(t, repo, payload("cat /etc/hostname", map[string]any{"rewrites": true, "permission": map[string]any{}})); r.Command != "" {
		t.Errorf("cat of a file outside the project, which OpenCode asks about: %+v, want it left to OpenCode", r)
	}
}

// A payload planq cannot read is denied, naming the problem: the gate fails
// closed whatever the plugin sends.
func TestGateFailsClosedOnBadPayloads(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	for name, payload := range map[string]string{
		"not JSON":           `nonsense`,
		"no tool":            `{"sessionID":"ses_1","callID":"c","args":{},"directory":"` + repo + `"}`,
		"relative dir":       `{"tool":"write","sessionID":"ses_1","callID":"c","args":{"filePath":"a"},"directory":"repo"}`,
		"duplicate key":      `{"tool":"read","tool":"write","sessionID":"ses_1","callID":"c","args":{"filePath":"a"},"directory":"` + repo + `"}`,
		"args not object":    `{"tool":"write","sessionID":"ses_1","callID":"c","args":"x","directory":"` + repo + `"}`,
		"bad session id":     `{"tool":"write","sessionID":"../x","callID":"c","args":{"filePath":"a"},"directory":"` + repo + `"}`,
		"trailing data":      `{"tool":"read","sessionID":"ses_1","callID":"c","args":{},"directory":"` + repo + `"} {}`,
		"empty":              ``,
		"key differing case": `{"tool":"read","Tool":"write","sessionID":"ses_1","callID":"c","args":{},"directory":"` + repo + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			code, r := gateRaw(t, repo, payload)
			if code != 0 || r.Decision != "deny" || !strings.Contains(r.Reason, "could not judge") {
				t.Fatalf("exit %d, reply %+v; want a denial saying the gate could not judge the call", code, r)
			}
		})
	}
}

// The tool hooks and the stop event keep the session's record: the files a
// patch touched, and a transcript mirror built from the messages.
func TestPostToolUseAndTheTranscriptMirror(t *testing.T) {
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	ctx := context.Background()
	env := session.Env{Getenv: os.Getenv}
	read := func(event string, payload map[string]any) session.Event {
		t.Helper()
		payload["directory"] = repo
		payload["sessionID"] = "ses_abc"
		data, _ := json.Marshal(payload)
		ev, err := session.ReadEvent(Protocol{}, event, data, os.Getenv)
		if err != nil {
			t.Fatalf("%s: %v", event, err)
		}
		return ev
	}
	// The agent declares its change with planq_jj_init (the MCP tool runs jj
	// new -m); the post-tool-use hook binds the session to it.
	testenv.Run(t, repo, "jj", "describe", "-m", "Add two files")
	ev := read(EventPostToolUse, map[string]any{"tool": "planq_jj_init", "callID": "c1", "args": map[string]string{"description": "Add two files"}})
	if err := session.RecordToolUse(ctx, env, ev); err != nil {
		t.Fatal(err)
	}
	ev = read(EventPostToolUse, map[string]any{"tool": "apply_patch", "callID": "c2", "args": map[string]string{
		"patchText": "*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: sub/b.go\n@@\n-a\n+b\n*** End Patch"}})
	if err := session.RecordToolUse(ctx, env, ev); err != nil {
		t.Fatal(err)
	}
	s, err := session.Open(env, ev)
	if err != nil {
		t.Fatal(err)
	}
	root, ok := s.SessionRoot(ev)
	if !ok {
		t.Fatal("the session is bound to no lineage after planq_jj_init")
	}
	sess, err := s.TS.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(sess.Files, ",") != "a.go,sub/b.go" || len(sess.Agents) != 1 || sess.Agents[0].Host != "opencode" {
		t.Fatalf("session record: files %v, agents %+v", sess.Files, sess.Agents)
	}

	// A stop payload's messages land in planq's mirror, the event's transcript.
	msgs := json.RawMessage(`[{"info":{"id":"msg_1","sessionID":"ses_abc","role":"user","time":{"created":1}},"parts":[{"id":"p1","type":"text","text":"zebra task"}]}]`)
	ev = read(EventStop, map[string]any{"messages": msgs})
	if ev.TranscriptPath == "" || !strings.HasPrefix(ev.TranscriptPath, os.Getenv("PLANQ_HOME")) {
		t.Fatalf("transcript path %q, want planq's mirror under PLANQ_HOME", ev.TranscriptPath)
	}
	data, err := os.ReadFile(ev.TranscriptPath)
	if err != nil || !strings.Contains(transcript.Render(bytes.TrimSpace(data)), "zebra task") {
		t.Fatalf("mirror %q (%v)", data, err)
	}
}

// Read only decodes: a stop payload's messages reach planq's mirror when
// the event is resolved (Resolve), never while it is read.
func TestReadOnlyDecodes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	getenv := func(k string) string { return map[string]string{"PLANQ_HOME": home}[k] }
	msgs := json.RawMessage(`[{"info":{"id":"msg_1","sessionID":"ses_abc","role":"user","time":{"created":1}},"parts":[{"id":"p1","type":"text","text":"zebra task"}]}]`)
	data, _ := json.Marshal(map[string]any{"directory": t.TempDir(), "sessionID": "ses_abc", "messages": msgs})
	ev, err := Protocol{}.Read(EventStop, data, getenv)
	if err != nil || ev.TranscriptPath != "" || len(ev.Messages) == 0 {
		t.Fatalf("Read = %+v, %v; want the messages decoded and no transcript yet", ev, err)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("Read wrote under PLANQ_HOME: %v", ents)
	}
	if ev, err = session.ReadEvent(Protocol{}, EventStop, data, getenv); err != nil || !strings.HasPrefix(ev.TranscriptPath, home) {
		t.Fatalf("ReadEvent = %+v, %v; want the mirror under PLANQ_HOME as the transcript", ev, err)
	}
}
