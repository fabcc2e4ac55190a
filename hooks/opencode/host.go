package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/hooks/session"
	"github.com/planq-dev/planq/internal/flock"
	"github.com/planq-dev/planq/transcript"
)

// Host is OpenCode, as the session core knows it: planq's tools are
// planq_<tool>, and a compaction takes context (experimental.session.compacting).
// It rewrites: the plugin sets a bash call's command to the one planq
// answers (NOTES.md, "Rewriting a tool call").
var Host = session.Host{Name: "opencode", Display: "OpenCode", ToolPrefix: ToolPrefix, CompactContext: true, Rewrites: true}

// Protocol is the protocol of planq's OpenCode plugin (session.Protocol).
type Protocol struct{}

// Host names OpenCode.
func (Protocol) Host() session.Host { return Host }

// Read decodes the plugin's payload for event. The project is the
// directory OpenCode runs in. A bash call's workdir becomes the call's
// working directory. The messages of a stop or pre-compact payload are the
// event's Messages, which Resolve keeps.
func (Protocol) Read(event string, data []byte, getenv func(string) string) (session.Event, error) {
	ev := session.Event{Name: event, Host: Host, ProjectDir: getenv("PLANQ_PROJECT_DIR")}
	p, err := parsePayload(data)
	if err == nil {
		err = p.Check(event)
	}
	if err != nil {
		return ev, err
	}
	if !filepath.IsAbs(p.Directory) {
		return ev, fmt.Errorf("the OpenCode plugin's directory %q is not an absolute path", p.Directory)
	}
	ev.ProjectDir, ev.Cwd = p.Directory, p.Directory
	ev.SessionID, ev.ParentID = p.SessionID, p.ParentID
	ev.Source, ev.Reason = p.Source, p.Reason
	if p.Tool != "" {
		ev.Call = &session.Call{Name: p.Tool, Tool: GateTool(p.Tool), Input: p.Args}
		if ev.Call.Tool.Kind == gate.KindShell {
			if ev.Cwd, err = workdir(p.Directory, p.Args); err != nil {
				return ev, err
			}
			switch {
			case event != EventPreToolUse:
			case !p.Rewrites:
				// An older plugin, which does not apply a rewrite.
				ev.Host.Rewrites = false
			default:
				// Unknown rules, or rules and asks of OpenCode's that would
				// judge the rewritten command instead of this one: the call
				// keeps the parser-only gate.
				command, cwd, perm := ev.Call.Command(), ev.Cwd, p.Permission
				ev.Call.HostJudges = func() bool { return perm == nil || !sandboxable(command, cwd, p.Directory, *perm) }
			}
		}
	}
	ev.Messages = p.Messages
	return ev, nil
}

// Resolve keeps the messages of a stop or pre-compact payload in planq's
// mirror of the session's transcript (under PLANQ_HOME/hosts/opencode/),
// which becomes the event's transcript once it exists
// (session.Resolver).
func (Protocol) Resolve(ev session.Event, getenv func(string) string) (session.Event, error) {
	mirror, err := mirrorPath(getenv, ev.SessionID)
	if err != nil {
		return ev, err
	}
	if len(ev.Messages) > 0 {
		if err := appendLocked(mirror, ev.Messages); err != nil {
			return ev, fmt.Errorf("keep the transcript of OpenCode session %s: %w", ev.SessionID, err)
		}
	}
	if _, err := os.Stat(mirror); err == nil {
		ev.TranscriptPath = mirror
	}
	return ev, nil
}

// workdir is the directory a bash call runs in: its workdir argument,
// relative to the project, else the project. The argument is read exactly,
// as the gate reads the command.
func workdir(dir string, args json.RawMessage) (string, error) {
	fields, err := gate.ExactFields(args, "workdir")
	if err != nil {
		return "", fmt.Errorf("the bash input is ambiguous or malformed: %w", err)
	}
	raw, ok := fields["workdir"]
	if !ok || string(raw) == "null" {
		return dir, nil
	}
	var wd string
	if err := json.Unmarshal(raw, &wd); err != nil {
		return "", fmt.Errorf("the bash input's workdir is not a string")
	}
	if wd == "" {
		return dir, nil
	}
	if !filepath.IsAbs(wd) {
		wd = filepath.Join(dir, wd)
	}
	return filepath.Clean(wd), nil
}

// mirrorPath is where planq keeps its copy of an OpenCode session's
// transcript: PLANQ_HOME/hosts/opencode/<session>.jsonl.
func mirrorPath(getenv func(string) string, sessionID string) (string, error) {
	if err := transcript.ValidSessionID(sessionID); err != nil {
		return "", fmt.Errorf("OpenCode session id: %w", err)
	}
	home, err := config.StateHome(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "hosts", Host.Name, sessionID+".jsonl"), nil
}

// appendLocked appends messages to the mirror under a lock beside it, so
// two OpenCode processes on one session never write a message twice.
func appendLocked(mirror string, messages json.RawMessage) error {
	if err := os.MkdirAll(filepath.Dir(mirror), 0o700); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := flock.Acquire(ctx, mirror+".lock", 5*time.Second)
	if err != nil {
		return err
	}
	defer l.Release()
	_, err = AppendTranscript(mirror, messages)
	return err
}

// Write answers the plugin: for pre-tool-use a deny, or an allow with a
// warning, or with the command the bash call must run instead (planq's
// sandbox); the context for session-start and pre-compact, the nudge for
// stop. It always exits 0; the plugin reads the reply.
func (Protocol) Write(w io.Writer, ev session.Event, r session.Reply) (int, error) {
	var out Reply
	switch ev.Name {
	case EventPreToolUse:
		switch {
		case r.Deny:
			out = Deny(r.Reason)
		case r.Warn:
			out = Allow(r.Reason)
		}
		if r.Command != "" && !r.Deny {
			// The plugin puts the command in the call's args itself.
			if _, err := session.RewrittenInput(ev, r.Command); err != nil {
				out = Deny(session.RewriteFailed(ev, err).Reason)
			} else {
				out.Decision, out.Command = "allow", r.Command
			}
		}
	case EventSessionStart, EventPreCompact:
		out.Context = r.Context
	case EventStop:
		out.Nudge = r.Nudge
	}
	return 0, WriteReply(w, out)
}
