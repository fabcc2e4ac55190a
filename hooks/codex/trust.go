package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/internal/text"
)

// eventLabels are Codex's snake_case names of the events in hook keys and
// trust hashes.
var eventLabels = map[string]string{
	"PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request", "PostToolUse": "post_tool_use",
	"PreCompact": "pre_compact", "PostCompact": "post_compact", "SessionStart": "session_start",
	"SessionEnd": "session_end", "UserPromptSubmit": "user_prompt_submit", "SubagentStart": "subagent_start",
	"SubagentStop": "subagent_stop", "Stop": "stop",
}

// HookKey is the key Codex keeps a hook's state under in the user's
// config.toml ([hooks.state."KEY"]): the hooks file's absolute path, the
// event's label, the matcher group's and the handler's index.
func HookKey(hooksFile, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", hooksFile, eventLabels[event], group, handler)
}

// HookHash is the hash Codex trusts a command hook by (trusted_hash): the
// sha256 of the compact JSON, keys sorted, of the event's label, the
// matcher (none for Stop, PreCompact and UserPromptSubmit) and the one
// handler with its timeout filled in (600 by default, 1 to 3 for
// SessionEnd) and async. The test checks it against the hash Codex itself
// reports (app-server hooks/list).
func HookHash(event, matcher, command string, timeout int, async bool) string {
	switch event {
	case "Stop", "PreCompact", "PostCompact", "UserPromptSubmit":
		matcher = "" // SubagentStop keeps its matcher (the agent type)
	}
	if event == "SessionEnd" {
		if timeout <= 0 {
			timeout = 1
		}
		timeout = min(max(timeout, 1), 3)
	} else if timeout <= 0 {
		timeout = 600
	}
	id := map[string]any{
		"event_name": eventLabels[event],
		"hooks":      []any{map[string]any{"type": "command", "command": command, "timeout": timeout, "async": async}},
	}
	if matcher != "" {
		id["matcher"] = matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // serde_json writes <, > and & as they are
	_ = enc.Encode(id)
	out := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	// serde_json writes U+2028 and U+2029 as they are; Go escapes them.
	out = bytes.ReplaceAll(out, []byte(`\u2028`), []byte("\u2028"))
	out = bytes.ReplaceAll(out, []byte(`\u2029`), []byte("\u2029"))
	sum := sha256.Sum256(out)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// handler is one of planq's hooks as a hooks.json holds it.
type handler struct {
	Event, Key, Hash string
}

// planqHandlers returns planq's handlers in a parsed hooks.json at path,
// with their state keys and hashes.
func planqHandlers(path string, doc *conffile.Object) []handler {
	events, err := doc.Path(path, false, "hooks")
	if err != nil || events == nil {
		return nil
	}
	var out []handler
	for _, h := range Hooks {
		v, _ := events.Get(h.Event)
		groups, _ := v.([]any)
		for gi, g := range groups {
			var group struct {
				Matcher *string `json:"matcher"`
				Hooks   []struct {
					Type    string `json:"type"`
					Command string `json:"command"`
					Timeout int    `json:"timeout"`
					Async   bool   `json:"async"`
				} `json:"hooks"`
			}
			if json.Unmarshal(conffile.Encode(g), &group) != nil {
				continue
			}
			for hi, hd := range group.Hooks {
				if hd.Type != "command" || !conffile.IsPlanqHook(hd.Command, h.Subcommand, Host.Name, "") {
					continue
				}
				m := ""
				if group.Matcher != nil {
					m = *group.Matcher
				}
				out = append(out, handler{Event: h.Event, Key: HookKey(path, h.Event, gi, hi), Hash: HookHash(h.Event, m, hd.Command, hd.Timeout, hd.Async)})
			}
		}
	}
	return out
}

// userState is what planq reads of the user's config.toml: the hooks'
// trust and the projects' trust levels.
type userState struct {
	Hooks struct {
		State map[string]struct {
			Enabled     *bool  `toml:"enabled"`
			TrustedHash string `toml:"trusted_hash"`
		} `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

// projectTrust returns the trust level the user's config gives dir: its
// own entry, else the nearest ancestor's ("" when none).
func (u userState) projectTrust(dir string) (level, key string) {
	for d := dir; ; d = filepath.Dir(d) {
		if p, ok := u.Projects[d]; ok && p.TrustLevel != "" {
			return p.TrustLevel, d
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// trustFindings says whether Codex will run planq's handlers and read the
// project's config: the hooks' trust (by hash, in the user's config) and,
// for project and local scope, the project's trust level.
func trustFindings(o conffile.Options, handlers []handler) []conffile.Finding {
	userFile := filepath.Join(codexHome(o), "config.toml")
	var u userState
	data, err := conffile.ReadOrNil(userFile)
	if err == nil && data != nil {
		_, err = decodeTOML(data, &u)
	}
	if err != nil {
		return []conffile.Finding{{Check: "trust", Detail: "cannot read Codex's trust settings in " + userFile + ": " + text.OneLine(err.Error()),
			Fix: "fix " + userFile + "; until then, check in codex's /hooks that planq's hooks are trusted"}}
	}
	var out []conffile.Finding
	if o.Scope != conffile.ScopeUser {
		level, _ := u.projectTrust(o.ProjectDir)
		f := conffile.Finding{Check: "project-trust", OK: level == "trusted"}
		if f.OK {
			f.Detail = "Codex trusts " + o.ProjectDir + ", so it reads .codex/config.toml and .codex/hooks.json there"
		} else {
			state := "does not trust"
			if level != "" {
				state = "marks as " + level
			}
			f.Detail = "Codex " + state + " " + o.ProjectDir + ", so it silently skips planq's server and hooks in .codex/"
			f.Fix = fmt.Sprintf("trust the project when codex asks, or add to %s:\n[projects.%s]\ntrust_level = \"trusted\"", userFile, tomlString(o.ProjectDir))
		}
		out = append(out, f)
	}
	if len(handlers) == 0 {
		return out
	}
	var untrusted, modified, disabled []string
	var fix strings.Builder
	for _, h := range handlers {
		st, ok := u.Hooks.State[h.Key]
		switch {
		case ok && st.Enabled != nil && !*st.Enabled:
			disabled = append(disabled, h.Event)
			continue
		case ok && st.TrustedHash == h.Hash:
			continue
		case ok && st.TrustedHash != "":
			modified = append(modified, h.Event)
		default:
			untrusted = append(untrusted, h.Event)
		}
		fmt.Fprintf(&fix, "\n[hooks.state.%s]\ntrusted_hash = %s", tomlString(h.Key), tomlString(h.Hash))
	}
	f := conffile.Finding{Check: "hook-trust", OK: len(untrusted)+len(modified)+len(disabled) == 0}
	switch {
	case f.OK:
		f.Detail = fmt.Sprintf("Codex trusts planq's %d hooks", len(handlers))
	default:
		var parts []string
		if len(untrusted) > 0 {
			parts = append(parts, "not trusted: "+strings.Join(untrusted, ", "))
		}
		if len(modified) > 0 {
			parts = append(parts, "changed since trusted: "+strings.Join(modified, ", "))
		}
		if len(disabled) > 0 {
			parts = append(parts, "disabled: "+strings.Join(disabled, ", "))
		}
		f.Detail = "Codex silently skips planq's hooks that are " + strings.Join(parts, "; ") + " (the gate does not run)"
		f.Fix = "run codex, open /hooks and trust planq's hooks, or add to " + userFile + ":" + fix.String()
		if len(disabled) > 0 {
			f.Fix += "\n(and enable the disabled ones in /hooks)"
		}
	}
	return append(out, f)
}
