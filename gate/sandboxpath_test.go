package gate

import (
	"archive/zip"
	"errors"
	"fmt"
	"io/fs"
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
// lacks it), into dir, and returns the ones not found. Each is a symbolic
// link to dir's dispatcher script (toolDispatcher), which execs the
// program its name is a link for: a command that writes to a program on
// its PATH (cp x "$dir/ls", > "$dir/git") changes the sandbox's own file,
// never /usr/bin's, as a wrapper script per program would, and a copy of
// the sandbox makes a link per program rather than a file (most of what a
// copy cost). dir must be absolute: a relative one would put the
// dispatcher and its links in the package's directory, the checkout (an
// earlier draft left a stray dispatcher, .wrap, in a module root so).
func writeTools(dir string, find func(name string) string, names ...string) (missing []string, err error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("writeTools: %q is not an absolute path (a sandbox's T/tools under t.TempDir)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	disp := filepath.Join(dir, toolDispatcher)
	var lines strings.Builder
	if _, err := os.Lstat(disp); errors.Is(err, fs.ErrNotExist) {
		lines.WriteString("#!/bin/sh\n# Runs the program this script's link is named for.\nn=${0##*/}\n")
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
		link := filepath.Join(dir, n)
		if _, err := os.Lstat(link); err == nil {
			continue // already there
		}
		if err := os.Symlink(toolDispatcher, link); err != nil {
			return nil, err
		}
		fmt.Fprintf(&lines, "[ \"$n\" = %s ] && exec %s \"$@\"\n", shQuote(n), shQuote(p))
	}
	f, err := os.OpenFile(disp, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o755)
	if err != nil {
		return nil, err
	}
	_, werr := f.WriteString(lines.String())
	if err := f.Close(); werr != nil || err != nil {
		return nil, errors.Join(werr, err)
	}
	return missing, nil
}

// toolDispatcher is the script in a sandbox's tools directory that every
// program's link there points to (writeTools).
const toolDispatcher = ".tool"

// shQuote quotes s for sh, in single quotes.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

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
