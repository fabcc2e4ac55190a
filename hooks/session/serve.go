package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
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

// RunPreToolUse is the whole pre-tool-use hook for proto's host, shared by
// `planq hook pre-tool-use` and the planq-hook binary (through
// RunPreToolUseProcess) and the tests: it reads the input, judges the call
// and writes the answer. It fails closed: bad input, an internal error, a
// panic or the deadline deny the call with the error as the reason
// (gate.on_error: allow lets it through with a warning instead), and when
// even that answer cannot be written it exits 2, which hosts take as a
// denial. It returns the exit status.
//
// The call is judged on the caller's goroutine: a goroutine of its own
// woke a second thread in every hook process, which cost more than the
// judging on a busy machine (make bench). The deadline is kept by a timer
// instead: should the judge still be working at PreToolUseDeadline, the
// timer answers for it, denying; the judge's ctx ends then too.
func RunPreToolUse(ctx context.Context, proto Protocol, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return RunPreToolUseProcess(ctx, proto, stdin, stdout, stderr, getenv, nil)
}

// RunPreToolUseProcess is RunPreToolUse as a hook process's whole life:
// when the timer has answered for a judge stuck past the deadline (in
// something that does not heed ctx), exit ends the process with that
// answer's status rather than wait for the judge; and recording the
// verdict, after the answer, is bounded by metricsBudget the same way.
// With a nil exit it is RunPreToolUse.
func RunPreToolUseProcess(ctx context.Context, proto Protocol, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, exit func(int)) int {
	ctx, cancel := context.WithTimeout(ctx, PreToolUseDeadline)
	defer cancel()
	ans := &answerer{proto: proto, stdout: stdout, stderr: stderr}
	late := func() *preToolUse {
		return &preToolUse{ev: Event{Name: EventPreToolUse, Host: proto.Host()}, err: fmt.Errorf("the gate did not answer within %s", PreToolUseDeadline)}
	}
	watchdog := time.AfterFunc(PreToolUseDeadline, func() {
		if code, ok := ans.answer(late()); ok && exit != nil {
			exit(code)
		}
	})
	res := judgeInput(ctx, proto, stdin, getenv)
	watchdog.Stop()
	if ctx.Err() != nil { // the deadline passed while judging: what was judged is not trusted
		res = *late()
	}
	code, ok := ans.answer(&res)
	if !ok {
		return ans.code // the watchdog answered
	}
	if exit != nil {
		bound := time.AfterFunc(metricsBudget, func() { exit(code) })
		defer bound.Stop()
	}
	recordVerdict(res.ev, res.reply, res.acc, getenv)
	return code
}

// preToolUse is a pre-tool-use call's judgement.
type preToolUse struct {
	ev    Event
	reply Reply
	acc   account
	err   error
}

// judgeInput reads and judges a pre-tool-use call; a panic is an error.
func judgeInput(ctx context.Context, proto Protocol, stdin io.Reader, getenv func(string) string) (res preToolUse) {
	defer func() {
		if r := recover(); r != nil {
			res.err = fmt.Errorf("internal error: %v (%s)", r, panicked(debug.Stack()))
		}
	}()
	data, err := ReadInput(stdin)
	if err != nil {
		res.err = err
		res.ev = Event{Name: EventPreToolUse, Host: proto.Host()}
		return res
	}
	if res.ev, res.err = ReadEvent(proto, EventPreToolUse, data, getenv); res.err != nil {
		return res
	}
	res.reply, res.acc, res.err = judge(ctx, res.ev, getenv)
	return res
}

// answerer writes a pre-tool-use call's one answer: the judge's, or the
// watchdog's when the judge is late, whichever comes first.
type answerer struct {
	mu       sync.Mutex
	answered bool
	code     int // the answer's exit status
	proto    Protocol
	stdout   io.Writer
	stderr   io.Writer
}

// answer writes res as the answer and returns the exit status, or false
// when an answer was written already. An error becomes the failure reply,
// in res too, and is recorded as the gate's error.
func (a *answerer) answer(res *preToolUse) (int, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.answered {
		return 0, false
	}
	a.answered = true
	a.code = 2 // until the answer is written
	if res.err != nil {
		res.reply = FailedPreToolUse(res.ev.ProjectDir, res.err)
		res.acc = account{rule: gate.RuleGateError}
		fmt.Fprintf(a.stderr, "planq hook pre-tool-use: %s\n", text.OneLine(res.err.Error()))
	}
	code, err := a.proto.Write(a.stdout, res.ev, res.reply)
	if err != nil {
		fmt.Fprintf(a.stderr, "planq hook pre-tool-use: blocked: cannot answer %s (%s)\n", a.proto.Host().Display, text.OneLine(err.Error()))
		return 2, true
	}
	a.code = code
	return code, true
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
