package ui_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/planq-dev/planq/changelog"
	"github.com/planq-dev/planq/internal/testenv"
	"github.com/planq-dev/planq/staterepo"
	"github.com/planq-dev/planq/transcript"
	"github.com/planq-dev/planq/ui"
)

// benchServer starts the UI server of repo on a free port, as `planq ui`
// does, and returns a maker of requests that carry the token cookie a
// browser holds after opening the printed URL.
func benchServer(b *testing.B, repo string) func(path string) *http.Request {
	b.Helper()
	s, base := startServer(b, repo)
	u, _ := url.Parse(base)
	cookie := &http.Cookie{Name: "planq_ui_" + u.Port(), Value: s.Token()}
	return func(path string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		r.AddCookie(cookie)
		return r
	}
}

// fetch makes one real HTTP request and returns how long the browser would
// wait for the first byte of the response and for all of it, failing on
// anything but 200 or a page that lacks want.
func fetch(b *testing.B, client *http.Client, req *http.Request, want string) (firstByte, complete time.Duration) {
	b.Helper()
	var first time.Time
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { first = time.Now() },
	}))
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	complete = time.Since(start)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(want)) {
		b.Fatalf("GET %s: %s, %v; want 200 and %q in:\n%.3000s", req.URL.Path, resp.Status, err, want, body)
	}
	return first.Sub(start), complete
}

// p50 and p100 of ds, in milliseconds.
func p50(ds []time.Duration) float64  { return ms(percentile(ds, 50)) }
func p100(ds []time.Duration) float64 { return ms(percentile(ds, 100)) }

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pageTimes collects what a browser waits for over a benchmark's requests
// of one page, and the CPU time each cost.
type pageTimes struct {
	cold               time.Duration // the first request
	firsts, alls, cpus []time.Duration
}

// fetch requests the page once more and records it.
func (pt *pageTimes) fetch(b *testing.B, client *http.Client, req *http.Request, want string) {
	b.Helper()
	c0, cpu := cpuTime()
	f, a := fetch(b, client, req, want)
	if c1, _ := cpuTime(); cpu {
		pt.cpus = append(pt.cpus, c1-c0)
	}
	pt.firsts, pt.alls = append(pt.firsts, f), append(pt.alls, a)
}

// report reports the first request's time, the median and slowest time to
// the first byte and to the whole page, and the median CPU time, in
// milliseconds, with the goal for the whole page.
func (pt *pageTimes) report(b *testing.B, path string, goal time.Duration) {
	if len(pt.cpus) > 0 {
		// On a busy machine wall times swing with the load; the CPU time a
		// request costs (the server and its jj processes) does not.
		b.ReportMetric(p50(pt.cpus), "cpu-p50-ms")
	}
	b.ReportMetric(ms(pt.cold), "first-request-ms")
	b.ReportMetric(p50(pt.firsts), "first-byte-p50-ms")
	b.ReportMetric(p50(pt.alls), "p50-ms")
	b.ReportMetric(p100(pt.alls), "max-ms")
	b.ReportMetric(float64(goal.Milliseconds()), "goal-ms")
	if p := percentile(pt.alls, 50); p > goal {
		b.Logf("%s: p50 %v is over the goal of %v", path, p, goal)
	}
}

// timePage requests path from the running server b.N times after one
// request to warm the caches, as a browser would, and reports the times
// (pageTimes.report).
func timePage(b *testing.B, path, want string, goal time.Duration, req func(string) *http.Request) {
	b.Helper()
	client := &http.Client{}
	var pt pageTimes
	_, pt.cold = fetch(b, client, req(path), want)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pt.fetch(b, client, req(path), want)
	}
	b.StopTimer()
	pt.report(b, path, goal)
}

