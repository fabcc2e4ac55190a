//go:build !unix

package search

import "time"

// cpuTime is not measured on this platform; CPU metrics read zero.
func cpuTime() time.Duration { return 0 }
