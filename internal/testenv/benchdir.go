package testenv

import (
	"os"
	"testing"
)

// BenchDir returns a fresh directory for a benchmark's generated repos,
// removed when it ends: under $PLANQ_BENCH_DIR when set (a tmpfs, on a
// machine whose disk makes every file creation cost a millisecond, or a
// disk with room for gigabytes), else the test's temp dir.
func BenchDir(b *testing.B, prefix string) string {
	b.Helper()
	base := os.Getenv("PLANQ_BENCH_DIR")
	if base == "" {
		return b.TempDir()
	}
	d, err := os.MkdirTemp(base, prefix)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(d) })
	return d
}
