//go:build linux && !amd64 && !arm64

package sandbox

// nativeArch is unknown here: planq has no socket filter for this
// architecture, and a sandbox cannot be made (restrictSockets fails).
const nativeArch = 0
