package jj_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/jj"
)

func TestParseGitVersion(t *testing.T) {
	t.Parallel()
	for out, want := range map[string]string{
		"git version 2.39.5\n":                 "2.39.5",
		"git version 2.39.5 (Apple Git-154)\n": "2.39.5",
		"git version 2.45.1.windows.1\n":       "2.45.1",
		"git version 2.53.0":                   "2.53.0",
		"bash: git: command not found":         "",
		"":                                     "",
	} {
		if got := jj.ParseGitVersion(out); got != want {
			t.Errorf("ParseGitVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

// GitVersion runs a git and reads its version; a git that does not run or
// prints no version is an error naming it.
func TestGitVersion(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	for name, out := range map[string]string{"apple": "git version 2.39.5 (Apple Git-154)", "odd": "hello", "failing": ""} {
		script := fmt.Sprintf("#!/bin/sh\necho '%s'\n", out)
		if name == "failing" {
			script = "#!/bin/sh\nexit 3\n"
		}
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if runtime.GOOS == "windows" {
		t.Skip("shell-script gits")
	}
	ctx := context.Background()
	if v, err := jj.GitVersion(ctx, filepath.Join(bin, "apple")); v != "2.39.5" || err != nil {
		t.Errorf("GitVersion(apple) = %q, %v", v, err)
	}
	for _, name := range []string{"odd", "failing", "missing"} {
		p := filepath.Join(bin, name)
		if v, err := jj.GitVersion(ctx, p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("GitVersion(%s) = %q, %v; want an error naming it", name, v, err)
		}
	}
}

// TestGitIsTheOneJJRuns: Git follows jj's git.executable-path setting.
func TestGitIsTheOneJJRuns(t *testing.T) {
	testenv.Isolate(t)
	testenv.RequireJJ(t)
	ctx := context.Background()
	bin := t.TempDir()
	for name, version := range map[string]string{"oldgit": "2.39.5", "newgit": "2.53.0"} {
		script := fmt.Sprintf("#!/bin/sh\necho 'git version %s'\n", version)
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		setting, version string
		found, suitable  bool
	}{
		{filepath.Join(bin, "oldgit"), "2.39.5", true, false},
		{filepath.Join(bin, "newgit"), "2.53.0", true, true},
		{filepath.Join(bin, "nosuchgit"), "", false, false},
	} {
		os.WriteFile(os.Getenv("JJ_CONFIG"), []byte(fmt.Sprintf("[git]\nexecutable-path = %q\n", tt.setting)), 0o644)
		g, err := jj.New(t.TempDir()).Git(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if g.Setting != tt.setting || (g.Path != "") != tt.found || g.Version != tt.version || g.Suitable() != tt.suitable {
			t.Errorf("with git.executable-path %s: %+v (suitable %v)", tt.setting, g, g.Suitable())
		}
	}
}
