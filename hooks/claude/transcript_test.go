package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMangleDirIsClaudeCodes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"/home/alice/src/my.project_1", "-home-alice-src-my-project-1"},
		{"/tmp/é x", "-tmp---x"},
		{"/tmp/😀", "-tmp---"}, // two UTF-16 units
	} {
		if got := MangleDir(c.in); got != c.want {
			t.Errorf("MangleDir(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Past 200 units: cut, and Java's hashCode of the path in base 36.
	long := "/" + strings.Repeat("a", 250)
	got := MangleDir(long)
	if !strings.HasPrefix(got, "-"+strings.Repeat("a", 199)+"-") || len(got) <= 201 {
		t.Fatalf("MangleDir(long) = %q", got)
	}
	// "Aa" and "BB" collide in Java's hashCode: the same suffix.
	a, b := MangleDir(long[:240]+"Aa"), MangleDir(long[:240]+"BB")
	if a[201:] != b[201:] {
		t.Errorf("hash suffixes differ: %q vs %q", a[201:], b[201:])
	}
}

func TestSubagentFilesAreTheSessionsSubagentTranscripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	session := filepath.Join(dir, "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e.jsonl")
	if got := SubagentFiles(session); got != nil {
		t.Fatalf("no subagents: %v", got)
	}
	sub := filepath.Join(dir, "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e", "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"agent-a1.jsonl", "agent-a1.meta.json", "agent-b2.jsonl"} {
		if err := os.WriteFile(filepath.Join(sub, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{filepath.Join(sub, "agent-a1.jsonl"), filepath.Join(sub, "agent-b2.jsonl")}
	if got := SubagentFiles(session); !slices.Equal(got, want) {
		t.Fatalf("SubagentFiles = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "relative.jsonl", filepath.Join(dir, "1a4e73b2-ccbc-4831-9aec-5ab717a5a90e")} {
		if got := SubagentFiles(bad); got != nil {
			t.Errorf("SubagentFiles(%q) = %v, want none", bad, got)
		}
	}
}
