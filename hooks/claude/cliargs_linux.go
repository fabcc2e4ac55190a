//go:build linux

package claude

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// claudeArgs are the arguments of the claude process this hook runs under:
// the nearest ancestor that is claude, through the shells Claude Code runs
// hooks with. Each ancestor's program is read from /proc/PID/exe (cheap);
// only claude's own command line is read. Nil when the chain leads
// elsewhere within a few generations.
func claudeArgs() []string {
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			return nil
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			return nil
		}
		switch filepath.Base(exe) {
		case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox":
			pid = parentOf(pid)
			continue
		case "claude", "claude.exe", "node", "bun":
		default:
			return nil
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return nil
		}
		args := strings.Split(string(bytes.TrimRight(data, "\x00")), "\x00")
		for i, a := range args {
			if i > 1 {
				break
			}
			if b := filepath.Base(a); b == "claude" || b == "claude.exe" || strings.HasSuffix(a, "/claude-code/cli.js") {
				return args[i+1:]
			}
		}
		return nil
	}
	return nil
}

// parentOf reads a process's parent from /proc/PID/stat.
func parentOf(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
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
