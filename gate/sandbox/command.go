package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Invocation is one run of the sandbox entry point:
//
//	planq-hook sandbox --root DIR [--tool NAME]... [--shell SHELL] -- COMMAND
//
// (also planq hook sandbox …): run COMMAND with the shell that started the
// entry point, with DIR read-only. The tools are the planq MCP tools that
// declare the change, in the order to call them, as the host spells them
// ("mcp__planq__jj_init"); the line a refused write adds names them. Shell,
// when set, is the shell the host runs commands with, as the host names it
// (its $0: "/bin/bash", "bash"), for a host whose shell execs the entry
// point, which then cannot tell which shell ran it.
type Invocation struct {
	Root    string
	Tools   []string
	Shell   string
	Command string
}

// Args are the entry point's arguments after "sandbox".
func (inv Invocation) Args() []string {
	args := []string{"--root", inv.Root}
	for _, t := range inv.Tools {
		args = append(args, "--tool", t)
	}
	if inv.Shell != "" {
		// One word: Copilot CLI asks before running a command with a word
		// that is a path outside the project ("/bin/bash"), and refuses
		// in -p; it does not take "--shell=/bin/bash" for a path (1.0.102,
		// TestSandboxKeepsWhoApprovesInCopilot).
		args = append(args, "--shell="+inv.Shell)
	}
	return append(args, "--", inv.Command)
}

// ParseArgs reads the entry point's arguments after "sandbox".
func ParseArgs(args []string) (Invocation, error) {
	var inv Invocation
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--":
			if len(args) != i+2 {
				return Invocation{}, errors.New("want exactly one command after --, quoted as one argument")
			}
			inv.Command = args[i+1]
			if inv.Root == "" {
				return Invocation{}, errors.New("--root DIR is required: the project to keep read-only")
			}
			if !filepath.IsAbs(inv.Root) {
				return Invocation{}, fmt.Errorf("--root %s is not an absolute path", inv.Root)
			}
			return inv, nil
		case name == "--root" || name == "--tool" || name == "--shell":
			if !hasVal {
				if i+1 >= len(args) {
					return Invocation{}, fmt.Errorf("%s needs a value", a)
				}
				i++
				val = args[i]
			}
			switch name {
			case "--root":
				inv.Root = val
			case "--shell":
				inv.Shell = val
			default:
				inv.Tools = append(inv.Tools, val)
			}
		default:
			return Invocation{}, fmt.Errorf("unknown argument %q (want --root DIR [--tool NAME]... [--shell SHELL] -- COMMAND)", a)
		}
	}
	return Invocation{}, errors.New("no command: want --root DIR [--tool NAME]... -- COMMAND")
}

// Command is the shell command a host runs instead of inv.Command: entry
// (the words that start the entry point: planq-hook's path and "sandbox")
// followed by inv's arguments, each word single-quoted, which every POSIX
// shell (bash, zsh, dash, sh) and fish read back as the same word. A
// command holding a NUL byte cannot be passed as an argument; it is an
// error.
func Command(entry []string, inv Invocation) (string, error) {
	words := append(append([]string{}, entry...), inv.Args()...)
	var b strings.Builder
	for i, w := range words {
		if strings.IndexByte(w, 0) >= 0 {
			return "", errors.New("the command holds a NUL byte, which no shell can pass to a program")
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(w))
	}
	if b.Len() > MaxCommand {
		return "", fmt.Errorf("the command is %d bytes, and rewritten to run in it %d, more than the %d bytes a program may be given as one argument "+
			"(the host's shell could not start it); run it in smaller parts, or put it in a script in $TMPDIR and run that", len(inv.Command), b.Len(), MaxCommand)
	}
	return b.String(), nil
}

// MaxCommand is the longest rewritten command a host's shell can be
// started with: Linux takes at most 128 KiB, its final NUL included, as one
// argument of a program (MAX_ARG_STRLEN), and the host runs `bash -c
// COMMAND`.
const MaxCommand = 128<<10 - 1

