//go:build !linux

package claude

// claudeArgs is unknown outside Linux: rules given on claude's command
// line are not seen there (README: The gate).
func claudeArgs() []string { return nil }
