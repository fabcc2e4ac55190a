//go:build linux

package session

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxHostDepth bounds how many ancestors hostArgs looks at: the hook's
// parent is the host, or a shell or two the host runs hook commands with.
const maxHostDepth = 4

func hostArgs(p HostProcess) []string {
	pid := os.Getppid()
	for range maxHostDepth {
		if pid <= 1 {
			return nil
		}
		proc := "/proc/" + strconv.Itoa(pid)
		exe, err := os.Readlink(proc + "/exe")
		if err != nil {
			return nil
		}
		base := filepath.Base(exe)
		switch {
		case isShell(base):
			pid = parentOf(proc)
			continue
		case !slices.Contains(p.Exes, base):
			return nil
		}
		data, err := os.ReadFile(proc + "/cmdline")
		if err != nil {
			return nil
		}
		args := strings.Split(string(bytes.TrimRight(data, "\x00")), "\x00")
		for i := 0; i < len(args) && i < 2; i++ {
			if p.Program(args[i]) {
				return args[i+1:]
			}
		}
		return nil
	}
	return nil
}

// isShell reports whether an executable's base name is a POSIX shell a
// host may run hook commands with.
func isShell(base string) bool {
	switch base {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox":
		return true
	}
	return false
}

// parentOf reads a process's parent from its /proc/PID/stat.
func parentOf(proc string) int {
	data, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