func quote(w string) string { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'" }

// Unwrap returns the entry words and the invocation of a command made by
// Command, and false for any other command.
func Unwrap(command string) (entry []string, inv Invocation, ok bool) {
	var words []string
	for s := command; s != ""; {
		w, rest, ok := unquoteWord(s)
		if !ok {
			return nil, Invocation{}, false
		}
		words = append(words, w)
		if rest != "" {
			if rest[0] != ' ' {
				return nil, Invocation{}, false
			}
			rest = rest[1:]
		}
		s = rest
	}
	// The entry's words end where the arguments begin, at --root.
	for i, w := range words {
		if w == "--root" && i > 0 {
			inv, err := ParseArgs(words[i:])
			if err != nil {
				return nil, Invocation{}, false
			}
			return words[:i], inv, true
		}
	}
	return nil, Invocation{}, false
}

// unquoteWord reads one word written by quote from the start of s.
func unquoteWord(s string) (word, rest string, ok bool) {
	var b strings.Builder
	for {
		switch {
		case strings.HasPrefix(s, "'"):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return "", "", false
			}
			b.WriteString(s[1 : 1+end])
			s = s[2+end:]
		case strings.HasPrefix(s, `\'`):
			b.WriteByte('\'')
			s = s[2:]
		default:
			return "", "", false
		}
		if s == "" || s[0] == ' ' {
			return b.String(), s, true
		}
	}
}

// RunsJJ reports whether a shell command mentions jj as a word (a command
// name, or one in quoted code): then the entry point snapshots the working
// copy before the sandboxed run, which jj inside cannot.
func RunsJJ(command string) bool {
	for _, f := range strings.FieldsFunc(command, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '/')
	}) {
		if f == "jj" || strings.HasSuffix(f, "/jj") {
			return true
		}
	}
	return false
}

// Entry returns the words that start the entry point, from the running
// planq binary: planq-sandbox (the lean binary made for it) when it is the
// running one or installed beside it, else planq-hook with "sandbox" (the
// running one or the one beside it), else the running planq with "hook
// sandbox".
func Entry() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the planq binary: %w", err)
	}
	base := strings.TrimSuffix(filepath.Base(exe), ".exe")
	if base == LeanBinary {
		return []string{exe}, nil
	}
	if lean := beside(exe, LeanBinary); lean != "" {
		return []string{lean}, nil
	}
	if base == "planq-hook" {
		return []string{exe, "sandbox"}, nil
	}
	if hook := beside(exe, "planq-hook"); hook != "" {
		return []string{hook, "sandbox"}, nil
	}
	return []string{exe, "hook", "sandbox"}, nil
}

// ByName returns entry with its program named by its bare name, as a
// shell finds it on PATH (pathList, the shell's $PATH), when the first
// program of that name on it is the very same file; else entry unchanged.
// A host that asks before running a command holding a path outside the
// project (Copilot CLI) then runs the rewrite unasked, and a program of the
// same name earlier on PATH (a file an agent put there) is never named.
// A PATH entry that is not absolute (the shell's working directory) stops
// the search: what it finds depends on where the command runs.
func ByName(entry []string, pathList string) []string {
	if len(entry) == 0 || !filepath.IsAbs(entry[0]) {
		return entry
	}
	self, err := os.Stat(entry[0])
	if err != nil {
		return entry
	}
	name := filepath.Base(entry[0])
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			return entry
		}
		st, ok := executable(filepath.Join(dir, name))
		if !ok {
			continue
		}
		if !os.SameFile(st, self) {
			return entry
		}
		return append([]string{name}, entry[1:]...)
	}
	return entry
}

// LeanBinary is the name of the binary that is only the entry point
// (cmd/planq-sandbox), installed beside planq and planq-hook.
const LeanBinary = "planq-sandbox"

// beside returns the executable named name in exe's directory, or "".
func beside(exe, name string) string {
	p := filepath.Join(filepath.Dir(exe), name)
	if runtime.GOOS == "windows" {
		p += ".exe"
	}
	if _, ok := executable(p); ok {
		return p
	}
	return ""
}

// executable stats p and reports whether it is a regular file someone may
// execute, as a shell's PATH search and Entry's look beside planq want.
func executable(p string) (os.FileInfo, bool) {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return nil, false
	}
	return st, true
}
