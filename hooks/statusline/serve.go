package statusline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// MaxInput bounds the host's input read from stdin; a status payload is a
// few kilobytes.
const MaxInput = 1 << 20

// Timeout bounds one status line: hosts give the command a few seconds
// (Claude Code 5) and show nothing when it is late.
const Timeout = 3 * time.Second

// Decoder turns a host's status input into an Input; empty data is no
// input (a user running the command by hand). It may leave Dir or Width
// zero for Serve to fill in.
type Decoder func(data []byte, getenv func(string) string) (Input, error)

// Env is what Serve reads besides stdin.
type Env struct {
	Getenv func(string) string
	Getwd  func() (string, error)
}

// Serve answers one status line request: it reads the host's input on
// stdin (not from a terminal), decodes it, and prints one line on stdout.
// It always exits 0 with one line, since a host shows a failing status
// command as nothing at all, or as noise: bad input or an error is said
// in that line, briefly.
func Serve(ctx context.Context, decode Decoder, stdin io.Reader, stdout io.Writer, env Env) int {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	line := serve(ctx, decode, stdin, env)
	fmt.Fprintln(stdout, line)
	return 0
}

func serve(ctx context.Context, decode Decoder, stdin io.Reader, env Env) string {
	var data []byte
	if !isTerminal(stdin) {
		var err error
		if data, err = io.ReadAll(io.LimitReader(stdin, MaxInput+1)); err != nil {
			return Problem(DefaultWidth, "cannot read the status input: "+firstLine(err.Error()))
		}
	}
	if len(data) > MaxInput {
		return Problem(DefaultWidth, fmt.Sprintf("status input over %d bytes", MaxInput))
	}
	in, err := decode(data, env.Getenv)
	if err != nil {
		return Problem(in.Width, "bad status input: "+firstLine(err.Error()))
	}
	if in.Dir == "" {
		if in.Dir, err = env.Getwd(); err != nil {
			return Problem(in.Width, "no working directory: "+firstLine(err.Error()))
		}
	}
	if !filepath.IsAbs(in.Dir) {
		return Problem(in.Width, fmt.Sprintf("bad status input: directory %q is not absolute", in.Dir))
	}
	if _, err := os.Stat(in.Dir); err != nil {
		return Problem(in.Width, "the session's directory is gone: "+in.Dir)
	}
	line := Render(ctx, in)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Problem(in.Width, "jj did not answer in time")
	}
	return line
}

// isTerminal reports whether r is a terminal (a user running the command by
// hand, with nothing piped in), which is not read.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
