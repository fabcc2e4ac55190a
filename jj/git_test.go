package jj_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	for _, tt := range []struct {
		v    string
		want bool
	}{{"2.42.0", true}, {"2.41.9", false}, {"2.100.1", true}, {"3.0", true}, {"1.99", false}, {"", false}, {"x.y", false}} {
		if got := jj.VersionAtLeast(tt.v, 2, 42); got != tt.want {
			t.Errorf("VersionAtLeast(%q, 2, 42) = %v", tt.v, got)
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
