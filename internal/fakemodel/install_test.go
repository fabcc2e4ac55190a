package fakemodel

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestInstallClaudeUsesTheMachinesNpmConfig: scripts/install-claude.sh
// installs into a prefix of its own but keeps the machine's global npm
// config (a registry here; behind a proxy, its cafile too), for the
// reachability check and for the install itself, and a registry that fails
// is reported with its own error after at most one retry.
func TestInstallClaudeUsesTheMachinesNpmConfig(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "runs npm install against a local registry")
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("SKIPPED: npm is not installed")
	}
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		metadata bool // the registry answers the package's metadata
		code     int
	}{
		{"registry down", false, 3},
		{"tarball fails", true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var meta, tarballs atomic.Int32
			var registry *httptest.Server
			registry = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case strings.HasSuffix(r.URL.Path, ".tgz"):
					tarballs.Add(1)
				case strings.Contains(r.URL.Path, "claude-code"): // not npm's own update check
					meta.Add(1)
					if tt.metadata {
						json.NewEncoder(w).Encode(packument(registry.URL))
						return
					}
				}
				http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			}))
			defer registry.Close()
			// npm derives its global config from its prefix: <prefix>/etc/npmrc.
			global := t.TempDir()
			os.MkdirAll(filepath.Join(global, "etc"), 0o755)
			if err := os.WriteFile(filepath.Join(global, "etc", "npmrc"), []byte("registry="+registry.URL+"/\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx := testenv.Context(t)
			cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "install-claude.sh"))
			cmd.Env = append(os.Environ(),
				"PATH=/usr/local/bin:/usr/bin:/bin", // no claude on it
				"HOME="+t.TempDir(),                 // no user npmrc, an empty npm cache
				"NPM_CONFIG_PREFIX="+global,
				"PLANQ_TOOLS_DIR="+t.TempDir(),
				"PLANQ_CLAUDE_CODE_VERSION="+testVersion,
			)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
				t.Fatalf("install-claude.sh: %v, want exit %d\n%s", err, tt.code, out)
			}
			if !strings.Contains(string(out), "503") {
				t.Errorf("the output lacks the registry's error:\n%s", out)
			}
			asked := meta.Load()
			if tt.metadata {
				asked = tarballs.Load() // the install itself went to the machine's registry
			}
			if asked < 1 || asked > 2 {
				t.Errorf("the failing request reached the machine's registry %d times; want 1, or 2 with the one retry\n%s", asked, out)
			}
		})
	}
}

// testVersion is a Claude Code version that only the test's registry has.
const testVersion = "0.0.1-planq-test"

// packument is registry metadata for Claude Code testVersion, with its
// tarball on the registry at base.
func packument(base string) map[string]any {
	const name, version = "@anthropic-ai/claude-code", testVersion
	return map[string]any{
		"name":      name,
		"dist-tags": map[string]string{"latest": version},
		"versions": map[string]any{version: map[string]any{
			"name": name, "version": version,
			// npm links bins and runs scripts from the registry's manifest.
			"bin":              map[string]string{"claude": "bin/claude.exe"},
			"scripts":          map[string]string{"postinstall": "sleep 1 && cp bin/real bin/claude.exe"},
			"hasInstallScript": true,
			"dist":             map[string]string{"tarball": base + "/@anthropic-ai/claude-code/-/claude-code-" + version + ".tgz"},
		}},
	}
}

// TestConcurrentInstallsShareOnePrefix: go test runs packages in parallel,
// and each end-to-end test asks for its host CLI, so several install
// scripts start at once on a fresh clone. The package here behaves as
// Claude Code's does: its bin is a stub until its postinstall puts the real
// program in place. Every installer must end with a working claude, none
// seeing another's half-done install.
func TestConcurrentInstallsShareOnePrefix(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "runs npm install against a local registry")
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("SKIPPED: npm is not installed")
	}
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tgz := stubPackage(t)
	var registry *httptest.Server
	registry = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, ".tgz"):
			w.Write(tgz)
		case strings.Contains(r.URL.Path, "claude-code"):
			json.NewEncoder(w).Encode(packument(registry.URL))
		default:
			http.NotFound(w, r)
		}
	}))
	defer registry.Close()
	global := t.TempDir()
	os.MkdirAll(filepath.Join(global, "etc"), 0o755)
	if err := os.WriteFile(filepath.Join(global, "etc", "npmrc"), []byte("registry="+registry.URL+"/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := t.TempDir()
	ctx := testenv.Context(t)
	const n = 3
	outs, errs := make([][]byte, n), make([]error, n)
	done := make(chan int)
	for i := range n {
		go func() {
			cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "install-claude.sh"))
			cmd.Env = append(os.Environ(),
				"PATH=/usr/local/bin:/usr/bin:/bin",
				"HOME="+t.TempDir(),
				"NPM_CONFIG_PREFIX="+global,
				"PLANQ_TOOLS_DIR="+tools,
				"PLANQ_CLAUDE_CODE_VERSION="+testVersion,
			)
			outs[i], errs[i] = cmd.CombinedOutput()
			done <- i
		}()
	}
	for range n {
		<-done
	}
	for i := range n {
		if errs[i] != nil {
			t.Errorf("installer %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	out, err := exec.CommandContext(ctx, filepath.Join(tools, "npm", "bin", "claude"), "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "stub claude") {
		t.Errorf("claude --version after the installs: %v, %q", err, out)
	}
}

// stubPackage is a tarball of Claude Code testVersion whose bin fails
// until its postinstall (which takes a moment) has put the real one in
// place, as the real package's does.
func stubPackage(t *testing.T) []byte {
	t.Helper()
	files := []struct {
		name, body string
		mode       int64
	}{
		{"package/package.json", `{"name":"@anthropic-ai/claude-code","version":"` + testVersion + `",` +
			`"bin":{"claude":"bin/claude.exe"},"scripts":{"postinstall":"sleep 1 && cp bin/real bin/claude.exe"}}`, 0o644},
		{"package/bin/claude.exe", "#!/bin/sh\necho 'postinstall did not run' >&2\nexit 1\n", 0o755},
		{"package/bin/real", "#!/bin/sh\necho '" + testVersion + " (stub claude)'\n", 0o755},
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
