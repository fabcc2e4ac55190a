//go:build darwin

package sandbox

import "os"

// sandboxExec is macOS's Seatbelt front end.
const sandboxExec = "/usr/bin/sandbox-exec"

func detect() Enforcement {
	if _, err := os.Stat(sandboxExec); err != nil {
		return Enforcement{Kind: KindNone, Reason: sandboxExec + " is missing"}
	}
	return Enforcement{Kind: KindSeatbelt}
}
