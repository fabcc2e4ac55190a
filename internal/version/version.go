// Package version holds the one rule by which planq, planq-hook and
// planq-sandbox name the build they are, so that the binaries of one build
// always agree (planq doctor compares them).
//
// The version is, in order:
//   - what the build stamped with
//     -ldflags "-X github.com/planq-dev/planq/internal/version.stamp=VERSION"
//     (make build, make install and the release archives do);
//   - else the main module's version recorded by the Go toolchain: the tag for
//     `go install github.com/planq-dev/planq/cmd/planq@v1.2.3`, a
//     pseudo-version from the VCS for a `go build` in a git checkout;
//   - else "dev" (a build with -buildvcs=false, or outside any VCS).
package version

import "runtime/debug"

// stamp is set at link time (see the package doc); empty otherwise.
var stamp = ""

// Dev is the version of a build that carries none.
const Dev = "dev"

// String returns this binary's version by the package's rule.
func String() string {
	if stamp != "" {
		return stamp
	}
	bi, ok := debug.ReadBuildInfo()
	return fromBuildInfo(bi, ok)
}

// fromBuildInfo applies the rule's fallbacks to what the toolchain recorded.
func fromBuildInfo(bi *debug.BuildInfo, ok bool) string {
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Dev
}
