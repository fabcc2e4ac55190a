package gate

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkAnalysisWorstInput judges each input past a bound
// (analysisBounds), the thousands-of-paths command and FuzzAnalyzeBash's
// labelled seeds, and reports the slowest input's median time and the most
// any one allocated. The goals are FuzzAnalyzeBash's bounds, 100 ms and
// 64 MB an input; the time is measured here, in make bench, and not
// asserted in go test, which may share a busy machine.
func BenchmarkAnalysisWorstInput(b *testing.B) {
	where := fixtureWhere(b)
	inputs := []string{manyOutsidePaths()}
	for _, c := range analysisBounds {
		inputs = append(inputs, c.cmd)
	}
	for _, c := range bashCases {
		inputs = append(inputs, c.cmd)
	}
	took := make([][]time.Duration, len(inputs))
	var maxAlloc uint64
	for b.Loop() {
		for i, cmd := range inputs {
			_, d, alloc := measure(cmd, where)
			took[i] = append(took[i], d)
			maxAlloc = max(maxAlloc, alloc)
		}
	}
	var worst time.Duration
	for _, ds := range took {
		slices.Sort(ds)
		worst = max(worst, ds[len(ds)/2])
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-p50-ms")
	b.ReportMetric(100, "goal-ms")
	b.ReportMetric(float64(maxAlloc)/(1<<20), "worst-MB")
	b.ReportMetric(64, "goal-MB")
}
