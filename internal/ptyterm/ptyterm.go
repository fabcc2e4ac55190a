//go:build linux

// Package ptyterm runs a program in a pseudo-terminal and keeps the screen
// it draws, so a test can drive a full-screen terminal program (Claude
// Code's interactive TUI) and read what a person would see. The screen is
// a small VT100 subset: printing (wide runes take two cells), CR, LF, BS,
// cursor movement (CUU, CUD, CUF, CUB, CHA, CUP, VPA), erasing (EL, ED),
// and save/restore; colours, modes and title strings are skipped. Linux
// only: it opens /dev/ptmx itself.
package ptyterm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sys/unix"
	"golang.org/x/text/width"
)

// Term is a program running in a pseudo-terminal, and its screen.
type Term struct {
	cmd  *exec.Cmd
	ptm  *os.File
	done chan struct{} // closed when the program's output ends

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every output chunk
	scr     screen
	raw     []byte // everything the program wrote
}

// Start runs cmd (not yet started) in a new pseudo-terminal of rows×cols,
// as the leader of its own session with the terminal as its controlling
// one. cmd's standard streams are the terminal's.
func Start(cmd *exec.Cmd, rows, cols int) (*Term, error) {
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open a pseudo-terminal: %w", err)
	}
	fd := int(ptm.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		ptm.Close()
		return nil, fmt.Errorf("unlock the pseudo-terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		ptm.Close()
		return nil, fmt.Errorf("name the pseudo-terminal: %w", err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		ptm.Close()
		return nil, fmt.Errorf("open the terminal side: %w", err)
	}
	defer pts.Close()
	if err := unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		ptm.Close()
		return nil, fmt.Errorf("size the terminal: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		ptm.Close()
		return nil, err
	}
	t := &Term{cmd: cmd, ptm: ptm, done: make(chan struct{}), changed: make(chan struct{}), scr: newScreen(rows, cols)}
	go t.read()
	return t, nil
}

// read feeds the program's output to the screen until it ends (EIO once
// the program and its children closed the terminal).
func (t *Term) read() {
	defer close(t.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.ptm.Read(buf)
		if n > 0 {
			t.mu.Lock()
			t.raw = append(t.raw, buf[:n]...)
			t.scr.write(buf[:n])
			close(t.changed)
			t.changed = make(chan struct{})
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// Screen returns the screen's rows, each without trailing spaces, joined
// by newlines.
func (t *Term) Screen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scr.String()
}

// Raw returns everything the program wrote to the terminal.
func (t *Term) Raw() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.raw...)
}

// Type sends s to the program as typed keys ("\r" is Enter).
func (t *Term) Type(s string) error {
	_, err := t.ptm.WriteString(s)
	return err
}

// WaitFor waits until ok holds for the screen, and returns the screen. It
// checks after every chunk of output, and fails when ctx ends or the
// program's output does first.
func (t *Term) WaitFor(ctx context.Context, ok func(screen string) bool) (string, error) {
	for {
		t.mu.Lock()
		s, changed := t.scr.String(), t.changed
		t.mu.Unlock()
		if ok(s) {
			return s, nil
		}
		select {
		case <-changed:
		case <-t.done:
			if s := t.Screen(); ok(s) {
				return s, nil
			}
			return t.Screen(), errors.New("the program's output ended")
		case <-ctx.Done():
			return t.Screen(), ctx.Err()
		}
	}
}

// Wait waits for the program to exit, at most until ctx ends; then it kills
// the program's process group (the session Start made).
func (t *Term) Wait(ctx context.Context) error {
	exited := make(chan error, 1)
	go func() { exited <- t.cmd.Wait() }()
	select {
	case err := <-exited:
		return err
	case <-ctx.Done():
		t.kill()
		return <-exited
	}
}

// Close kills the program's process group if it still runs, and closes the
// terminal.
func (t *Term) Close() error {
	t.kill()
	return t.ptm.Close()
}

func (t *Term) kill() {
	if p := t.cmd.Process; p != nil && t.cmd.ProcessState == nil {
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	}
}

// screen is the terminal's grid of cells and its cursor.
type screen struct {
	rows, cols int
	cells      [][]rune // 0: empty; -1: the right half of a wide rune
	r, c       int
	// wrap says the last column was just written: the next rune goes on
	// the next line (a terminal's deferred wrap).
	wrap         bool
	saveR, saveC int
	pending      []byte // an incomplete escape sequence or UTF-8 rune
}

func newScreen(rows, cols int) screen {
	s := screen{rows: rows, cols: cols, cells: make([][]rune, rows)}
	for i := range s.cells {
		s.cells[i] = make([]rune, cols)
	}
	return s
}

// String returns the rows as text.
func (s *screen) String() string {
	lines := make([]string, s.rows)
	for i, row := range s.cells {
		var b strings.Builder
		for _, r := range row {
			switch r {
			case -1:
			case 0:
				b.WriteByte(' ')
			default:
				b.WriteRune(r)
			}
		}
		lines[i] = strings.TrimRight(b.String(), " ")
	}
	return strings.Join(lines, "\n")
}

func (s *screen) write(p []byte) {
	data := append(s.pending, p...)
	s.pending = nil
	for i := 0; i < len(data); {
		b := data[i]
		if b == '\r' || b == '\n' || b == '\b' || b == '\t' {
			s.wrap = false // the cursor moves: no wrap is pending
		}
		switch {
		case b == 0x1b:
			n, ok := s.escape(data[i:])
			if !ok {
				s.pending = append([]byte(nil), data[i:]...)
				return
			}
			i += n
			continue
		case b == '\r':
			s.c = 0
		case b == '\n':
			s.lineFeed()
		case b == '\b':
			s.c = max(s.c-1, 0)
		case b == '\t':
			s.c = min((s.c/8+1)*8, s.cols-1)
		case b < 0x20 || b == 0x7f:
		default:
			if !utf8.FullRune(data[i:]) {
				s.pending = append([]byte(nil), data[i:]...)
				return
			}
			r, n := utf8.DecodeRune(data[i:])
			s.put(r)
			i += n
			continue
		}
		i++
	}
}

func (s *screen) put(r rune) {
	w := 1
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		w = 2
	}
	if s.wrap || s.c+w > s.cols {
		s.c, s.wrap = 0, false
		s.lineFeed()
	}
	row := s.cells[s.r]
	// Writing over half of a wide rune blanks its other half.
	if row[s.c] == -1 && s.c > 0 {
		row[s.c-1] = 0
	}
	if end := s.c + w; end < s.cols && row[end] == -1 {
		row[end] = 0
	}
	row[s.c] = r
	if w == 2 {
		row[s.c+1] = -1
	}
	s.c += w
	if s.c >= s.cols {
		s.c, s.wrap = s.cols-1, true
	}
}

