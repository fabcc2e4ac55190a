package jj

import (
	"strconv"
	"strings"
)

// MinVersion is the oldest jj planq supports: planq doctor checks it, and
// every message that says to install jj names it. scripts/install-jj.sh
// and the README say the same; a test holds them to this constant.
const MinVersion = "0.30"

// Supported reports whether jj version v (as Client.Version returns it)
// is at least MinVersion.
func Supported(v string) bool { return VersionAtLeast(v, MinVersion) }

// VersionAtLeast reports whether a "major.minor[.patch…]" version (of jj or
// git) is at least min, a "major.minor" version. A version it cannot read
// is not.
func VersionAtLeast(v, min string) bool {
	ma, mi, ok := majorMinor(v)
	wantMa, wantMi, wantOK := majorMinor(min)
	if !ok || !wantOK {
		return false
	}
	return ma > wantMa || ma == wantMa && mi >= wantMi
}

// majorMinor reads the first two numbers of a dotted version.
func majorMinor(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || ma < 0 || mi < 0 {
		return 0, 0, false
	}
	return ma, mi, true
}
