package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/planq-dev/planq/gate"
	"github.com/planq-dev/planq/internal/text"
)

// MaxInputSize bounds a hook's input on stdin; a write of a large file, a
// long tool response or a session's messages can make it big, but never
// this big.
const MaxInputSize = 32 << 20

// PreToolUseDeadline bounds the pre-tool-use hook: hosts give it 10 seconds
// or more, and a hook that has not answered by then may let the call
// through, so planq answers (denying) well before.
const PreToolUseDeadline = 7 * time.Second

// ReadInput reads a hook's whole input, at most MaxInputSize bytes; the
// host's Protocol decodes it (DecodeObject, ReadEvent).
func ReadInput(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputSize+1))
	if err != nil {
		return nil, fmt.Errorf("read hook input: %w", err)
	}
	if len(data) > MaxInputSize {
		return nil, fmt.Errorf("hook input is larger than %d MiB", MaxInputSize>>20)
	}
	return data, nil
}

// Handler answers one event.
type Handler func(ctx context.Context, ev Event) (Reply, error)

// RunPreToolUse is the whole pre-tool-use hook process for proto's host,
// shared by `planq hook pre-tool-use` and the planq-hook binary: it reads
// the input, judges the call and writes the answer. It fails closed: bad
// input, an internal error, a panic or the deadline deny the call with the
// error as the reason (gate.on_error: allow lets it through with a warning
// instead), and when even that answer cannot be written it exits 2, which
// hosts take as a denial. It returns the exit status.
func RunPreToolUse(ctx context.Context, proto Protocol, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, cancel := context.WithTimeout(ctx, PreToolUseDeadline)
	defer cancel()
	type result struct {
		ev    Event
		reply Reply
		acc   account
		err   error
	}
	done := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if r := recover(); r != nil {
				res.err = fmt.Errorf("internal error: %v (%s)", r, panicked(debug.Stack()))
			}
			done <- res
		}()
		data, err := ReadInput(stdin)
		if err != nil {
			res.err = err
			res.ev = Event{Name: EventPreToolUse, Host: proto.Host()}
			return
		}
		if res.ev, res.err = ReadEvent(proto, EventPreToolUse, data, getenv); res.err != nil {
			return
		}
		res.reply, res.acc, res.err = judge(ctx, res.ev, getenv)
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		res = result{ev: Event{Name: EventPreToolUse, Host: proto.Host()}, err: fmt.Errorf("the gate did not answer within %s", PreToolUseDeadline)}
	}
	if res.err != nil {
		res.reply = FailedPreToolUse(res.ev.ProjectDir, res.err)
		res.acc = account{rule: gate.RuleGateError}
		fmt.Fprintf(stderr, "planq hook pre-tool-use: %s\n", text.OneLine(res.err.Error()))
	}
	code, err := proto.Write(stdout, res.ev, res.reply)
	if err != nil {
		fmt.Fprintf(stderr, "planq hook pre-tool-use: blocked: cannot answer %s (%s)\n", proto.Host().Display, text.OneLine(err.Error()))
		return 2
	}
	recordVerdict(res.ev, res.reply, res.acc, getenv)
	return code
}

// Serve runs a hook for an event that must never get in the user's way
// (every event but pre-tool-use): it reads the input, runs h within
// timeout, and writes the reply; an error, or a panic, is one line on
// stderr and the exit status is still 0.
func Serve(ctx context.Context, proto Protocol, event string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, timeout time.Duration, h Handler) (code int) {
	return serve(ctx, proto, event, stdin, stdout, stderr, getenv, timeout, h, 0)
}

// ServeStrict is Serve for an event the host must not carry on from when
// planq fails (worktree-create: no directory, no worktree): an error is one
// line on stderr and exit status 1.
func ServeStrict(ctx context.Context, proto Protocol, event string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, timeout time.Duration, h Handler) (code int) {
	return serve(ctx, proto, event, stdin, stdout, stderr, getenv, timeout, h, 1)
}

func serve(ctx context.Context, proto Protocol, event string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, timeout time.Duration, h Handler, failCode int) (code int) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error) int {
		fmt.Fprintf(stderr, "planq hook %s: %s\n", event, text.OneLine(err.Error()))
		return failCode
	}
	defer func() {
		if r := recover(); r != nil {
			code = fail(fmt.Errorf("internal error: %v (%s)", r, panicked(debug.Stack())))
		}
	}()
	data, err := ReadInput(stdin)
	if err != nil {
		return fail(err)
	}
	ev, err := ReadEvent(proto, event, data, getenv)
	if err != nil {
		return fail(err)
	}
	reply, err := h(ctx, ev)
	if err != nil && failCode != 0 {
		return fail(err)
	}
	code, werr := proto.Write(stdout, ev, reply)
	if err = errors.Join(err, werr); err != nil {
		return fail(err)
	}
	return code
}

// panicked returns the function that panicked, from a stack trace.
func panicked(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") && i+2 < len(lines) {
			return strings.TrimSpace(lines[i+2])
		}
	}
	return "no stack"
}

// PostToolUseTimeout bounds one post-tool-use call; the hosts' own timeouts
// for it are longer, so planq always answers first.
const PostToolUseTimeout = 8 * time.Second

// RunPostToolUse is the whole post-tool-use hook process for proto's host,
// shared by `planq hook post-tool-use` and the planq-hook binary: it
// records what the call did and says what subagents' workspaces hold
// (PostToolUse) within PostToolUseTimeout, and never blocks the user
// (Serve).
func RunPostToolUse(ctx context.Context, proto Protocol, stdin io.Reader, stdout, stderr io.Writer, e Env) int {
	return Serve(ctx, proto, EventPostToolUse, stdin, stdout, stderr, e.Lookup, PostToolUseTimeout,
		func(ctx context.Context, ev Event) (Reply, error) { return PostToolUse(ctx, e, ev) })
}
