package statusline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/internal/testenv"
)

func TestParts(t *testing.T) {
	t.Parallel()
	const id = "kxqyzmpvqrstuvwxyzkxqyzmpvqrst"
	summary := "Add rate limiting\n\nDone:\n- bucket\n\nKey decisions:\n- none\n\nLeft to do:\n- overrides\n- docs\n\nOpen questions:\n- none"
	tests := []struct {
		name string
		st   gate.Status
		mode string
		want []string
	}{
		{"undeclared", gate.Status{ChangeID: id, Locked: true}, config.ModeStrict, []string{"kxqyzmpvqrst", "gate locked", "no change declared: jj_init first"}},
		{"undeclared, warn mode", gate.Status{ChangeID: id, Locked: true}, config.ModeWarn, []string{"kxqyzmpvqrst", "gate warns", "no change declared: jj_init first"}},
		{"gate off", gate.Status{ChangeID: id, Locked: true}, config.ModeOff, []string{"kxqyzmpvqrst", "gate off", "no change declared: jj_init first"}},
		{"declared, no summary yet", gate.Status{ChangeID: id, Description: "Add rate limiting\n"}, config.ModeStrict, []string{"kxqyzmpvqrst", "gate open", "Add rate limiting"}},
		{"living summary", gate.Status{ChangeID: id, Description: summary}, config.ModeStrict, []string{"kxqyzmpvqrst", "gate open", "Add rate limiting", "2 left to do"}},
		{"nothing left", gate.Status{ChangeID: id, Description: "Task\n\nLeft to do:\n- nothing\n"}, config.ModeStrict, []string{"kxqyzmpvqrst", "gate open", "Task", "0 left to do"}},
		{"task line after blank lines", gate.Status{ChangeID: id, Description: "\n\n  Task  \nmore"}, config.ModeStrict, []string{"kxqyzmpvqrst", "gate open", "Task"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Parts(tt.st, tt.mode) {
				got = append(got, p.Text)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Parts = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRenderInAJJRepo reads real jj repos: the line follows the change as
// it is declared and summarised, and once the gate's cache is warm it is
// rendered with no jj on PATH at all.
func TestRenderInAJJRepo(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	ctx := context.Background()
	repo := testenv.JJRepo(t)
	in := Input{Dir: repo, Width: 120}

	if got := Render(ctx, in); !strings.Contains(got, " · gate locked · no change declared: jj_init first") {
		t.Errorf("undeclared: %q", got)
	}
	testenv.Run(t, repo, "jj", "describe", "-m", "Add rate limiting\n\nDone:\n- bucket\n\nLeft to do:\n- overrides\n- docs\n- tests\n")
	want := " · gate open · Add rate limiting · 3 left to do"
	got := Render(ctx, in)
	if !strings.HasSuffix(got, want) {
		t.Fatalf("declared: %q, want it to end in %q", got, want)
	}
	id := strings.TrimSuffix(got, want)
	if len(id) != 12 || strings.Trim(id, "klmnopqrstuvwxyz") != "" {
		t.Errorf("the change id part is %q, want 12 of jj's change-id letters", id)
	}
	// In a subdirectory, the same.
	sub := filepath.Join(repo, "src", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Render(ctx, Input{Dir: sub, Width: 120}); got != id+want {
		t.Errorf("from a subdirectory: %q", got)
	}

	// The cache is warm: no jj process is needed, so none can be on PATH.
	t.Setenv("PATH", t.TempDir())
	if got := Render(ctx, in); got != id+want {
		t.Errorf("with the cache warm and no jj: %q, want %q", got, id+want)
	}
	// A cold cache with no jj says so in the line.
	if err := os.Remove(filepath.Join(repo, ".jj", gate.CacheFile)); err != nil {
		t.Fatal(err)
	}
	if got := Render(ctx, in); !strings.HasPrefix(got, "planq: cannot read the change: ") || Width(got) > 120 {
		t.Errorf("cold cache, no jj: %q", got)
	}
}

func TestRenderGateModeAndNoRepo(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	ctx := context.Background()
	repo := testenv.JJRepo(t)
	testenv.WriteFile(t, repo, config.File, "gate:\n  mode: off\n")
	if got := Render(ctx, Input{Dir: repo}); !strings.Contains(got, " · gate off · no change declared") {
		t.Errorf("gate off: %q", got)
	}
	if got := Render(ctx, Input{Dir: t.TempDir(), Width: 30}); got != "planq: not in a jj repo" {
		t.Errorf("outside a repo, 30 columns: %q", got)
	}
}

func TestServe(t *testing.T) {
	testenv.RequireJJ(t)
	testenv.Isolate(t)
	repo := testenv.JJRepo(t)
	testenv.Run(t, repo, "jj", "describe", "-m", "Serve it")
	notRepo := t.TempDir()
	// A decoder that takes the directory as the whole input.
	decode := func(data []byte, getenv func(string) string) (Input, error) {
		s := string(data)
		switch {
		case strings.HasPrefix(s, "bad"):
			return Input{Width: 40}, errors.New("not JSON: invalid character 'b'\nand more")
		case s == "":
			return Input{}, nil
		}
		return Input{Dir: s, Width: 90}, nil
	}
	env := Env{Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return repo, nil }}
	tests := []struct {
		name  string
		stdin func() *bytes.Buffer
		want  string // what the line holds
	}{
		{"a repo", func() *bytes.Buffer { return bytes.NewBufferString(repo) }, " · gate open · Serve it"},
		{"no input: the working directory", func() *bytes.Buffer { return &bytes.Buffer{} }, " · gate open · Serve it"},
		{"bad input", func() *bytes.Buffer { return bytes.NewBufferString("bad{") }, "planq: bad status input: not JSON: inva…\n"},
		{"not a repo", func() *bytes.Buffer { return bytes.NewBufferString(notRepo) }, "planq: not in a jj repo"},
		{"relative directory", func() *bytes.Buffer { return bytes.NewBufferString("some/dir") }, `planq: bad status input: directory "some/dir" is not absolute`},
		{"directory gone", func() *bytes.Buffer { return bytes.NewBufferString(filepath.Join(notRepo, "gone")) }, "planq: the session's directory is gone: "},
		{"too big", func() *bytes.Buffer { return bytes.NewBuffer(bytes.Repeat([]byte("x"), MaxInput+1)) }, "planq: status input over 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := Serve(context.Background(), decode, tt.stdin(), &out, env); code != 0 {
				t.Errorf("exit %d, want 0", code)
			}
			line := out.String()
			if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") || !strings.Contains(line, tt.want) {
				t.Errorf("printed %q, want one line holding %q", line, tt.want)
			}
		})
	}
	t.Run("a read error", func(t *testing.T) {
		var out bytes.Buffer
		Serve(context.Background(), decode, iotest.ErrReader(errors.New("boom")), &out, env)
		if out.String() != "planq: cannot read the status input: boom\n" {
			t.Errorf("printed %q", out.String())
		}
	})
}
