package hooks

import (
	"context"
	"io"
	"os"

	"github.com/planq-dev/planq/hooks/claude"
	"github.com/planq-dev/planq/hooks/session"
)

// The core's tests drive it the way Claude Code does, through the Claude
// Code adapter: recorded hook inputs in, Claude Code's responses out.

type (
	Input    = claude.Input
	Response = claude.Response
)

const EventSessionStart = claude.EventSessionStart

func ReadInput(r io.Reader) (Input, error) { return claude.ReadInput(r) }

// viaClaude runs the core's handler for event on a Claude Code input and
// answers as Claude Code reads it.
func viaClaude(event string) func(*Runner, context.Context, Input) (*Response, error) {
	return func(r *Runner, ctx context.Context, in Input) (*Response, error) {
		ev, err := claude.Protocol{}.Resolve(in.Event(event, os.Getenv("CLAUDE_PROJECT_DIR")), os.Getenv)
		if err != nil {
			return nil, err
		}
		rep, err := r.Handle(ctx, ev)
		return claude.Respond(event, rep), err
	}
}

var (
	sessionStart = viaClaude(session.EventSessionStart)
	postToolUse  = viaClaude(session.EventPostToolUse)
	preCompact   = viaClaude(session.EventPreCompact)
	stop         = viaClaude(session.EventStop)
	sessionEnd   = viaClaude(session.EventSessionEnd)
)
