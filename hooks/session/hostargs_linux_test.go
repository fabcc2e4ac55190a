//go:build linux

package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const hostArgsChild = "PLANQ_TEST_HOSTARGS_CHILD"

// TestHostArgs runs this test binary again under a shell, as a host runs a
// hook command, and the child reads the arguments of its host (this
// process) through the shell; a host of another name is not found.
func TestHostArgs(t *testing.T) {
	if os.Getenv(hostArgsChild) != "" {
		self := filepath.Base(os.Args[0])
		host := HostProcess{Exes: []string{self}, Program: func(w string) bool { return filepath.Base(w) == self }}
		os.Stdout.WriteString(strings.Join(HostArgs(host), "\x00") + "\n")
		other := HostProcess{Exes: []string{"copilot"}, Program: func(string) bool { return true }}
		if HostArgs(other) != nil {
			os.Stdout.WriteString("a host of another name was found\n")
		}
		return
	}
	t.Parallel()
	c := exec.Command("/bin/sh", "-c", `"$0" -test.run='^TestHostArgs$'; :`, os.Args[0])
	c.Env = append(os.Environ(), hostArgsChild+"=1")
	out, err := c.Output()
	if err != nil {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	first, rest, _ := strings.Cut(string(out), "\n")
	if want := strings.Join(os.Args[1:], "\x00"); first != want {
		t.Errorf("HostArgs through a shell = %q, want this process's arguments %q", first, want)
	}
	if strings.Contains(rest, "another name") {
		t.Error(rest)
	}
}
