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

// toolCompanions are what a tool in needs runs by name in turn (from
// PATH); each is put beside it when this machine has it.
var toolCompanions = map[string][]string{
	"npm": {"node"}, "npx": {"node"}, "jest": {"node"}, "vitest": {"node"}, "tsc": {"node"},
	"cargo":  {"rustc", "rustfmt", "cargo-fmt", "cargo-clippy", "clippy-driver", "cc", "ld", "as"},
	"rustup": {"rustc", "cargo", "rustfmt"}, "rustc": {"cc", "ld", "as"},
	"gcc": {"as", "ld", "cc"},
}

// toolsDir is the sandbox's PATH directory, T/tools. It is not T/bin,
// which the command corpora keep empty as the PATH directory their
// commands try to plant programs in (corpus_harness_test.go).
const toolsDir = "tools"

// writeTools puts each named program, found by find ("" when this machine
// lacks it), into dir as a wrapper script that execs it; it returns the
// ones not found.
// Wrappers, not symbolic links: a command that writes to a program on its
// PATH (cp x "$dir/ls", > "$dir/git") must change the sandbox's file, never
// write through a link into /usr/bin.
func writeTools(dir string, find func(name string) string, names ...string) (missing []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, n := range names {
		p := find(n)
		if p == "" {
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
	if _, err := writeTools(filepath.Join(s.dir, toolsDir), lookPath, names...); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, n := range needs {
		if lookPath(n) == "" {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Skipf("judged only, not run: %v not installed here", missing)
	}
}

// lookPath finds a program on this process's PATH, or "".
func lookPath(name string) string {
	p, _ := exec.LookPath(name)
	return p
}

// notFound matches bash's and dash's report of a program not on PATH, and
// that of the programs that run another (env, xargs, nice, timeout …).
var notFound = regexp.MustCompile(`(?m)(?:([^\s:]+): (?:command )?not found$|^[a-z]+: '?([^\s':]+)'?: No such file or directory$)`)

// notFoundIn returns the programs out says were not found.
func notFoundIn(out string) []string {
	var names []string
	for _, m := range notFound.FindAllStringSubmatch(out, -1) {
		if n := m[1] + m[2]; !strings.Contains(n, "/") {
			names = append(names, n)
		}
	}
	return names
}

// checkRan fails or skips a case whose command could not find a program:
// one this machine lacks (a basic of sandboxTools, or one in needs) skips
// it with a note; one the case never named fails it, since the table would
// silently test nothing.
func checkRan(t *testing.T, needs []string, out string) {
	t.Helper()
	for _, name := range notFoundIn(out) {
		if slices.Contains(sandboxTools, name) || slices.Contains(needs, name) {
			t.Skipf("not run: %s is not installed here; output:\n%s", name, out)
		}
		t.Fatalf("the command runs %s, which is on the sandbox's PATH only when the case names it in needs; output:\n%s", name, out)
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
