package sandbox

import "fmt"

// The mechanisms an Enforcement names.
const (
	KindLandlock = "landlock" // Linux: Landlock, with seccomp for unix sockets
	KindSeatbelt = "seatbelt" // macOS: sandbox-exec with a generated profile
	KindNone     = "none"     // no OS sandbox: the gate is the parser alone
)

// MinLandlockABI is the oldest Landlock ABI planq uses: ABI 3 (Linux 6.2)
// is the first that restricts truncate(2), without which a command could
// empty any file of the project by its name.
const MinLandlockABI = 3

// Enforcement is the OS sandbox this machine offers locked shell commands.
type Enforcement struct {
	Kind string `json:"kind"`          // KindLandlock, KindSeatbelt or KindNone
	ABI  int    `json:"abi,omitempty"` // Landlock's ABI version
	// Reason says why there is no sandbox (KindNone), in a phrase.
	Reason string `json:"reason,omitempty"`
}

// Available reports whether locked shell commands can run in the sandbox.
func (e Enforcement) Available() bool { return e.Kind == KindLandlock || e.Kind == KindSeatbelt }

// String names the enforcement for people: "OS sandbox (Landlock ABI 7)",
// "OS sandbox (Seatbelt)", or "parser-only (…why…)".
func (e Enforcement) String() string {
	switch e.Kind {
	case KindLandlock:
		return fmt.Sprintf("OS sandbox (Landlock ABI %d)", e.ABI)
	case KindSeatbelt:
		return "OS sandbox (Seatbelt, sandbox-exec)"
	}
	return "parser-only (" + e.Reason + ")"
}

// Detect says which enforcement this machine offers. It is cheap (a system
// call or a stat, no process), so hooks, doctor and the session-start
// context can all ask.
func Detect() Enforcement { return detect() }
