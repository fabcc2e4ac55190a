package staterepo

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/flock"
	"github.com/planq-dev/planq/internal/testenv"
)

// BenchmarkGrowth writes PLANQ_BENCH_ENTRIES entries (default 100,000) one
// write at a time, as months of agent sessions would — 80% log entries, 10%
// learnings, 10% decisions — with automatic maintenance on, and reports:
//
//   - MB-on-disk: the bare repo's disk usage once background maintenance
//     has finished (goal ≤ 200 MB at 100,000 entries);
//   - ms/write, p99-ms/write, max-ms/write: what each write took, mean and
//     worst — automatic maintenance runs beside writers, never in their way
//     (goal: no write held up by maintenance for more than a second);
//   - last1k-ms/write: the mean of the last 1,000 writes (goal ≤ 12 ms);
//   - gc-s and gc-MB-RSS: `planq state gc` on the result, run as a child
//     process, its wall time and peak resident memory, git's included
//     (goals ≤ 60 s and ≤ 500 MB);
//   - first-search-ms and context-p50-ms, before and after that gc: a
//     fresh `planq mcp serve`'s first planq_search (goal ≤ 300 ms), then
//     planq_context's p50 (goal ≤ 10 ms), over the MCP protocol.
//
// make bench runs it once (-benchtime 1x); it takes several minutes.
// PLANQ_BENCH_DIR puts the repos elsewhere than the temp dir (a tmpfs, on
// a machine whose disk makes every file creation cost a millisecond).
// PLANQ_BENCH_GROWN names a directory to keep the grown state in: a later
// run finds it there and measures it again without growing it (the write
// metrics are then left out).
func BenchmarkGrowth(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("PLANQ_BENCH_ENTRIES")); err == nil && v > 0 {
		n = v
	}
	for b.Loop() {
		dir := testenv.BenchDir(b, "planq-growth-")
		grown := false
		if keep := os.Getenv("PLANQ_BENCH_GROWN"); keep != "" {
			dir = keep
			_, err := os.Stat(filepath.Join(keep, "code"))
			grown = err == nil
		}
		bin := testenv.BuildPlanq(b, "..")
		s := benchStoreIn(b, dir)
		s.maintainer = bin // maintenance in the background, as the CLI and the MCP server run it
		if grown {
			serverTimes(b, bin, s, "")
			gcTimes(b, bin, s, n)
			serverTimes(b, bin, s, "after-gc-")
			continue
		}
		r := rand.New(rand.NewPCG(7, uint64(n)))
		c := context.Background()
		times := make([]time.Duration, 0, n)
		for i := range n {
			words := make([]string, 12+r.IntN(30))
			for j := range words {
				words[j] = benchWords[r.IntN(len(benchWords))]
			}
			text := fmt.Sprintf("%d %s\n\n%s", i, strings.Join(words[:5], " "), strings.Join(words[5:], " "))
			start := time.Now()
			var err error
			switch k := r.IntN(10); {
			case k == 0:
				_, err = s.Learn(c, text, "")
			case k == 1:
				_, err = s.Decide(c, text, []string{words[0], words[1]}, words[2])
			default:
				_, err = s.Log(c, text, changelog.TypeImplement, "")
			}
			if err != nil {
				b.Fatalf("write %d: %v", i, err)
			}
			times = append(times, time.Since(start))
		}
		waitMaintenance(b, s)
		b.ReportMetric(float64(diskUsage(s.Bare))/1e6, "MB-on-disk")
		var sum time.Duration
		for _, d := range times {
			sum += d
		}
		last := times[max(0, len(times)-1000):]
		var lastSum time.Duration
		for _, d := range last {
			lastSum += d
		}
		b.ReportMetric(ms(sum)/float64(len(times)), "ms/write")
		b.ReportMetric(ms(lastSum)/float64(len(last)), "last1k-ms/write")
		slices.Sort(times)
		b.ReportMetric(ms(times[len(times)*99/100]), "p99-ms/write")
		b.ReportMetric(ms(times[len(times)-1]), "max-ms/write")

		serverTimes(b, bin, s, "")
		gcTimes(b, bin, s, n)
		serverTimes(b, bin, s, "after-gc-")
	}
}

// gcTimes runs `planq state gc` on s as a child process and reports its
// wall time, its peak memory (git's included) and the repo's size after.
func gcTimes(b *testing.B, bin string, s *Store, n int) {
	cmd := exec.Command(bin, "state", "gc", "--repo", s.Root)
	cmd.Env = append(os.Environ(), "HOME="+s.getenv("HOME"), "PLANQ_HOME="+s.Home, "PLANQ_AGENT=")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("planq state gc: %v\n%s", err, out)
	}
	b.ReportMetric(time.Since(start).Seconds(), "gc-s")
	b.ReportMetric(float64(peakRSS(cmd.ProcessState))/1e6, "gc-MB-RSS")
	b.ReportMetric(float64(diskUsage(s.Bare))/1e6, "MB-after-gc")
	b.Logf("%d entries: %s", n, strings.TrimSpace(string(out)))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// waitMaintenance waits until no background maintenance holds its lock.
func waitMaintenance(tb testing.TB, s *Store) {
	tb.Helper()
	l, err := flock.Acquire(context.Background(), filepath.Join(s.Bare, maintenanceLock), 10*time.Minute)
	if err != nil {
		tb.Fatal(err)
	}
	l.Release()
}

// diskUsage is what du reports for dir: allocated blocks where the platform
// says, else file sizes.
func diskUsage(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if st, err := d.Info(); err == nil {
			total += allocated(st)
		}
		return nil
	})
	return total
}
