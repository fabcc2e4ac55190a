//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func detect() Enforcement {
	if nativeArch == 0 {
		return Enforcement{Kind: KindNone, Reason: "planq has no seccomp filter for " + runtime.GOARCH}
	}
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return Enforcement{Kind: KindNone, Reason: "this Linux kernel has no Landlock (it needs Linux 6.2 or later)"}
	case errors.Is(err, syscall.EOPNOTSUPP):
		return Enforcement{Kind: KindNone, Reason: "Landlock is not enabled in this kernel (add landlock to the lsm= boot parameter)"}
	case errors.Is(err, syscall.EPERM):
		return Enforcement{Kind: KindNone, Reason: "a container or seccomp policy forbids Landlock here"}
	case err != nil:
		return Enforcement{Kind: KindNone, Reason: fmt.Sprintf("Landlock cannot be used here (%v)", err)}
	case abi < MinLandlockABI:
		return Enforcement{Kind: KindNone, ABI: abi, Reason: fmt.Sprintf("this kernel's Landlock ABI %d cannot hold truncate(2); planq needs ABI %d (Linux 6.2)", abi, MinLandlockABI)}
	}
	return Enforcement{Kind: KindLandlock, ABI: abi}
}
