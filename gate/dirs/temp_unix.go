//go:build !windows

package dirs

// Temp are the system's shared temporary directories, which programs
// write scratch files to. The gate counts a write below them as outside
// the project (unless the project is there); the sandbox makes them
// writable when the project is not under them. /var/folders is macOS's
// per-user temporary directory, /private its real location.
var Temp = []string{"/tmp", "/var/tmp", "/dev/shm", "/var/folders", "/private/tmp", "/private/var/tmp", "/private/var/folders"}
