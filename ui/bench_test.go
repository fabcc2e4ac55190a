package ui_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// benchHandler returns the UI handler of repo and a request maker that
// passes its checks (Host and token cookie), for timing pages without a
// network in between.
func benchHandler(b *testing.B, repo string) (http.Handler, func(path string) *http.Request) {
	b.Helper()
	s, err := ui.New(ui.Options{Dir: repo})
	if err != nil {
		b.Fatal(err)
	}
	const port = 45678
	s.AllowPort(port)
	h := s.Handler()
	return h, func(path string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Host = "127.0.0.1:" + strconv.Itoa(port)
		r.AddCookie(&http.Cookie{Name: "planq_ui_" + strconv.Itoa(port), Value: s.Token()})
		return r
	}
}

// timePage serves path b.N times and reports the median and the slowest
// server time in milliseconds, failing on anything but 200 or when the
// page lacks want.
func timePage(b *testing.B, h http.Handler, req func(string) *http.Request, path, want string, goal time.Duration) {
	b.Helper()
	serve := func() time.Duration {
		w := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(w, req(path))
		d := time.Since(start)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
			b.Fatalf("GET %s: status %d, want 200 and %q in:\n%s", path, w.Code, want, w.Body.String())
		}
		return d
	}
	serve() // warm: jj's index, the OS cache
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ds = append(ds, serve())
	}
	b.StopTimer()
	slices.Sort(ds)
	p50 := ds[len(ds)/2]
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(goal.Milliseconds()), "goal-ms")
	if p50 > goal {
		b.Logf("p50 %v is over the goal of %v", p50, goal)
	}
}

// BenchmarkUIChangesPage serves the first Changes page of a repo with
// 10,000 changes, each with a living summary (goal: 200 ms server time).
func BenchmarkUIChangesPage(b *testing.B) {
	testenv.Isolate(b)
	repo := testenv.JJRepo(b)
	const n = 10_000
	importCommits(b, repo, n)
	h, req := benchHandler(b, repo)
	timePage(b, h, req, "/changes", "Change 10000 of the generated history", 200*time.Millisecond)
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

// BenchmarkUIStatePage serves the State page (the newest 50 changelog
// entries) of an agent branch holding 100,000 entries, stored in segments
// as appends leave them (goal: 200 ms server time).
func BenchmarkUIStatePage(b *testing.B) {
	testenv.Isolate(b)
	repo := testenv.JJRepo(b)
	const n = 100_000
	st, err := staterepo.Open(staterepo.Options{Dir: repo, Warn: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := st.Init(ctx); err != nil {
		b.Fatal(err)
	}
	data := genEntries(b, n, st.Agent)
	if _, err := st.Update(ctx, "bench: seed", func(tx *staterepo.Tx) error {
		return writeSegments(tx, staterepo.ChangelogFile, data)
	}); err != nil {
		b.Fatal(err)
	}
	h, req := benchHandler(b, repo)
	timePage(b, h, req, "/state?branch="+st.Branch()+"&kind=changelog", fmt.Sprintf("entry %d of the generated state", n), 200*time.Millisecond)
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

// BenchmarkUITranscriptPage serves the first page of a 1 GB stored
// transcript (PLANQ_BENCH_TRANSCRIPT_MB changes the size; goal: 50 ms
// server time, as for a small one).
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
	st, err := staterepo.Open(staterepo.Options{Dir: repo, Warn: func(string) {}})
	if err != nil {
		b.Fatal(err)
	}
	ts, err := transcript.New(st.Home, st.Project)
	if err != nil {
		b.Fatal(err)
	}
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
	h, req := benchHandler(b, repo)
	timePage(b, h, req, "/transcript?root="+root, "tool call: Bash", 50*time.Millisecond)
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
