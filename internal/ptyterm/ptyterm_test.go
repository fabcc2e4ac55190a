//go:build linux

package ptyterm

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

func TestScreen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"text and newlines", "ab\r\ncd", "ab\ncd\n\n"},
		{"cursor forward leaves spaces", "a\x1b[2Cb", "a  b\n\n\n"},
		{"colours are skipped", "\x1b[38;5;246mdim\x1b[39m", "dim\n\n\n"},
		{"column and erase to the end", "hi world\x1b[4G\x1b[Kthere", "hi there\n\n\n"},
		{"up and over", "one\r\ntwo\x1b[1A\x1b[1Gx", "xne\ntwo\n\n"},
		{"absolute position", "\x1b[3;4Hz", "\n\n   z\n"},
		{"save and restore", "ab\x1b7\r\n\r\nxy\x1b8c", "abc\n\nxy\n"},
		{"title and modes are skipped", "\x1b]0;title\x07\x1b[?25l\x1b[>0qok", "ok\n\n\n"},
		{"wide runes take two cells", "日本\x1b[1Gx", "x 本\n\n\n"},
		{"scrolls at the bottom", "1\r\n2\r\n3\r\n4\r\n5", "2\n3\n4\n5"},
		{"long lines wrap", "abcdefghijk", "abcdefghij\nk\n\n"},
		{"a full line does not wrap until the next rune", "abcdefghij\r\nk", "abcdefghij\nk\n\n"},
		{"a colour change keeps the wrap pending", "abcdefghij\x1b[0mk", "abcdefghij\nk\n\n"},
		{"erase the display below", "aa\r\nbb\x1b[1;2H\x1b[J", "a\n\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScreen(4, 10)
			// One byte at a time: sequences split across reads must work too.
			for i := range len(tt.in) {
				s.write([]byte{tt.in[i]})
			}
			if got := s.String(); got != tt.want {
				t.Errorf("screen = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTermRunsAProgram drives sh in a real pseudo-terminal: it sees a
// terminal of the size asked for, draws, and reads what is typed.
func TestTermRunsAProgram(t *testing.T) {
	t.Parallel()
	ctx := testenv.Context(t)
	cmd := exec.Command("sh", "-c", `[ -t 0 ] && printf 'size %s\n' "$(stty size)"; printf 'name? '; read name; printf '\033[1;1Hhello %s\n' "$name"`)
	term, err := Start(cmd, 10, 50)
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	if _, err := term.WaitFor(ctx, func(s string) bool { return strings.Contains(s, "name?") }); err != nil {
		t.Fatalf("%v; screen:\n%s", err, term.Screen())
	}
	if err := term.Type("planq\r"); err != nil {
		t.Fatal(err)
	}
	screen, err := term.WaitFor(ctx, func(s string) bool { return strings.HasPrefix(s, "hello planq") })
	if err != nil {
		t.Fatalf("%v; screen:\n%s", err, screen)
	}
	if !strings.Contains(screen, "\nname? planq") {
		t.Errorf("the typed name was not echoed:\n%s", screen)
	}
	if err := term.Wait(ctx); err != nil {
		t.Errorf("sh: %v", err)
	}
	if !strings.HasPrefix(string(term.Raw()), "size 10 50") {
		t.Errorf("the program saw %q, want a 10×50 terminal", term.Raw())
	}
}
