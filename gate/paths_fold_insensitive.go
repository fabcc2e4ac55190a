//go:build darwin || windows

package gate

import "strings"

// foldPath maps a path to the form paths are compared in: the default file
// systems of macOS and Windows ignore case.
func foldPath(p string) string { return strings.ToLower(p) }
