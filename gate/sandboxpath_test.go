package gate

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sandboxTools are the programs on a sandbox's PATH (T/tools, see
// writeTools), so that what a table's command runs is the fixture's own
// tools and a short list of basics, never whatever else is installed here:
// a pytest or cargo on the machine's PATH must not change what a case does.
// A case that runs anything else names it in needs.
var sandboxTools = []string{
	// shells and the basic utilities the commands use
	"bash", "sh", "dash", "env", "cat", "ls", "rm", "touch", "mkdir", "ln", "mktemp", "chmod", "cp", "mv",
	"echo", "printf", "true", "false", "test", "sort", "wc", "head", "tail", "tee", "date", "dirname",
	"basename", "readlink", "pwd", "cut", "tr", "xargs", "find", "grep", "sed", "awk", "diff",
	// archives
	"tar", "gzip", "unzip",
	// the toolchains the fixture is a project of
	"make", "git", "jj", "go",
}

// toolCompanions are what a tool in needs runs by name in turn.
var toolCompanions = map[string][]string{
	"npm": {"node"}, "npx": {"node"}, "jest": {"node"}, "vitest": {"node"},
}

// toolsDir is the sandbox's PATH directory, T/tools. It is not T/bin,
// which the command corpora keep empty as the PATH directory their
// commands try to plant programs in (corpus_harness_test.go).
const toolsDir = "tools"

// writeTools puts each named program, found on this process's PATH, into
// dir as a wrapper script that execs it; it returns the ones not found.
// Wrappers, not symbolic links: a command that writes to a program on its
// PATH (cp x "$dir/ls", > "$dir/git") must change the sandbox's file, never
// write through a link into /usr/bin.
func writeTools(dir string, names ...string) (missing []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			missing = append(missing, n)
			continue
		}
		if p, err = filepath.Abs(p); err != nil {
			return nil, err
		}
		script := "#!/bin/sh\nexec '" + strings.ReplaceAll(p, "'", `'\''`) + "' \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(script), 0o755); err != nil {
			return nil, err
		}
	}
	return missing, nil
}

// needTools puts a case's needs (and what they run) on the sandbox's PATH,
// and skips the case, saying so, when this machine lacks one: a case that
// cannot run its program is not run, rather than passing for doing nothing.
func (s *sandbox) needTools(t *testing.T, needs []string) {
	t.Helper()
	var names []string
	for _, n := range needs {
		names = append(names, n)
		names = append(names, toolCompanions[n]...)
	}
	missing, err := writeTools(filepath.Join(s.dir, toolsDir), names...)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Skipf("judged only, not run: %v not installed here", missing)
	}
}

// notFound matches bash's and dash's report of a program not on PATH.
var notFound = regexp.MustCompile(`(?m)([^\s:]+): (?:command )?not found$`)

// checkRan fails or skips a case whose command could not find a program:
// one this machine lacks (a basic of sandboxTools, or one in needs) skips
// it with a note; one the case never named fails it, since the table would
// silently test nothing.
func checkRan(t *testing.T, needs []string, out string) {
	t.Helper()
	for _, m := range notFound.FindAllStringSubmatch(out, -1) {
		if slices.Contains(sandboxTools, m[1]) || slices.Contains(needs, m[1]) {
			t.Skipf("not run: %s is not installed here; output:\n%s", m[1], out)
		}
		t.Fatalf("the command runs %s, which is on the sandbox's PATH only when the case names it in needs; output:\n%s", m[1], out)
	}
}

// writeZip writes an archive holding one file, as zip would.
func writeZip(path, name, content string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	z := zip.NewWriter(f)
	w, err := z.Create(name)
	if err == nil {
		_, err = w.Write([]byte(content))
	}
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
