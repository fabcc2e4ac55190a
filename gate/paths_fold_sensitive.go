//go:build !darwin && !windows

package gate

// foldPath maps a path to the form paths are compared in: file names are
// case-sensitive here.
func foldPath(p string) string { return p }
