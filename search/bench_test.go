package search

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
)

// Run with: go test -run '^$' -bench . -benchtime 200x ./search/ ./changelog/

var benchQueries = []string{
	"retry timeout", "jwt token signature", "flaky test clock", "deadlock mutex goroutine",
	"migration schema", "cache memory leak", "deploy release version", "parser yaml format",
	"handoff next steps", "router middleware", "worktree checkpoint restore", "kubernetes pod network",
	"validation invalid form", "dependency upgrade", "session auth", "lumkapix", "promote learning",
	"decision because instead", "blocked review", "disk sync append",
}

var (
	benchMu    sync.Mutex
	benchCache = map[int][]Doc{}
	stateDirs  = map[int]string{}
)

// TestMain removes the generated bench states after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range stateDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func benchDocs(n int) []Doc {
	benchMu.Lock()
	defer benchMu.Unlock()
	if d, ok := benchCache[n]; ok {
		return d
	}
	d := Generate(n, 42)
	benchCache[n] = d
	return d
}

// benchState writes n generated entries as a state would hold them: ten
// agents, each with changelog.md, learnings.md and decisions.md, written
// with changelog.Append. The directory lives for the process.
func benchState(b *testing.B, n int) string {
	benchMu.Lock()
	defer benchMu.Unlock()
	if dir, ok := stateDirs[n]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "planq-bench-")
	if err != nil {
		b.Fatal(err)
	}
	files := map[string]*bytes.Buffer{}
	for _, e := range GenerateEntries(n, 42) {
		name := "changelog.md"
		switch e.Type {
		case changelog.TypeLearning:
			name = "learnings.md"
		case changelog.TypeDecision:
			name = "decisions.md"
		}
		p := filepath.Join(dir, e.Agent, name)
		if files[p] == nil {
			files[p] = &bytes.Buffer{}
		}
		if _, err := changelog.Append(files[p], e); err != nil {
			b.Fatal(err)
		}
	}
	for p, buf := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	stateDirs[n] = dir
	return dir
}

// loadState reads and parses every file of a bench state into documents,
// one goroutine per file as a cold `planq search` does.
func loadState(b *testing.B, dir string) []Doc {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.md"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no state files in %s: %v", dir, err)
	}
	parts := make([][]Doc, len(paths))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			data, err := os.ReadFile(p)
			if err != nil {
				b.Error(err)
				return
			}
			es, problems := changelog.ParseBytes(data)
			if len(problems) > 0 {
				b.Errorf("%s: %v", p, problems[0])
			}
			docs := make([]Doc, len(es))
			for j, e := range es {
				docs[j] = FromEntry(e, "agent")
			}
			parts[i] = docs
		}()
	}
	wg.Wait()
	return slices.Concat(parts...)
}

// reportCPU reports CPU time per op since start: unlike wall time it does not
// grow when other processes load the machine.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func reportP50(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	if len(d) > 0 {
		b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkSearchWarm: the MCP server's case, an index already built. One
// op runs every query of benchQueries once, so p50 is meaningful even with
// -benchtime 1x. Goal (issue 4): p50 ≤ 20 ms at 100,000 entries.
func BenchmarkSearchWarm(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			idx := NewIndex()
			if err := idx.Add(benchDocs(n)...); err != nil {
				b.Fatal(err)
			}
			d := make([]time.Duration, 0, b.N*len(benchQueries))
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				for _, q := range benchQueries {
					t := time.Now()
					if len(idx.Search(q, Options{Limit: 10})) == 0 && q != "lumkapix" {
						b.Fatalf("%q found nothing", q)
					}
					d = append(d, time.Since(t))
				}
			}
			b.StopTimer()
			reportCPU(b, cpu)
			reportP50(b, d)
		})
	}
}

// BenchmarkSearchCold: `planq search` from a fresh process — read and parse
// every state file, then rank (scan: Scan; index: build an Index, then
// Search). Goal (issue 4): ≤ 500 ms at 100,000 entries.
func BenchmarkSearchCold(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		dir := benchState(b, n)
		for _, mode := range []string{"scan", "index"} {
			b.Run(fmt.Sprintf("%dk/%s", n/1000, mode), func(b *testing.B) {
				d := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				cpu := cpuTime()
				for i := range b.N {
					t := time.Now()
					docs := loadState(b, dir)
					q := benchQueries[i%len(benchQueries)]
					var hits []Hit
					if mode == "scan" {
						hits = Scan(docs, q, Options{})
					} else {
						idx := NewIndex()
						if err := idx.Add(docs...); err != nil {
							b.Fatal(err)
						}
						hits = idx.Search(q, Options{})
					}
					d = append(d, time.Since(t))
					if len(docs) != n {
						b.Fatalf("loaded %d docs, want %d", len(docs), n)
					}
					_ = hits
				}
				b.StopTimer()
				reportCPU(b, cpu)
				reportP50(b, d)
			})
		}
	}
}

// BenchmarkIndexAdd measures building a warm index from parsed documents.
func BenchmarkIndexAdd(b *testing.B) {
	docs := benchDocs(100_000)
	b.ResetTimer()
	cpu := cpuTime()
	defer reportCPU(b, cpu)
	for range b.N {
		idx := NewIndex()
		if err := idx.Add(docs...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse measures changelog.ParseBytes over a 100,000-entry state,
// one file after another on one core.
func BenchmarkParse(b *testing.B) {
	dir := benchState(b, 100_000)
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.md"))
	var data [][]byte
	size := 0
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
		size += len(d)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	defer reportCPU(b, cpu)
	for range b.N {
		n := 0
		for _, d := range data {
			es, _ := changelog.ParseBytes(d)
			n += len(es)
		}
		if n != 100_000 {
			b.Fatalf("parsed %d entries", n)
		}
	}
}
