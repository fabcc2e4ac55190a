package hooks

import (
	"fmt"
	"strings"
)

// unifiedDiff renders the change from a to b as a unified diff with three
// lines of context, labelled with path. A nil a is a new file, a nil b a
// deleted one. It returns "" when a and b are equal.
func unifiedDiff(path string, a, b []byte) string {
	if string(a) == string(b) && (a == nil) == (b == nil) {
		return ""
	}
	from, to := "a"+path, "b"+path
	if a == nil {
		from = "/dev/null"
	}
	if b == nil {
		to = "/dev/null"
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	ops := diffLines(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	const ctx = 3
	// Group ops into hunks separated by more than 2*ctx equal lines.
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(len(ops), end+ctx)
				break
			}
			end = run
		}
		aStart, bStart := ops[start].a, ops[start].b
		var aN, bN int
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aN++
			}
			if op.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
		for _, op := range ops[start:end] {
			out.WriteByte(op.kind)
			out.WriteString(op.text)
			out.WriteByte('\n')
			if op.noEOL {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

type line struct {
	text  string
	noEOL bool
}

func splitLines(s string) []line {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	var out []line
	for _, p := range parts {
		if p == "" {
			continue
		}
		l := line{text: strings.TrimSuffix(p, "\n")}
		l.noEOL = !strings.HasSuffix(p, "\n")
		out = append(out, l)
	}
	return out
}

type diffOp struct {
	kind  byte // ' ', '-', '+'
	text  string
	noEOL bool
	a, b  int // 0-based line index in a and b before this op
}

// diffLines computes a line diff: common prefix and suffix are trimmed, and
// the middle is diffed by longest common subsequence (the middle of a
// settings edit is small; a huge one degrades to delete-all/insert-all).
func diffLines(a, b []line) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	ai, bi := 0, 0
	eq := func(l line) { ops = append(ops, diffOp{' ', l.text, l.noEOL, ai, bi}); ai++; bi++ }
	del := func(l line) { ops = append(ops, diffOp{'-', l.text, l.noEOL, ai, bi}); ai++ }
	ins := func(l line) { ops = append(ops, diffOp{'+', l.text, l.noEOL, ai, bi}); bi++ }
	for _, l := range a[:pre] {
		eq(l)
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(am)*len(bm) > 4_000_000 {
		for _, l := range am {
			del(l)
		}
		for _, l := range bm {
			ins(l)
		}
	} else {
		// lcs[i][j] = LCS length of am[i:], bm[j:].
		lcs := make([][]int32, len(am)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(bm)+1)
		}
		for i := len(am) - 1; i >= 0; i-- {
			for j := len(bm) - 1; j >= 0; j-- {
				if am[i] == bm[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(am) || j < len(bm) {
			switch {
			case i < len(am) && j < len(bm) && am[i] == bm[j]:
				eq(am[i])
				i++
				j++
			case i < len(am) && (j == len(bm) || lcs[i+1][j] >= lcs[i][j+1]):
				del(am[i])
				i++
			default:
				ins(bm[j])
				j++
			}
		}
	}
	for _, l := range a[len(a)-suf:] {
		eq(l)
	}
	return ops
}
