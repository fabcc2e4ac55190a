package transcript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wantLine is a line of a test file as paging should return it.
type wantLine struct {
	off  int64
	text string
}

// linesOf splits data as a reader of lines does: a last line without a
// newline counts, an empty file has none.
func linesOf(data string) []wantLine {
	var out []wantLine
	off := int64(0)
	for len(data) > 0 {
		line, rest, _ := strings.Cut(data, "\n")
		out = append(out, wantLine{off, line})
		off += int64(len(line)) + 1
		data = rest
	}
	return out
}

// sameText reports whether got is line as a page shows it: whole, or cut
// with a marker counting the bytes left out.
func sameText(got, line string) bool {
	if len(line) <= MaxLineChars {
		return got == line
	}
	kept, marker, ok := strings.Cut(got, "… [+")
	return ok && strings.HasPrefix(line, kept) && marker == fmt.Sprintf("%d bytes]", len(line)-len(kept))
}

func TestReadPage(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"lines":                       "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n{\"d\":4}\n{\"e\":5}\n",
		"no trailing newline":         "one\ntwo\nthree",
		"empty":                       "",
		"one line":                    "only\n",
		"blank lines":                 "a\n\n\nb\n",
		"longer than the read buffer": "short\n" + strings.Repeat("x", lineBuf*2+17) + "\nafter\n" + strings.Repeat("y", lineBuf+1),
		"longer than a kept line":     "first\n" + strings.Repeat("z", lineKeep+5000) + "\nlast\n",
	}
	ctx := context.Background()
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := writeTemp(t, data)
			want := linesOf(data)
			for _, size := range []int{1, 2, 3, 100} {
				// Forwards from the start.
				var got []Line
				for off, pages := int64(0), 0; off != -1; pages++ {
					p, err := ReadPage(ctx, path, off, size)
					if err != nil {
						t.Fatal(err)
					}
					if pages > len(want)+1 {
						t.Fatalf("size %d: paging forwards does not end", size)
					}
					if p.Start != off || len(p.Lines) > size || p.Size != int64(len(data)) {
						t.Fatalf("size %d: page at %d = start %d, %d lines, size %d", size, off, p.Start, len(p.Lines), p.Size)
					}
					if (p.Prev == -1) != (off == 0) {
						t.Errorf("size %d: page at %d has Prev %d", size, off, p.Prev)
					}
					got = append(got, p.Lines...)
					off = p.Next
				}
				check(t, fmt.Sprintf("forwards by %d", size), got, want, true)

				// Backwards from the end.
				got = nil
				for off, pages := int64(-1), 0; ; pages++ {
					p, err := ReadPageBefore(ctx, path, off, size)
					if err != nil {
						t.Fatal(err)
					}
					if pages > len(want)+1 {
						t.Fatalf("size %d: paging backwards does not end", size)
					}
					if off == -1 && p.Next != -1 || off != -1 && p.End != off {
						t.Fatalf("size %d: page before %d ends at %d (next %d)", size, off, p.End, p.Next)
					}
					got = append(p.Lines, got...)
					if p.Prev == -1 {
						break
					}
					off = p.Prev
				}
				check(t, fmt.Sprintf("backwards by %d", size), got, want, false)
			}
		})
	}
}

// check compares paged lines with the file's. Line numbers are known from
// the file's first line; numbered says the pages started there.
func check(t *testing.T, how string, got []Line, want []wantLine, numbered bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lines, want %d", how, len(got), len(want))
	}
	for i, l := range got {
		if l.Off != want[i].off || !sameText(l.Text, want[i].text) {
			t.Errorf("%s: line %d = %d %.40q, want %d %.40q", how, i+1, l.Off, l.Text, want[i].off, want[i].text)
		}
		if numbered && i == 0 && l.N != 1 || l.N != 0 && l.N != int64(i+1) {
			t.Errorf("%s: line %d is numbered %d", how, i+1, l.N)
		}
	}
}

