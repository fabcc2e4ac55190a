package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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
