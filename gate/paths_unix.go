//go:build !windows

package gate

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/planq-dev/planq/gate/dirs"
)

// systemDirsToProtect are directories whose contents programs run or load:
// writing anywhere below them counts as sensitive. The temporary
// directories are carved out of /var and /private.
var systemDirsToProtect = []string{
	"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/boot", "/sys", "/proc",
	"/dev", "/var", "/snap", "/nix", "/run", "/srv", "/Library", "/System", "/Applications", "/private",
}

var tempCarveOuts = dirs.Temp

// isSystemPath reports whether p (resolved) is in a system directory.
func isSystemPath(p string) bool {
	for _, t := range tempCarveOuts {
		if within(t, p) && p != t {
			return false
		}
	}
	for _, d := range systemDirsToProtect {
		if within(d, p) {
			return true
		}
	}
	return filepath.Dir(p) == "/" // a new top-level directory or file
}

// hardLinked reports whether p is an existing regular file with more than
// one name: writing it may write a file inside the project.
func hardLinked(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
