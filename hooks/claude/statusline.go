package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/planq-dev/planq/hooks/conffile"
	"github.com/planq-dev/planq/hooks/statusline"
)

// StatusInput is the JSON Claude Code gives its statusLine command on
// stdin (2.1.197: the hooks' common fields, then model, workspace, version,
// output_style, cost, context_window and more). planq reads only where the
// session is; the rest is kept for tests and left to Claude Code. Claude
// Code passes no width in it: it sets $COLUMNS to the terminal's width.
type StatusInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version string `json:"version,omitempty"`
}

// StatusLineMargin is the columns Claude Code's footer takes around the
// status line (its left and right padding, 2.1.197): a line wider than
// $COLUMNS minus this is cut by Claude Code, not by planq.
const StatusLineMargin = 4

// DecodeStatusLine reads Claude Code's status input (statusline.Decoder):
// the session's directory is workspace.current_dir, else cwd; the width is
// $COLUMNS less StatusLineMargin. Empty input (a user running the command
// by hand) is no error.
func DecodeStatusLine(data []byte, getenv func(string) string) (statusline.Input, error) {
	in := statusline.Input{Width: columnsFromEnv(getenv)}
	if len(bytes.TrimSpace(data)) == 0 {
		return in, nil
	}
	var s StatusInput
	if err := json.Unmarshal(data, &s); err != nil {
		return in, fmt.Errorf("not JSON: %w", err)
	}
	in.Dir = s.Workspace.CurrentDir
	if in.Dir == "" {
		in.Dir = s.Cwd
	}
	if in.Dir == "" {
		return in, fmt.Errorf("no workspace.current_dir or cwd in the status JSON")
	}
	return in, nil
}

// columnsFromEnv is the status line's width from $COLUMNS, or 0 when it is
// unset or not a number.
func columnsFromEnv(getenv func(string) string) int {
	if getenv == nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS")))
	if err != nil || n <= 0 {
		return 0
	}
	return max(n-StatusLineMargin, 1)
}

// StatusLineSubcommand is the planq (and planq-hook) subcommand Claude
// Code's statusLine runs.
const StatusLineSubcommand = "statusline"

// StatusLineCommand is the statusLine command line for planq at exe, or
// for planq-hook at hookExe when it is installed (it starts several times
// faster, and the status line runs every few seconds).
func StatusLineCommand(exe, hookExe string) string {
	if hookExe != "" {
		exe = hookExe
	}
	return conffile.Line(exe, StatusLineSubcommand)
}

