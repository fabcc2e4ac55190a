package jj

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// MinGitVersion is the oldest git jj fetches with: jj 0.46 runs `git fetch
// --porcelain`, which git has since 2.42. scripts/install-git.sh and the
// README say the same; a test holds them to this constant.
const MinGitVersion = "2.42"

// GitInfo is the git executable jj runs to fetch and push.
type GitInfo struct {
	// Setting is jj's git.executable-path ("git" when it is not set).
	Setting string `json:"setting"`
	// Path is the executable Setting resolves to; "" when it is not found.
	Path string `json:"path,omitempty"`
	// Version is what `git --version` reports, such as "2.39.5"; "" when it
	// did not run.
	Version string `json:"version,omitempty"`
}

// Suitable reports whether jj can fetch with this git.
func (g GitInfo) Suitable() bool { return VersionAtLeast(g.Version, MinGitVersion) }

// String describes the git in a few words, for messages.
func (g GitInfo) String() string {
	switch {
	case g.Path == "":
		return fmt.Sprintf("git (%q) is not installed", g.Setting)
	case g.Version == "":
		return g.Path + " does not run"
	default:
		return "git " + g.Version + " at " + g.Path
	}
}

// Git returns the git jj runs: its effective git.executable-path, looked up
// on PATH when it is a bare name, and that git's version.
func (c *Client) Git(ctx context.Context) (GitInfo, error) {
	setting, ok, err := c.ConfigGet(ctx, "git.executable-path")
	if err != nil {
		return GitInfo{}, err
	}
	if !ok || strings.TrimSpace(setting) == "" {
		setting = "git"
	}
	g := GitInfo{Setting: setting}
	if g.Path, err = exec.LookPath(setting); err != nil {
		g.Path = ""
		return g, nil
	}
	g.Version, _ = GitVersion(ctx, g.Path)
	return g, nil
}

// GitVersion runs the git at path (`git --version`, within 30 seconds)
// and returns its version, such as "2.39.5". It is an error when that git
// does not run or says no version.
func GitVersion(ctx context.Context, git string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, git, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("run %s --version: %w", git, err)
	}
	v := ParseGitVersion(string(out))
	if v == "" {
		return "", fmt.Errorf("cannot read the version of %s (it printed %q)", git, strings.TrimSpace(string(out)))
	}
	return v, nil
}

// gitVersionRe is compiled on first use: hook processes never need it.
var gitVersionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`git version (\d+\.\d+(?:\.\d+)?)`) })

// ParseGitVersion returns the version in `git --version` output ("git
// version 2.39.5 (Apple Git-154)", "git version 2.45.1.windows.1"), or "".
func ParseGitVersion(out string) string {
	m := gitVersionRe().FindStringSubmatch(out)
	if m == nil {
		return ""
	}
	return m[1]
}
