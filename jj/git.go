package jj

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The oldest git jj fetches with: jj 0.46 runs `git fetch --porcelain`,
// which git has since 2.42.
const MinGitMajor, MinGitMinor = 2, 42

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
func (g GitInfo) Suitable() bool { return VersionAtLeast(g.Version, MinGitMajor, MinGitMinor) }

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
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, g.Path, "--version").Output()
	if err == nil {
		g.Version = ParseGitVersion(string(out))
	}
	return g, nil
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

// VersionAtLeast reports whether a "major.minor[.patch]" version (of jj or git) is at
// least major.minor.
func VersionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
