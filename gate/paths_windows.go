//go:build windows

package gate

import (
	"os"
	"path/filepath"
	"strings"
)

// isSystemPath reports whether p (resolved) is in a system directory:
// Windows itself, program installations, and program data.
func isSystemPath(p string) bool {
	vol := filepath.VolumeName(p)
	for _, env := range []string{"SystemRoot", "ProgramFiles", "ProgramFiles(x86)", "ProgramData"} {
		if d := os.Getenv(env); d != "" && within(d, p) {
			return true
		}
	}
	for _, d := range []string{`\Windows`, `\Program Files`, `\Program Files (x86)`, `\ProgramData`} {
		if within(vol+d, p) {
			return true
		}
	}
	return strings.EqualFold(filepath.Dir(p), vol+`\`)
}

// hardLinked reports whether p is a file with more than one name; Windows
// does not say without opening it, so the gate does not credit writes
// to existing files there.
func hardLinked(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
