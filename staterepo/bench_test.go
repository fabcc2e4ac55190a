package staterepo

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
)

var benchWords = strings.Fields(`fix add remove update implement refactor test build error bug config file
server client request handler middleware token jwt auth session user database query cache lock
timeout retry deploy release branch merge commit push pull review decision plan handoff agent`)

// genEntries serialises n entries of type typ by agent, oldest first.
func genEntries(r *rand.Rand, n int, agent string, typ changelog.Type, start time.Time) []byte {
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		words := make([]string, 12+r.IntN(30))
		for j := range words {
			words[j] = benchWords[r.IntN(len(benchWords))]
		}
		e := changelog.Entry{Agent: agent, Type: typ, Timestamp: start.Add(time.Duration(i) * time.Second),
			Body: strings.Join(words[:5], " ") + "\n\n" + strings.Join(words[5:], " ")}
		if typ == changelog.TypeDecision {
			e.Decision, e.Alternatives, e.Rationale = strings.Join(words[:4], " "), []string{words[5], words[6]}, strings.Join(words[7:], " ")
			e.Body = ""
		}
		if _, err := changelog.Append(&buf, e); err != nil {
			panic(err)
		}
	}
	return buf.Bytes()
}

// seedState writes a generated state of total entries: 60% in the agent's
// changelog, 10% each in its learnings and decisions, and 20% in global.
func seedState(tb testing.TB, s *Store, total int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, uint64(total)))
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := context.Background()
	_, err := s.Update(c, "bench: seed agent", func(tx *Tx) error {
		writeSegments(tx, ChangelogFile, genEntries(r, total*6/10, s.Agent, changelog.TypeImplement, start))
		writeSegments(tx, LearningsFile, genEntries(r, total/10, s.Agent, changelog.TypeLearning, start))
		writeSegments(tx, DecisionsFile, genEntries(r, total/10, s.Agent, changelog.TypeDecision, start))
		return tx.Write(ScratchFile, []byte("Investigating the flaky session test.\n"))
	})
	if err != nil {
		tb.Fatal(err)
	}
	_, err = s.updateGlobal(c, "bench: seed global", func(tx *Tx) error {
		writeSegments(tx, ChangelogFile, genEntries(r, total/10, "other", changelog.TypeImplement, start))
		writeSegments(tx, LearningsFile, genEntries(r, total/20, "other", changelog.TypeLearning, start))
		writeSegments(tx, DecisionsFile, genEntries(r, total/20, "other", changelog.TypeDecision, start))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// writeSegments stores data as appends would have: full archive segments
// and the rest in the live file.
func writeSegments(tx *Tx, file string, data []byte) {
	n := 0
	for len(data) > SegmentSize {
		cut := bytes.LastIndex(data[:SegmentSize], entryStart) + 1
		n++
		tx.Write(archiveName(file, n), data[:cut])
		data = data[cut:]
	}
	tx.Write(file, data)
}

func benchStore(b testing.TB) *Store { return benchStoreIn(b, b.TempDir()) }

// benchStoreIn is benchStore under dir.
func benchStoreIn(b testing.TB, dir string) *Store {
	e := &env{t: &testing.T{}, home: dir + "/home", pq: dir + "/pq", repo: dir + "/code"}
	e.vars = map[string]string{"HOME": e.home, "PLANQ_HOME": e.pq}
	for _, d := range []string{e.home, e.repo + "/.git"} {
		if err := mkdirAll(d); err != nil {
			b.Fatal(err)
		}
	}
	s, err := Open(Options{Dir: e.repo, Getenv: e.getenv})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkLogAdd is one `planq log add` without process start-up: lock,
// entry, blob, trees, commit, ref and worktree update. Goal: ≤ 30 ms.
func BenchmarkLogAdd(b *testing.B) {
	for _, n := range []int{0, 10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchStore(b)
			if n > 0 {
				seedState(b, s, n)
			} else if _, err := s.Log(context.Background(), "first", "", ""); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := s.Log(context.Background(), fmt.Sprintf("entry %d: implemented the thing", i), "", ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkContext builds the context summary from a cold Store (as a CLI
// or hook process does) over a generated state. Goal: ≤ 20 ms.
func BenchmarkContext(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchStore(b)
			seedState(b, s, n)
			b.ResetTimer()
			for b.Loop() {
				s2, err := Open(Options{Dir: s.Root, Home: s.Home})
				if err != nil {
					b.Fatal(err)
				}
				sum, err := s2.Context(context.Background(), ContextOptions{NoDetect: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(sum.Log) == 0 || len(sum.Learnings) == 0 || len(sum.Decisions) == 0 {
					b.Fatalf("empty summary: %+v", sum)
				}
			}
		})
	}
}

// BenchmarkBranchEntries reads the newest 50 entries of the agent's
// changelog (60% of the entries) and of global's, and the page after the
// first thousand, from a cold Store over a generated state, as the State page
// of planq ui does. Goal: ≤ 200 ms for the newest 50 of 100,000 entries.
func BenchmarkBranchEntries(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := benchStore(b)
			seedState(b, s, n)
			c := context.Background()
			var newest, deep time.Duration
			for b.Loop() {
				t0 := time.Now()
				s2, err := Open(Options{Dir: s.Root, Home: s.Home})
				if err != nil {
					b.Fatal(err)
				}
				for _, branch := range []string{s.Branch(), GlobalBranch} {
					es, total, err := s2.BranchEntries(c, branch, ChangelogFile, 0, 50)
					if err != nil || len(es) != 50 || total != -1 {
						b.Fatalf("%s: %d entries, total %d, %v", branch, len(es), total, err)
					}
				}
				newest += time.Since(t0)
				t0 = time.Now()
				es, _, err := s2.BranchEntries(c, s.Branch(), ChangelogFile, 1000, 50)
				deep += time.Since(t0)
				if err != nil || len(es) != 50 {
					b.Fatalf("deep page: %d entries, %v", len(es), err)
				}
			}
			b.ReportMetric(float64(newest.Microseconds())/1000/float64(b.N), "newest50-2branches-ms")
			b.ReportMetric(float64(deep.Microseconds())/1000/float64(b.N), "offset1000-ms")
		})
	}
}