// isPlanqStatusLine reports whether a statusLine command is planq's: a
// planq or planq-hook binary (wherever it is, or exe whatever its name)
// running statusline, and nothing else.
func isPlanqStatusLine(cmd, exe string) bool {
	f := conffile.Fields(cmd)
	if len(f) != 2 || f[1] != StatusLineSubcommand {
		return false
	}
	base := f[0][strings.LastIndexAny(f[0], `/\`)+1:]
	return strings.HasPrefix(base, "planq") || exe != "" && f[0] == exe
}

// statusLineIn returns the settings document doc's statusLine: the object
// (nil when absent or not an object), its command, and whether it is
// planq's (exe, when set, is planq's binary whatever its name).
func statusLineIn(doc *conffile.Object, exe string) (obj *conffile.Object, cmd string, ours bool) {
	v, _ := doc.Get("statusLine")
	obj, _ = v.(*conffile.Object)
	cmd = conffile.EntryCommand(obj)
	return obj, cmd, obj != nil && isPlanqStatusLine(cmd, exe)
}

// statusLineResult is what wiring the status line into one settings file
// has to say: a note once it is done, a warning whatever happens.
type statusLineResult struct{ note, warning string }

// statusLineEdit wires planq's status line into doc, the settings file at
// path, or takes it out with Uninstall. planq's own entry is kept pointing
// at this planq (the user's padding or refreshInterval kept) whether or not
// o.StatusLine asks for it; a status line of the user's own, in this file
// or in another settings file of the project, is never replaced: it gets a
// warning saying how to show both.
func (o *InstallOptions) statusLineEdit(doc *conffile.Object, path string) statusLineResult {
	obj, cmd, ours := statusLineIn(doc, o.Exe)
	want := StatusLineCommand(o.Exe, o.HookExe)
	switch {
	case o.Uninstall:
		if ours {
			doc.Del("statusLine")
		}
		return statusLineResult{}
	case ours:
		obj.Set("type", "command")
		obj.Set("command", want)
		return statusLineResult{}
	case !o.StatusLine:
		return statusLineResult{}
	}
	if theirs, ok := o.userStatusLine(path, doc.Has("statusLine"), cmd); ok {
		return statusLineResult{warning: combineAdvice(theirs, want)}
	}
	e := conffile.NewObject()
	e.Set("type", "command")
	e.Set("command", want)
	doc.Set("statusLine", e)
	return statusLineResult{note: "status line wired in " + path + ": Claude Code shows it under the prompt"}
}

// statusLineSetting is a statusLine found in one of Claude Code's settings
// files.
type statusLineSetting struct {
	File, Command string
	Planq         bool
}

// userStatusLine finds a status line of the user's own that planq's in path
// would replace or be hidden by: path's own (has, with its command cmd),
// else one in the project's other settings files.
func (o *InstallOptions) userStatusLine(path string, has bool, cmd string) (statusLineSetting, bool) {
	if has {
		return statusLineSetting{File: path, Command: cmd}, true
	}
	for _, s := range statusLines(o.ProjectDir, o.Home) {
		if s.File != path && !s.Planq {
			return s, true
		}
	}
	return statusLineSetting{}, false
}

// statusLines are the statusLine settings in Claude Code's settings files
// for projectDir (none: the user's alone), highest precedence first: local,
// project, user. Claude Code shows the first.
func statusLines(projectDir, home string) []statusLineSetting {
	var files []string
	for _, scope := range []string{ScopeLocal, ScopeProject, ScopeUser} {
		if scope != ScopeUser && projectDir == "" {
			continue
		}
		o := InstallOptions{Scope: scope, ProjectDir: projectDir, Home: home}
		_, settings := o.paths()
		files = append(files, settings)
	}
	var out []statusLineSetting
	for _, f := range files {
		_, doc, err := loadJSON(f)
		if err != nil {
			continue
		}
		if v, ok := doc.Get("statusLine"); !ok || v == nil {
			continue
		}
		_, cmd, ours := statusLineIn(doc, "")
		out = append(out, statusLineSetting{File: f, Command: cmd, Planq: ours})
	}
	return out
}

// combineAdvice is the one line that says planq kept the user's status line
// and how to show both: a statusLine command (Claude Code runs it with a
// shell) giving the same input to theirs and to planq's, joined.
func combineAdvice(theirs statusLineSetting, planq string) string {
	mine := theirs.Command
	if mine == "" {
		mine = "your-command"
	}
	both := `in=$(cat); printf '%s · %s\n' "$(printf %s "$in" | { ` + mine + `; })" "$(printf %s "$in" | ` + planq + `)"`
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(both)
	return fmt.Sprintf("the status line in %s is your own, so planq left it as it is; to show both, set its command to %s",
		theirs.File, strings.TrimSpace(b.String()))
}

// statusLineFinding says, for planq doctor, which status line Claude Code
// shows in projectDir: planq's (and whether its binary runs), the user's
// own, or none. A status line is optional, so only a broken planq one is a
// failure.
func statusLineFinding(projectDir, home string) conffile.Finding {
	f := conffile.Finding{Check: "statusline", OK: true}
	all := statusLines(projectDir, home)
	switch {
	case len(all) == 0:
		f.Detail = "no status line (optional: `planq mcp install --statusline` shows the change, the gate and what is left under the prompt)"
	case !all[0].Planq:
		f.Detail = "the status line is your own (" + all[0].File + "); `planq statusline --help` says how to show planq's beside it"
	default:
		f.Detail = "planq's status line is wired (" + all[0].File + ")"
		if exe := conffile.Fields(all[0].Command); len(exe) > 0 && !conffile.Executable(exe[0]) {
			f.OK = false
			f.Detail += ": but " + exe[0] + " is not an executable"
			f.Fix = "planq mcp install --statusline   (re-run to point it at this binary)"
		}
	}
	return f
}
