package gate

import (
	"flag"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FuzzAnalyzeBash checks that no input panics the analyser or makes it work
// long: every input is judged within 64 MB of allocation (and, when
// fuzzing, 100 ms), an input past a bound is denied with the bound named,
// and what it reports is consistent. Run it with
//
//	go test -fuzz=FuzzAnalyzeBash -fuzztime=5m ./gate
//
// Under plain go test the seed corpus below (and testdata/fuzz) runs as a
// normal test, which may share a busy machine: there the time bound is
// make bench's (BenchmarkAnalysisWorstInput), not a wall-clock assertion.
func FuzzAnalyzeBash(f *testing.F) {
	for _, c := range bashCases {
		f.Add(c.cmd)
	}
	for _, s := range []string{
		"$(", "`", "<<EOF", "cat <<EOF\n$(", "a=(", "${x:-$(rm y)}", "f() { f; }; f", "((", "[[ ",
		"bash -c 'bash -c \"bash -c x\"'", "eval eval eval rm", "xargs xargs xargs rm", "sudo sudo sudo env env rm",
		"find . -exec find . -exec rm {} \\; \\;", "sed ''", "sed 's", "sed '\\", "sed 'y/ab", "awk '\"", "awk '/", "awk '/[",
		"tar", "tar -", "git -c", "git -C", "timeout", "env -S", "watch", "trap", "python -m", "coverage run -m",
		"\x00", "\xff\xfe", "'\n'", "\\", "a\\\nb", "$'\\x72m' x", "{a,b}", "!", "&", ";;", "|", "||", "&&",
		"echo \"$(echo \"$(echo \"$(rm x)\")\")\"", strings.Repeat("(", 200) + "ls" + strings.Repeat(")", 200),
		strings.Repeat("$(", 100) + "rm x" + strings.Repeat(")", 100), strings.Repeat("bash -c ", 50) + "ls",
		strings.Repeat("(", 256<<10), strings.Repeat("ls|", 3000), "x='a[$(rm y)]'; (( x ))", "sed -n ':a;N;$!ba;w o' f",
		"awk 'BEGIN{x++ /2; system(\"rm y\")/1}'", "git -c alias.x='!rm y' x", "declare -i n; n='a[$(rm y)]'",
		"ls *(e:'rm y':)", "echo ${x@P}", "a=(1); unset 'a[$(rm y)]'", "echo > /proc/self/cwd/x",
	} {
		f.Add(s)
	}
	where := fixtureWhere(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		v, d, alloc := measure(cmd, where)
		if d > 100*time.Millisecond || alloc > 64<<20 {
			// Once more, in case the machine was busy or a GC ran.
			v, d, alloc = measure(cmd, where)
		}
		if fuzzing() && d > 100*time.Millisecond {
			t.Fatalf("analysing %d bytes took %v (the bound is 100 ms)", len(cmd), d)
		}
		if alloc > 64<<20 {
			t.Fatalf("analysing %d bytes allocated %d MB (the bound is 64 MB)", len(cmd), alloc>>20)
		}
		if len(cmd) > MaxCommandBytes && (!v.Modifies || !strings.Contains(v.Reason, "MaxCommandBytes")) {
			t.Fatalf("an input of %d bytes is not denied for its size: %+v", len(cmd), v)
		}
		if v.Reason == "" {
			t.Fatalf("no reason for %q", cmd)
		}
		if v.Modifies && v.Part == "" && strings.TrimSpace(cmd) != "" {
			t.Fatalf("modifying verdict for %q names no part: %+v", cmd, v)
		}
		if len(v.Part) > maxPartLen+len("…") {
			t.Fatalf("part of %d bytes", len(v.Part))
		}
		if v.Git != nil && (v.Git.Command == "" || v.Git.JJ == "") {
			t.Fatalf("incomplete git rewrite for %q: %+v", cmd, *v.Git)
		}
		// A permissive policy never turns a read-only verdict into a modifying one.
		p := DefaultPolicy()
		p.PermissiveUnknown = true
		if pv := AnalyzeBashAt(cmd, p, where); pv.Modifies && !v.Modifies {
			t.Fatalf("%q modifies under the permissive policy but not under the strict one", cmd)
		}
	})
}

// fuzzing reports whether go test is fuzzing (-fuzz), not just running
// the seed corpus.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// measure judges cmd and returns the verdict, the time and the bytes
// allocated.
func measure(cmd string, where Where) (Verdict, time.Duration, uint64) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	v := AnalyzeBashAt(cmd, DefaultPolicy(), where)
	d := time.Since(start)
	runtime.ReadMemStats(&m1)
	return v, d, m1.TotalAlloc - m0.TotalAlloc
}

// BenchmarkAnalyzeBash measures the analyser alone, over the labelled table.
func BenchmarkAnalyzeBash(b *testing.B) {
	pol := DefaultPolicy()
	buildAllShards() // build the table outside the measurement
	b.ResetTimer()
	for i := range b.N {
		AnalyzeBash(bashCases[i%len(bashCases)].cmd, pol)
	}
}
