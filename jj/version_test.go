package jj_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/planq-dev/planq/jj"
)

func TestVersionAtLeast(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v, min string
		want   bool
	}{
		{"2.42.0", "2.42", true}, {"2.41.9", "2.42", false}, {"2.100.1", "2.42", true}, {"3.0", "2.42", true},
		{"1.99", "2.42", false}, {"", "2.42", false}, {"x.y", "2.42", false}, {"2", "2.42", false},
		{"0.46.0", jj.MinVersion, true}, {"0.29.0", jj.MinVersion, false}, {"1.0.0", jj.MinVersion, true},
		{"2.42", "", false}, {"-1.50", "0.30", false},
	} {
		if got := jj.VersionAtLeast(tt.v, tt.min); got != tt.want {
			t.Errorf("VersionAtLeast(%q, %q) = %v, want %v", tt.v, tt.min, got, tt.want)
		}
	}
	if !jj.Supported("0.30.0") || jj.Supported("0.29.1") {
		t.Errorf("Supported does not draw the line at %s", jj.MinVersion)
	}
}

// TestMinimumVersionsAreSaidOnce: the install scripts and the README name
// the same oldest jj and git as MinVersion and MinGitVersion, the ones
// planq doctor checks.
func TestMinimumVersionsAreSaidOnce(t *testing.T) {
	t.Parallel()
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	scriptMin := regexp.MustCompile(`(?m)^readonly MIN_MAJOR=(\d+) MIN_MINOR=(\d+)$`)
	for script, want := range map[string]string{"scripts/install-jj.sh": jj.MinVersion, "scripts/install-git.sh": jj.MinGitVersion} {
		text := read(script)
		m := scriptMin.FindStringSubmatch(text)
		if m == nil || m[1]+"."+m[2] != want {
			t.Errorf("%s: its MIN_MAJOR/MIN_MINOR line is %q, want the version %s", script, m, want)
		}
		// Every other mention of a minimum goes through those variables.
		for _, lit := range regexp.MustCompile(`>= ?\d+\.\d+`).FindAllString(text, -1) {
			t.Errorf("%s says %q literally; use ${MIN_MAJOR}.${MIN_MINOR}", script, lit)
		}
	}
	readme := read("README.md")
	for _, tt := range []struct {
		re   string
		want string
	}{{`jj ≥ (\d+\.\d+)`, jj.MinVersion}, {`\*\*git ≥ (\d+\.\d+)\*\*`, jj.MinGitVersion}} {
		ms := regexp.MustCompile(tt.re).FindAllStringSubmatch(readme, -1)
		if len(ms) == 0 {
			t.Errorf("README.md does not say %s", tt.re)
		}
		for _, m := range ms {
			if m[1] != tt.want {
				t.Errorf("README.md says %q; the constant is %s", m[0], tt.want)
			}
		}
	}
}
