//go:build windows

package dirs

// Temp are the system's shared temporary directories; Windows has one
// per user, named by TEMP and TMP.
var Temp []string
