//go:build !linux && !darwin

package sandbox

import "runtime"

func detect() Enforcement {
	if runtime.GOOS == "windows" {
		return Enforcement{Kind: KindNone, Reason: "Windows has no OS sandbox planq can use"}
	}
	return Enforcement{Kind: KindNone, Reason: "planq has no OS sandbox for " + runtime.GOOS}
}
