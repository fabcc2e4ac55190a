// Package hosttest holds what the host adapters' tests share: reading a
// file, a captured hook payload from testdata, and a gate run through an
// adapter's protocol as the host runs its pre-tool-use hook.
package hosttest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planq-dev/planq/hooks/session"
)

// ReadFile returns the file at path; a failure ends the test.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Fixture returns the payload a host sent a logging hook (testdata/NAME.json,
// captured with go test -tags capture) after edit has pointed it at the
// test's project and transcript.
func Fixture(t testing.TB, name string, edit func(payload map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(ReadFile(t, filepath.Join("testdata", name+".json"))), &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := json.Marshal(m)
	return out
}

// Gate runs the pre-tool-use hook on payload through proto, as the host
// runs it, and returns its exit status and its answer decoded as an R (nil
// when it printed nothing); an answer that is not an R ends the test.
func Gate[R any](t testing.TB, proto session.Protocol, payload string, getenv func(string) string) (int, *R) {
	t.Helper()
	var out, errb bytes.Buffer
	code := session.RunPreToolUse(context.Background(), proto, strings.NewReader(payload), &out, &errb, getenv)
	s := strings.TrimSpace(out.String())
	if s == "" {
		return code, nil
	}
	var r R
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("reply %q: %v", s, err)
	}
	return code, &r
}