// BenchmarkUIChangesPage requests the first Changes page from a running
// `planq ui` server, over HTTP as a browser does, on a repo with 10,000
// changes (each with a living summary) and 10,000 session lineages (those
// of the newest 100 changes recorded through the store, with their
// indexes; one bad record), and in the same loop runs `jj log` of the same
// revset: the 50 changes the page shows, and all of them as a person would
// list them. Goal: the whole page in 200 ms.
func BenchmarkUIChangesPage(b *testing.B) {
	testenv.Isolate(b)
	repo := testenv.JJRepo(b)
	const n = 10_000
	importCommits(b, repo, n)
	ts := openTranscripts(b, repo)
	ids := strings.Fields(testenv.Run(b, repo, "jj", "log", "--no-graph", "-r", ui.ChangesRevset, "--limit", "100", "-T", `change_id ++ "\n"`))
	ctx := context.Background()
	for _, id := range ids {
		if _, err := ts.Update(ctx, id, func(s *transcript.Session) error { s.Task = "Session on " + id; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	writeLineages(b, ts, n-len(ids), time.Now().Add(-time.Hour))
	bad, _ := ts.Dir(strings.Repeat("z", 32))
	testenv.WriteFile(b, bad, transcript.SessionFile, `{"root":"abc123","changes":["x) | all() | (y"]}`)

	req := benchServer(b, repo)
	const want = "Change 10000 of the generated history"
	client := &http.Client{}
	// The first request of a fresh server: nothing served yet.
	_, cold := fetch(b, client, req("/changes"), want)
	b.Logf("%d changes, %d lineages; first GET /changes %.1f ms", n, n, ms(cold))
	jjLog := func(b *testing.B, args ...string) time.Duration {
		start := time.Now()
		testenv.Run(b, repo, "jj", append([]string{"log", "-r", ui.ChangesRevset}, args...)...)
		return time.Since(start)
	}
	// A sub-benchmark, so the repo above is built once, not once per b.N.
	b.Run("10k-changes-10k-lineages", func(b *testing.B) {
		pt := pageTimes{cold: cold}
		var logs50, logsAll, cpuLog []time.Duration
		for i := 0; i < b.N; i++ {
			pt.fetch(b, client, req("/changes"), want)
			c0, cpu := cpuTime()
			logs50 = append(logs50, jjLog(b, "--limit", "50"))
			if c1, _ := cpuTime(); cpu {
				cpuLog = append(cpuLog, c1-c0)
			}
			logsAll = append(logsAll, jjLog(b))
		}
		pt.report(b, "/changes", 200*time.Millisecond)
		if len(cpuLog) > 0 {
			b.ReportMetric(p50(cpuLog), "jj-log-50-cpu-p50-ms")
		}
		b.ReportMetric(p50(logs50), "jj-log-50-p50-ms")
		b.ReportMetric(p50(logsAll), "jj-log-all-p50-ms")
		b.ReportMetric(p50(pt.alls)/p50(logs50), "page/jj-log-50")
		b.Logf("GET /changes p50 %.1f ms (first byte %.1f ms); jj log -r '%s' --limit 50: p50 %.1f ms, without --limit: %.1f ms",
			p50(pt.alls), p50(pt.firsts), ui.ChangesRevset, p50(logs50), p50(logsAll))
	})
	// The pages that list the lineages, on the same repo.
	b.Run("overview-10k-lineages", func(b *testing.B) {
		timePage(b, "/", "Session on ", 200*time.Millisecond, req)
	})
	b.Run("transcript-10k-lineages", func(b *testing.B) {
		timePage(b, "/transcript", "Session on ", 200*time.Millisecond, req)
	})
}

// importCommits writes n commits on branch work with git fast-import (a
// jj new per change would take minutes) and imports them into jj.
func importCommits(b *testing.B, repo string, n int) {
	b.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	when := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := 1; i <= n; i++ {
		msg := fmt.Sprintf("Change %d of the generated history\n\nDone:\n- edited file%d.txt\n\nKey decisions:\n- none\n\nLeft to do:\n- change %d\n\nOpen questions:\n- none\n", i, i%100, i+1)
		content := fmt.Sprintf("line %d\n", i)
		fmt.Fprintf(w, "commit refs/heads/work\nmark :%d\ncommitter Test User <test@example.com> %d +0000\ndata %d\n%s", i, when+int64(i), len(msg), msg)
		if i > 1 {
			fmt.Fprintf(w, "from :%d\n", i-1)
		}
		fmt.Fprintf(w, "M 100644 inline file%d.txt\ndata %d\n%s\n", i%100, len(content), content)
	}
	w.Flush()
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = repo
	cmd.Stdin = &buf
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	testenv.Run(b, repo, "jj", "git", "import")
	testenv.Run(b, repo, "jj", "new", "work")
}

// BenchmarkUIStatePage requests the State page (the newest 50 changelog
// entries) of an agent branch holding 100,000 entries, stored in segments
// as appends leave them, from a running server (goal: 200 ms).
func BenchmarkUIStatePage(b *testing.B) {
	testenv.Isolate(b)
	repo := testenv.JJRepo(b)
	const n = 100_000
	st := openState(b, repo, true)
	ctx := context.Background()
	data := genEntries(b, n, st.Agent)
	if _, err := st.Update(ctx, "bench: seed", func(tx *staterepo.Tx) error {
		return writeSegments(tx, staterepo.ChangelogFile, data)
	}); err != nil {
		b.Fatal(err)
	}
	req := benchServer(b, repo)
	timePage(b, "/state?branch="+st.Branch()+"&kind=changelog", fmt.Sprintf("entry %d of the generated state", n), 200*time.Millisecond, req)
}

// genEntries serialises n changelog entries, oldest first.
func genEntries(b *testing.B, n int, agent string) []byte {
	var buf bytes.Buffer
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		e := changelog.Entry{Agent: agent, Type: changelog.TypeImplement, Timestamp: start.Add(time.Duration(i) * time.Second),
			Body: fmt.Sprintf("entry %d of the generated state\n\nMiddleware, token bucket and retry work on the session handler, part %d.", i, i)}
		if _, err := changelog.Append(&buf, e); err != nil {
			b.Fatal(err)
		}
	}
	return buf.Bytes()
}

// writeSegments stores data as appends leave it: full archive segments of
// at most staterepo.SegmentSize bytes (archive/<name>-NNNNNN.md), cut at
// entry starts, and the rest in the live file.
func writeSegments(tx *staterepo.Tx, file string, data []byte) error {
	start := []byte("\n---\nid: pq-")
	for n := 1; len(data) > staterepo.SegmentSize; n++ {
		cut := bytes.LastIndex(data[:staterepo.SegmentSize], start) + 1
		name := fmt.Sprintf("%s/%s-%06d.md", staterepo.ArchiveDir, strings.TrimSuffix(file, ".md"), n)
		if err := tx.Write(name, data[:cut]); err != nil {
			return err
		}
		data = data[cut:]
	}
	return tx.Write(file, data)
}

// BenchmarkUITranscriptPage requests the first page of a 1 GB stored
// transcript from a running server (PLANQ_BENCH_TRANSCRIPT_MB changes the
// size; goal: 50 ms, as for a small one).
func BenchmarkUITranscriptPage(b *testing.B) {
	testenv.Isolate(b)
	repo := testenv.JJRepo(b)
	mb := int64(1024)
	if v := os.Getenv("PLANQ_BENCH_TRANSCRIPT_MB"); v != "" {
		var err error
		if mb, err = strconv.ParseInt(v, 10, 64); err != nil || mb <= 0 {
			b.Fatalf("PLANQ_BENCH_TRANSCRIPT_MB=%q: want a positive number of MiB", v)
		}
	}
	ts := openTranscripts(b, repo)
	const root = "kxqwvnmpzlrstuyo"
	if _, err := ts.Update(context.Background(), root, func(s *transcript.Session) error {
		s.Task = "A long session"
		s.AddChange(root)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	path, err := ts.Path(root)
	if err != nil {
		b.Fatal(err)
	}
	writeTranscript(b, path, mb<<20)
	req := benchServer(b, repo)
	timePage(b, "/transcript?root="+root, "tool call: Bash", 50*time.Millisecond, req)
	b.ReportMetric(float64(mb), "transcript-MB")
}

// writeTranscript writes a Claude Code-like transcript of about size bytes:
// text, tool calls and their results, some lines tens of KiB long.
func writeTranscript(b *testing.B, path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("the agent reads files, runs commands and makes edits; ", 1200)
	var written int64
	for i := 0; written < size; i++ {
		var line string
		switch i % 4 {
		case 0:
			line = fmt.Sprintf(`{"type":"user","message":{"role":"user","content":"step %d: %s"}}`, i, pad[:200+i%3000])
		case 1:
			line = fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./... # %d"}}]}}`, i, i)
		case 2:
			line = fmt.Sprintf(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}}`, i-1, pad[:1000+(i*7919)%60000])
		default:
			line = fmt.Sprintf(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done with step %d"}]}}`, i)
		}
		n, _ := w.WriteString(line + "\n")
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if fi, err := os.Stat(path); err == nil {
		b.Logf("transcript %s: %d MB", filepath.Base(path), fi.Size()>>20)
	}
}
