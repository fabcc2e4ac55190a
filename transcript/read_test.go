package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSearch(t *testing.T) {
	t.Parallel()
	long := `{"big":"` + strings.Repeat("x", 3<<20) + ` NEEDLE in a haystack"}`
	data := strings.Join([]string{
		`{"type":"user","text":"Add rate limiting"}`,
		`{"type":"assistant","text":"Token bucket it is"}`,
		`{"type":"assistant","text":"he said \"token bucket\" twice"}`,
		long,
		`{"type":"user","text":"RATE LIMIT per tenant"}`,
		`{"last":"no newline, rate limit"}`,
	}, "\n")
	path := writeTemp(t, data)
	ctx := context.Background()
	tests := []struct {
		name, query string
		limit       int
		wantLines   []int64
		wantCapped  bool
	}{
		{"case-insensitive", "rate limit", 0, []int64{1, 5, 6}, false},
		{"limit caps", "rate limit", 2, []int64{1, 5}, true},
		{"json-escaped quotes", `"token bucket"`, 0, []int64{3}, false},
		{"inside a line longer than the buffer", "needle", 0, []int64{4}, false},
		{"no match", "websocket", 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Search(ctx, path, tt.query, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, l := range res.Lines {
				got = append(got, l.N)
				if len(l.Text) > MaxLineChars+40 {
					t.Errorf("line %d returned with %d bytes, want it cut near %d", l.N, len(l.Text), MaxLineChars)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.wantLines) {
				t.Fatalf("lines = %v, want %v", got, tt.wantLines)
			}
			if res.Capped != tt.wantCapped {
				t.Fatalf("capped = %v, want %v", res.Capped, tt.wantCapped)
			}
			if res.Total != 6 {
				t.Fatalf("total = %d, want 6", res.Total)
			}
			if tt.wantCapped && !strings.Contains(res.String(), "[capped") {
				t.Fatalf("capped result without a marker:\n%s", res.String())
			}
			if len(tt.wantLines) == 0 && !strings.Contains(res.Note, "no line matches") {
				t.Fatalf("note = %q", res.Note)
			}
		})
	}
	// The long line is reported cut, with how much was left out.
	res, _ := Search(ctx, path, "needle", 0)
	if !strings.Contains(res.Lines[0].Text, "… [+") {
		t.Fatalf("long line not marked as cut: %.80q…", res.Lines[0].Text)
	}
}

func TestSearchErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := Search(ctx, writeTemp(t, "x\n"), "  ", 0); err == nil || !strings.Contains(err.Error(), "query is empty") {
		t.Fatalf("empty query: %v", err)
	}
	if _, err := Search(ctx, filepath.Join(t.TempDir(), "none"), "x", 0); err == nil || !strings.Contains(err.Error(), "no transcript") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestSearchCapsTotalSize(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, `{"i":%d,"pad":"%s match"}`+"\n", i, strings.Repeat("p", 1500))
	}
	res, err := Search(context.Background(), writeTemp(t, b.String()), "match", 500)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.String()) > MaxTotal+2000 || !res.Capped || !strings.Contains(res.Note, "range starting at line") {
		t.Fatalf("result of %d chars, capped=%v, note=%q", len(res.String()), res.Capped, res.Note)
	}
}

func TestRange(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	path := writeTemp(t, b.String())
	ctx := context.Background()
	res, err := Range(ctx, path, 28, 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lines) != 3 || res.Lines[0].Text != "line 28" || res.Lines[2].N != 30 || res.Capped {
		t.Fatalf("Range(28,40) = %+v", res)
	}
	if res, _ := Range(ctx, path, 31, 40); len(res.Lines) != 0 || !strings.Contains(res.Note, "30 lines") {
		t.Fatalf("Range past the end: %+v", res)
	}
	if _, err := Range(ctx, path, 0, 3); err == nil {
		t.Fatal("Range(0,3) accepted")
	}
	var big strings.Builder
	for i := 1; i <= MaxLimit+10; i++ {
		fmt.Fprintf(&big, "%d\n", i)
	}
	res, _ = Range(ctx, writeTemp(t, big.String()), 1, MaxLimit+10)
	if len(res.Lines) != MaxLimit || !res.Capped || !strings.Contains(res.Note, fmt.Sprintf("continue from line %d", MaxLimit+1)) {
		t.Fatalf("Range over the cap: %d lines, note %q", len(res.Lines), res.Note)
	}
}
