//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// nativeArch is the AUDIT_ARCH of this build's system call entry point.
const nativeArch = unix.AUDIT_ARCH_AARCH64
