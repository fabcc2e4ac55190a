package session

// HostProcess says how to know an agent host's CLI among a hook's
// ancestors, to read the arguments it was started with: the permission
// rules a user gives on its command line (Claude Code's --disallowedTools,
// Copilot CLI's --deny-tool), which no settings file shows, and which the
// host judges on the command a hook rewrites.
type HostProcess struct {
	// Exes are the base names of the executables (/proc/PID/exe) the host
	// may run as: its own binary, or the runtime its script runs on.
	Exes []string
	// Program reports whether a word of the command line (argv[0] or
	// argv[1], for a script run by its runtime) is the host's program; its
	// arguments are the words after it.
	Program func(word string) bool
}

// HostArgs returns the arguments of the nearest ancestor of this process
// that is the host p names, reached through the shells hosts run hook
// commands with (sh, bash, dash, zsh…), at most a few generations up. Each
// ancestor's program is read from /proc/PID/exe, and only the host's own
// command line is read. Nil when the chain leads elsewhere, and outside
// Linux, where no process's arguments are this cheap to read: rules given
// there on the host's command line are not seen.
func HostArgs(p HostProcess) []string { return hostArgs(p) }
