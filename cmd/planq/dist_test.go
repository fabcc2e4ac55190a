package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestDistWritesReleaseArchives runs `make dist`'s script for one Unix and
// the Windows target: a tar.gz and a zip, each with the binary and the
// README in one directory, and a SHA256SUMS that checks them.
func TestDistWritesReleaseArchives(t *testing.T) {
	t.Parallel()
	testenv.SkipShort(t, "cross-compiles planq")
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("SKIPPED: no sha256sum to check the sums with")
	}
	out := t.TempDir()
	host := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("bash", "../../scripts/dist.sh", out)
	cmd.Env = append(os.Environ(), "VERSION=v9.8.7-test", "PLATFORMS="+host+" windows/amd64")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dist.sh: %v\n%s", err, b)
	}
	hostName := "planq_v9.8.7-test_" + runtime.GOOS + "_" + runtime.GOARCH
	winName := "planq_v9.8.7-test_windows_amd64"
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	want := []string{"SHA256SUMS", hostName + ".tar.gz", winName + ".zip"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("dist/ holds %v, want %v", names, want)
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = out
	if b, err := check.CombinedOutput(); err != nil || strings.Count(string(b), ": OK") != 2 {
		t.Errorf("sha256sum -c: %v\n%s", err, b)
	}

	// The tar.gz: planq, the hook binary and the sandbox entry point, each
	// reporting the version (planq finds the other two beside itself).
	bin := filepath.Join(t.TempDir(), "planq")
	files := untar(t, filepath.Join(out, hostName+".tar.gz"), hostName+"/planq", bin)
	if !slices.Equal(files, []string{hostName + "/", hostName + "/README.md", hostName + "/planq", hostName + "/planq-hook", hostName + "/planq-sandbox"}) {
		t.Errorf("tar.gz holds %v", files)
	}
	if v, err := exec.Command(bin, "version").Output(); err != nil || !strings.Contains(string(v), "v9.8.7-test") {
		t.Errorf("planq version from the archive: %q, %v", v, err)
	}
	hook := filepath.Join(t.TempDir(), "planq-hook")
	untar(t, filepath.Join(out, hostName+".tar.gz"), hostName+"/planq-hook", hook)
	if v, err := exec.Command(hook, "version").Output(); err != nil || !strings.Contains(string(v), "v9.8.7-test") {
		t.Errorf("planq-hook version from the archive: %q, %v", v, err)
	}
	// The zip: the three .exe files and the README.
	z, err := zip.OpenReader(filepath.Join(out, winName+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var zipped []string
	for _, f := range z.File {
		zipped = append(zipped, f.Name)
	}
	if !slices.Contains(zipped, winName+"/planq.exe") || !slices.Contains(zipped, winName+"/planq-hook.exe") ||
		!slices.Contains(zipped, winName+"/planq-sandbox.exe") || !slices.Contains(zipped, winName+"/README.md") {
		t.Errorf("zip holds %v", zipped)
	}
}

// untar lists a tar.gz's entries and extracts the one named member to dst.
func untar(t *testing.T, archive, member, dst string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == member {
			data, _ := io.ReadAll(tr)
			if err := os.WriteFile(dst, data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
}
