package gate

import (
	"strings"
	"testing"
	"time"
)

// FuzzAnalyzeBash checks that no input panics or hangs the analyser, and that
// what it reports is consistent. Run it with
//
//	go test -fuzz=FuzzAnalyzeBash -fuzztime=5m ./gate
//
// Under plain go test the seed corpus below runs as a normal test.
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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		start := time.Now()
		v := AnalyzeBash(cmd, DefaultPolicy())
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("analysing %d bytes took %v", len(cmd), d)
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
		if pv := AnalyzeBash(cmd, p); pv.Modifies && !v.Modifies {
			t.Fatalf("%q modifies under the permissive policy but not under the strict one", cmd)
		}
	})
}

// BenchmarkAnalyzeBash measures the analyser alone, over the labelled table.
func BenchmarkAnalyzeBash(b *testing.B) {
	pol := DefaultPolicy()
	commands() // build the table outside the measurement
	b.ResetTimer()
	for i := range b.N {
		AnalyzeBash(bashCases[i%len(bashCases)].cmd, pol)
	}
}
