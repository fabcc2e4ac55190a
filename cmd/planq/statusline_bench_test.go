package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkStatusLine measures the status line as Claude Code runs it,
// every few seconds, against one `jj log -r @` process measured in the
// same run:
//
//	hook-warm   planq-hook statusline, the gate's cache warm (no jj process); what planq mcp install --statusline wires
//	planq-warm  planq statusline, the same through the full binary
//	hook-cold   planq-hook statusline with the cache deleted first (one jj process)
//	jj          jj log -r @
//	true        /bin/true: what starting any process costs here
//
// Each iteration runs every scenario once, interleaved, so drift in the
// machine's load hits them alike. It reports each scenario's median
// (p50-ms) and its ratio to jj's. The goal: hook-warm at most 0.1 of jj.
//
//	go test -run '^$' -bench StatusLine -benchtime 100x ./cmd/planq
func BenchmarkStatusLine(b *testing.B) {
	bin, hookBin, repo, cache := benchRepo(b, "Benchmark the status line\n\nDone:\n- a\n\nLeft to do:\n- b\n- c\n")
	payload := []byte(`{"session_id":"bench","cwd":"` + repo + `","model":{"id":"claude-opus-4-8","display_name":"Opus"},"workspace":{"current_dir":"` + repo + `","project_dir":"` + repo + `","added_dirs":[]},"version":"2.1.197"}`)
	env := append(os.Environ(), "CLAUDE_PROJECT_DIR="+repo, "COLUMNS=120")
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}

	status := func(name string, args ...string) time.Duration {
		d, out, err := timedRun(repo, env, payload, name, args...)
		// The line must be the change's, or the benchmark measures something else.
		if err != nil || !strings.HasSuffix(out, " · gate open · Benchmark the status line · 2 left to do\n") {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return d
	}
	run := func(name string, args ...string) time.Duration {
		d, out, err := timedRun(repo, env, nil, name, args...)
		if err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return d
	}
	status(hookBin, "statusline")
	status(bin, "statusline")
	run("jj", "log", "-r", "@")

	names := []string{"hook-warm", "planq-warm", "hook-cold", "true", "jj"}
	times := map[string][]time.Duration{}
	add := func(n string, d time.Duration) { times[n] = append(times[n], d) }
	b.ResetTimer()
	for range b.N {
		add("hook-warm", status(hookBin, "statusline"))
		add("planq-warm", status(bin, "statusline"))
		b.StopTimer()
		if err := os.Remove(cache); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		add("hook-cold", status(hookBin, "statusline"))
		add("true", run(truePath))
		add("jj", run("jj", "log", "-r", "@"))
	}
	b.StopTimer()

	reportMedians(b, names, times)
}
