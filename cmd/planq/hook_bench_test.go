package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/testenv"
)

// BenchmarkPreToolUseHook measures the whole `planq hook pre-tool-use`
// process, as Claude Code runs it for every tool call, against one
// `jj log -r @` process measured in the same run:
//
//	read            a Read call (a built-in read-only tool: no config, no jj)
//	bash-ro         a read-only Bash command (parsed; the config is read)
//	write-warm      a Write with the gate cache warm (no jj process)
//	write-cold      a Write with the cache deleted first (one jj process)
//	jj              jj log -r @
//	lean-read       read, by the hook linked with only the gate (testdata/leanhook)
//	lean-write-warm write-warm, by the same
//	true            /bin/true: what starting any process costs here
//
// Each iteration runs every scenario once, interleaved, so drift in the
// machine's load hits them alike. It reports each scenario's median (p50-ms)
// and its ratio to jj's. The goal: read under 0.1 of jj, write-warm under 0.2.
//
//	go test -run '^$' -bench PreToolUseHook -benchtime 100x ./cmd/planq
func BenchmarkPreToolUseHook(b *testing.B) {
	bin, err := planqBin() // before Isolate: the builds need the real caches
	if err != nil {
		b.Fatal(err)
	}
	lean := filepath.Join(b.TempDir(), "leanhook")
	if out, err := exec.Command("go", "build", "-o", lean, "./testdata/leanhook").CombinedOutput(); err != nil {
		b.Fatalf("go build leanhook: %v\n%s", err, out)
	}
	testenv.Isolate(b)
	repo := testenv.JJRepo(b)
	testenv.WriteFile(b, repo, "main.go", "package main\n")
	testenv.Run(b, repo, "jj", "describe", "-m", "Benchmark change")
	cache := filepath.Join(repo, ".jj", "planq-gate.json")

	payload := func(tool, input string) []byte {
		return []byte(`{"session_id":"bench","transcript_path":"/tmp/bench.jsonl","cwd":"` + repo +
			`","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"` + tool +
			`","tool_input":` + input + `,"tool_use_id":"toolu_bench"}`)
	}
	read := payload("Read", `{"file_path":"`+repo+`/main.go"}`)
	bashRO := payload("Bash", `{"command":"git status && git log --oneline | head -5","description":"status"}`)
	write := payload("Write", `{"file_path":"`+repo+`/main.go","content":"package main\n\nfunc main() {}\n"}`)
	env := append(os.Environ(), "CLAUDE_PROJECT_DIR="+repo)

	exe := func(stdin []byte, name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, bytes.NewReader(stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out.String())
		}
		return d
	}
	hook := func(stdin []byte) time.Duration { return exe(stdin, bin, "hook", "pre-tool-use") }
	leanHook := func(stdin []byte) time.Duration { return exe(stdin, lean) }
	jjLog := func() time.Duration { return exe(nil, "jj", "log", "-r", "@") }
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}

	// The calls must be allowed silently, or the benchmark measures something else.
	for _, h := range []func([]byte) time.Duration{hook, leanHook} {
		for _, p := range [][]byte{read, bashRO, write} {
			h(p)
		}
	}
	if out, _ := exec.Command(bin, "gate", "check", "--repo", repo, "--tool", "Write", "--input", `{"file_path":"`+repo+`/main.go"}`).Output(); !bytes.Contains(out, []byte("would allow")) {
		b.Fatalf("the benchmark's Write is not allowed:\n%s", out)
	}
	jjLog()

	names := []string{"read", "bash-ro", "write-warm", "write-cold", "lean-read", "lean-write-warm", "true", "jj"}
	times := map[string][]time.Duration{}
	add := func(n string, d time.Duration) { times[n] = append(times[n], d) }
	b.ResetTimer()
	for range b.N {
		add("read", hook(read))
		add("bash-ro", hook(bashRO))
		add("write-warm", hook(write))
		add("lean-read", leanHook(read))
		add("lean-write-warm", leanHook(write))
		b.StopTimer()
		if err := os.Remove(cache); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		add("write-cold", hook(write))
		add("true", exe(nil, truePath))
		add("jj", jjLog())
	}
	b.StopTimer()

	jj := median(times["jj"])
	for _, n := range names {
		p := median(times[n])
		b.ReportMetric(p, n+"-p50-ms")
		if n != "jj" {
			b.ReportMetric(p/jj, n+"/jj")
		}
	}
	b.ReportMetric(0, "ns/op") // the medians above are the result
}

// median returns the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(time.Millisecond)
}