func TestReadPageOffsets(t *testing.T) {
	t.Parallel()
	data := "alpha\nbravo\ncharlie\ndelta\n"
	path := writeTemp(t, data)
	ctx := context.Background()
	texts := func(p Page) (out []string) {
		for _, l := range p.Lines {
			out = append(out, l.Text)
		}
		return out
	}
	mid := int64(strings.Index(data, "ravo")) // inside "bravo"
	after, err := ReadPage(ctx, path, mid, 10)
	if err != nil {
		t.Fatal(err)
	}
	before, err := ReadPageBefore(ctx, path, mid, 10)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(texts(after)) != "[charlie delta]" || fmt.Sprint(texts(before)) != "[alpha bravo]" {
		t.Errorf("an offset inside bravo: after %q, before %q; want the next line boundary for both", texts(after), texts(before))
	}
	if after.Start != before.End || after.Start != int64(strings.Index(data, "charlie")) {
		t.Errorf("pages meet at %d and %d, want both at charlie's start", after.Start, before.End)
	}
	if before.Lines[0].N != 1 || after.Lines[0].N != 0 {
		t.Errorf("numbers: before starts at %d (want 1, it starts the file), after at %d (want 0, unknown)", before.Lines[0].N, after.Lines[0].N)
	}
	if p, err := ReadPage(ctx, path, int64(len(data)), 10); err != nil || len(p.Lines) != 0 || p.Next != -1 {
		t.Errorf("at the end: %+v, %v; want no lines and no next page", p, err)
	}
	for _, off := range []int64{-1, int64(len(data)) + 1} {
		if _, err := ReadPage(ctx, path, off, 10); err == nil || !strings.Contains(err.Error(), "outside the transcript") {
			t.Errorf("ReadPage(%d) = %v, want an offset error", off, err)
		}
	}
	if _, err := ReadPageBefore(ctx, path, -2, 10); err == nil {
		t.Error("ReadPageBefore(-2) gave no error")
	}
	if _, err := ReadPage(ctx, path+".missing", 0, 10); !errors.Is(err, ErrNoTranscript) {
		t.Errorf("missing file: %v, want ErrNoTranscript", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ReadPage(cancelled, path, 0, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// A renderer sees each line whole.
	p, err := ReadPage(ctx, path, 0, 1, WithRender(func(b []byte) string { return strings.ToUpper(string(b)) }))
	if err != nil || len(p.Lines) != 1 || p.Lines[0].Text != "ALPHA" {
		t.Errorf("rendered page: %+v, %v", p, err)
	}
}

// TestLineOffsets checks that Search and Range give each line's offset, a
// cursor for ReadPage.
func TestLineOffsets(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("q", readChunk*2+3) + " needle"
	data := "needle one\nnothing\n" + long + "\nneedle four"
	path := writeTemp(t, data)
	ctx := context.Background()
	want := linesOf(data)
	res, err := Search(ctx, path, "needle", 10)
	if err != nil {
		t.Fatal(err)
	}
	var offs []int64
	for _, l := range res.Lines {
		offs = append(offs, l.Off)
	}
	if fmt.Sprint(offs) != fmt.Sprint([]int64{want[0].off, want[2].off, want[3].off}) {
		t.Errorf("search offsets = %v, want lines 1, 3 and 4's %v", offs, want)
	}
	rng, err := Range(ctx, path, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range rng.Lines {
		if l.Off != want[i].off {
			t.Errorf("range line %d at %d, want %d", l.N, l.Off, want[i].off)
		}
	}
	for _, l := range res.Lines {
		p, err := ReadPage(ctx, path, l.Off, 1)
		if err != nil || len(p.Lines) != 1 || !strings.Contains(p.Lines[0].Text, strings.TrimSuffix(l.Text[:min(len(l.Text), 20)], "…")) {
			t.Errorf("page at search hit %d: %+v, %v", l.N, p, err)
		}
	}
}

func TestRoots(t *testing.T) {
	t.Parallel()
	s, err := New(t.TempDir(), "proj")
	if err != nil {
		t.Fatal(err)
	}
	if roots, err := s.Roots(); err != nil || len(roots) != 0 {
		t.Fatalf("no lineages yet: %v, %v", roots, err)
	}
	ctx := context.Background()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.Now = func() time.Time { return clock }
	for _, root := range []string{"kkkkkkkk", "mmmmmmmm", "llllllll"} {
		clock = clock.Add(time.Minute)
		if _, err := s.Update(ctx, root, func(sess *Session) error { sess.Task = "task " + root; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	clock = clock.Add(time.Minute)
	if _, err := s.Update(ctx, "kkkkkkkk", func(sess *Session) error { sess.AddChange("zzzzzzzz"); return nil }); err != nil {
		t.Fatal(err)
	}
	roots, err := s.Roots()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range roots {
		got = append(got, r.Root)
	}
	if fmt.Sprint(got) != "[kkkkkkkk llllllll mmmmmmmm]" {
		t.Errorf("roots = %v, want newest Updated first", got)
	}
	// A corrupt record is named; the others are still listed.
	dir, _ := s.Dir("llllllll")
	if err := os.WriteFile(filepath.Join(dir, SessionFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	roots, err = s.Roots()
	if err == nil || !strings.Contains(err.Error(), "llllllll") || len(roots) != 2 {
		t.Errorf("with a corrupt record: %d roots, %v", len(roots), err)
	}
}
