package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/statusline"
)

// statusPayload is what Claude Code 2.1.197 piped into a statusLine command
// at the prompt of an interactive session (captured from the real CLI; the
// session ran in /tmp/slx/repo).
func statusPayload(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "statusline-input-2.1.197.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecodeStatusLine(t *testing.T) {
	t.Parallel()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	captured := statusPayload(t)
	tests := []struct {
		name    string
		data    string
		columns string
		want    statusline.Input
		err     string
	}{
		{"captured payload", string(captured), "120", statusline.Input{Dir: "/tmp/slx/repo", Width: 116}, ""},
		{"no COLUMNS: no width", string(captured), "", statusline.Input{Dir: "/tmp/slx/repo"}, ""},
		{"COLUMNS not a number", string(captured), "wide", statusline.Input{Dir: "/tmp/slx/repo"}, ""},
		{"a tiny terminal", string(captured), "3", statusline.Input{Dir: "/tmp/slx/repo", Width: 1}, ""},
		{"current_dir over cwd", `{"cwd":"/a","workspace":{"current_dir":"/b"}}`, "80", statusline.Input{Dir: "/b", Width: 76}, ""},
		{"cwd alone", `{"cwd":"/a"}`, "80", statusline.Input{Dir: "/a", Width: 76}, ""},
		{"empty input: by hand", "  \n", "80", statusline.Input{Width: 76}, ""},
		{"no directory", `{"session_id":"x"}`, "80", statusline.Input{Width: 76}, "no workspace.current_dir or cwd"},
		{"not JSON", `{"cwd":`, "80", statusline.Input{Width: 76}, "not JSON: unexpected end of JSON input"},
		{"wrong type", `{"cwd":7}`, "", statusline.Input{}, "not JSON: json: cannot unmarshal number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeStatusLine([]byte(tt.data), env(map[string]string{"COLUMNS": tt.columns}))
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("DecodeStatusLine = %+v, want %+v", got, tt.want)
			}
		})
	}
	// The captured payload holds what StatusInput documents.
	var s StatusInput
	if err := json.Unmarshal(captured, &s); err != nil {
		t.Fatal(err)
	}
	if s.SessionID == "" || s.Model.ID == "" || s.Workspace.ProjectDir != "/tmp/slx/repo" || s.Version != "2.1.197" {
		t.Errorf("captured payload decoded as %+v", s)
	}
}
