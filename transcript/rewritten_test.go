package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Gemini CLI session file (captured from gemini -p 0.61.0) writes each
// model message twice under one id, the second time with its tool calls:
// read for a model, each message shows once, as last written, with its
// tool calls; read raw, every line is there.
func TestGeminiMessagesShowOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "hooks", "gemini", "testdata", "session.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	total := int64(strings.Count(string(data), "\n"))
	ctx := context.Background()
	rendered, err := Range(ctx, path, 1, total, WithRender(Render))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := Range(ctx, path, 1, total)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(raw.Lines)) != total {
		t.Fatalf("raw range: %d lines of %d", len(raw.Lines), total)
	}
	count := func(res Result, s string) int {
		n := 0
		for _, l := range res.Lines {
			if strings.Contains(l.Text, s) {
				n++
			}
		}
		return n
	}
	for _, msg := range []string{"assistant: Writing.", "assistant: Shell.", "assistant: Replace."} {
		if n := count(rendered, msg); n != 1 {
			t.Errorf("%q shows %d times, want once:\n%s", msg, n, rendered)
		}
	}
	if count(rendered, "assistant calls write_file") != 1 {
		t.Errorf("the write_file call is not shown with its message:\n%s", rendered)
	}
	// A search finds the message once; a page read for a reader too.
	found, err := Search(ctx, path, "Writing.", 50, WithRender(Render))
	if err != nil || len(found.Lines) != 1 || !strings.Contains(found.Lines[0].Text, "calls write_file") {
		t.Errorf("search: %v\n%s", err, found)
	}
	page, err := ReadPage(ctx, path, 0, 1000, WithRender(Render))
	if err != nil {
		t.Fatal(err)
	}
	if n := count(Result{Lines: page.Lines}, "assistant: Writing."); n != 1 {
		t.Errorf("a page shows the message %d times", n)
	}
}

func TestRecordID(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`{"id":"7a","type":"gemini"}`:            "7a",
		`{"id":"","type":"gemini"}`:              "",
		`{"type":"user","id":"7a"}`:              "",
		`{"sessionId":"x"}`:                      "",
		`{"id":"a\"b","type":"gemini"}`:          "",
		`{"id":"7a"}`:                            "",
		`{"$set":{"messages":[{"id":"d0"}]}}`:    "",
		`{"parentUuid":null,"id":"7a","x":1}`:    "",
		`{"id":"7a","timestamp":"t","type":"x"}`: "7a",
	} {
		if got := recordID([]byte(line)); got != want {
			t.Errorf("recordID(%s) = %q, want %q", line, got, want)
		}
	}
}