func (s *screen) lineFeed() {
	if s.r < s.rows-1 {
		s.r++
		return
	}
	copy(s.cells, s.cells[1:])
	s.cells[s.rows-1] = make([]rune, s.cols)
}

// escape interprets the escape sequence at the start of p and returns its
// length; ok is false when p holds only part of it.
func (s *screen) escape(p []byte) (n int, ok bool) {
	if len(p) < 2 {
		return 0, false
	}
	switch p[1] {
	case '[':
		for j := 2; j < len(p); j++ {
			if p[j] >= 0x40 && p[j] <= 0x7e {
				s.csi(string(p[2:j]), p[j])
				return j + 1, true
			}
		}
		return 0, false
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: up to BEL or ST
		for j := 2; j < len(p); j++ {
			if p[j] == 0x07 {
				return j + 1, true
			}
			if p[j] == 0x1b && j+1 < len(p) && p[j+1] == '\\' {
				return j + 2, true
			}
		}
		return 0, false
	case '7':
		s.saveR, s.saveC = s.r, s.c
	case '8':
		s.r, s.c, s.wrap = s.saveR, s.saveC, false
	case '(', ')', '#', '%': // charset and line-size selections take one byte more
		if len(p) < 3 {
			return 0, false
		}
		return 3, true
	}
	return 2, true
}

// csi interprets one control sequence: params, then its final byte.
func (s *screen) csi(params string, final byte) {
	if params != "" && (params[0] < '0' || params[0] > '9') && params[0] != ';' {
		return // private (?25h, >0q): modes and queries
	}
	var args []int
	for _, f := range strings.Split(params, ";") {
		n, _ := strconv.Atoi(f)
		args = append(args, n)
	}
	arg := func(i, def int) int {
		if i < len(args) && args[i] > 0 {
			return args[i]
		}
		return def
	}
	if final != 'm' {
		s.wrap = false // the cursor moves or the line changes
	}
	clampR := func(r int) int { return min(max(r, 0), s.rows-1) }
	clampC := func(c int) int { return min(max(c, 0), s.cols-1) }
	switch final {
	case 'A':
		s.r = clampR(s.r - arg(0, 1))
	case 'B', 'e':
		s.r = clampR(s.r + arg(0, 1))
	case 'C', 'a':
		s.c = clampC(s.c + arg(0, 1))
	case 'D':
		s.c = clampC(s.c - arg(0, 1))
	case 'E':
		s.r, s.c = clampR(s.r+arg(0, 1)), 0
	case 'F':
		s.r, s.c = clampR(s.r-arg(0, 1)), 0
	case 'G', '`':
		s.c = clampC(arg(0, 1) - 1)
	case 'd':
		s.r = clampR(arg(0, 1) - 1)
	case 'H', 'f':
		s.r, s.c = clampR(arg(0, 1)-1), clampC(arg(1, 1)-1)
	case 'K':
		from, to := s.c, s.cols
		switch arg(0, 0) {
		case 1:
			from, to = 0, s.c+1
		case 2:
			from = 0
		}
		clear(s.cells[s.r][from:min(to, s.cols)])
	case 'J':
		switch arg(0, 0) {
		case 0:
			clear(s.cells[s.r][s.c:])
			for r := s.r + 1; r < s.rows; r++ {
				clear(s.cells[r])
			}
		case 1:
			for r := 0; r < s.r; r++ {
				clear(s.cells[r])
			}
			clear(s.cells[s.r][:s.c+1])
		default:
			for r := range s.cells {
				clear(s.cells[r])
			}
		}
	}
}
